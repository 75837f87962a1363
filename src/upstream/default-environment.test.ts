import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { defaultEnvironment } from './default-environment.js';

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) Reflect.deleteProperty(process.env, key);
  Object.assign(process.env, saved);
});

describe('defaultEnvironment', () => {
  test('passes what a program needs to run and to reach the network (proxies, certificates), and nothing else', () => {
    process.env.HTTPS_PROXY = 'http://proxy.example:3128';
    process.env.no_proxy = 'localhost';
    process.env.NODE_EXTRA_CA_CERTS = '/etc/ca.pem';
    process.env.GITHUB_TOKEN = 'secret';
    const env = defaultEnvironment();
    assert.equal(env.HTTPS_PROXY, 'http://proxy.example:3128');
    assert.equal(env.no_proxy, 'localhost');
    assert.equal(env.NODE_EXTRA_CA_CERTS, '/etc/ca.pem');
    assert.equal(env.PATH, process.env.PATH);
    assert.equal(env.GITHUB_TOKEN, undefined);
  });

  test('leaves out shell functions', () => {
    process.env.SHELL = '() { echo pwned; }';
    assert.equal(defaultEnvironment().SHELL, undefined);
  });
});

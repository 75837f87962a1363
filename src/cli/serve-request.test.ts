import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { configServeRequest, serveRequest } from './serve-request.js';
import { UsageError } from './usage-error.js';

describe('--drain-ms', () => {
  test('is read on every serving command: a whole number of milliseconds, 0 included; absent, undefined (the default applies)', () => {
    assert.equal(serveRequest(undefined, { 'drain-ms': '2500' }, undefined, ['server']).drainMs, 2500);
    assert.equal(serveRequest('run', { 'drain-ms': '0' }, 'chain.ts', []).drainMs, 0);
    assert.equal(serveRequest(undefined, {}, undefined, ['server']).drainMs, undefined);
    assert.equal(configServeRequest({ 'drain-ms': '100' }, undefined).drainMs, 100);
    assert.equal(configServeRequest({}, undefined).drainMs, undefined);
  });

  test('anything else is a usage error naming the option', () => {
    for (const value of ['-1', '1.5', 'soon', '']) {
      assert.throws(() => serveRequest(undefined, { 'drain-ms': value }, undefined, ['server']), (error: unknown) => error instanceof UsageError && /--drain-ms must be a whole number/.test(error.message));
      assert.throws(() => configServeRequest({ 'drain-ms': value }, undefined), UsageError);
    }
  });
});

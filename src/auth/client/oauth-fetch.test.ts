import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowInsecureRequests, customFetch } from 'oauth4webapi';
import { BoundedFetchError } from '../bounded-fetch.js';
import { FetchPolicyError } from '../fetch-policy.js';
import { oauthFetch, oauthHttpOptions } from './oauth-fetch.js';

describe('oauthFetch', () => {
  let server: Server;
  let base = '';
  const seen: Array<{ method: string; url: string; body: string; contentType: string | undefined }> = [];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body: Buffer.concat(chunks).toString(), contentType: req.headers['content-type'] });
        if (req.url === '/json') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        else if (req.url === '/redirect') res.writeHead(302, { location: '/json' }).end();
        else if (req.url === '/big') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pad: 'x'.repeat(5_000) }));
        else if (req.url === '/empty') res.writeHead(204).end();
        else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('answers with a whole Response: status, headers, body', async () => {
    const response = await oauthFetch()(`${base}/json`, { method: 'GET', headers: { accept: 'application/json' }, body: undefined, redirect: 'manual' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(await response.json(), { ok: true });
  });

  test('sends a POST body given as URLSearchParams or a string', async () => {
    const fetch = oauthFetch();
    await fetch(`${base}/form`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ a: '1', b: 'x y' }),
      redirect: 'manual',
    });
    assert.deepEqual(seen.at(-1), { method: 'POST', url: '/form', body: 'a=1&b=x+y', contentType: 'application/x-www-form-urlencoded' });
    const response = await fetch(`${base}/missing`, { method: 'POST', headers: {}, body: '{"x":1}', redirect: 'manual' });
    assert.equal(response.status, 404);
    assert.equal(seen.at(-1)?.body, '{"x":1}');
  });

  test('an empty answer (204) is a Response without a body', async () => {
    const response = await oauthFetch()(`${base}/empty`, { method: 'GET', headers: {}, body: undefined, redirect: 'manual' });
    assert.equal(response.status, 204);
  });

  test('never follows a redirect', async () => {
    await assert.rejects(
      oauthFetch()(`${base}/redirect`, { method: 'GET', headers: {}, body: undefined, redirect: 'manual' }),
      (error: unknown) => error instanceof BoundedFetchError && error.reason === 'redirect',
    );
  });

  test('refuses an answer larger than maxBytes', async () => {
    await assert.rejects(
      oauthFetch({ maxBytes: 1_000 })(`${base}/big`, { method: 'GET', headers: {}, body: undefined, redirect: 'manual' }),
      (error: unknown) => error instanceof BoundedFetchError && error.reason === 'too-large',
    );
  });

  test('the fetch policy: plain http only to loopback, never link-local or metadata addresses', async () => {
    const fetch = oauthFetch();
    const init = { method: 'GET', headers: {}, body: undefined, redirect: 'manual' as const };
    await assert.rejects(fetch('http://example.com/x', init), FetchPolicyError);
    await assert.rejects(fetch('https://169.254.169.254/latest/meta-data', init), FetchPolicyError);
    await assert.rejects(fetch('https://[fe80::1]/x', init), FetchPolicyError);
    await assert.rejects(fetch(`${base}/json`.replace('http:', 'ftp:'), init), FetchPolicyError);
    await assert.rejects(oauthFetch({ allowHttpLoopback: false })(`${base}/json`, init), FetchPolicyError);
  });

  test('a name that resolves to a link-local address is refused', async () => {
    const fetch = oauthFetch({ lookup: () => Promise.resolve([{ address: '169.254.169.254', family: 4 }]) });
    await assert.rejects(
      fetch('https://innocent.example/x', { method: 'GET', headers: {}, body: undefined, redirect: 'manual' }),
      FetchPolicyError,
    );
  });

  test('oauthHttpOptions allows insecure requests only for plain http to loopback', () => {
    assert.equal(oauthHttpOptions({}, 'http://127.0.0.1:1/token')[allowInsecureRequests], true);
    assert.equal(oauthHttpOptions({}, 'http://localhost:1/token')[allowInsecureRequests], true);
    assert.equal(oauthHttpOptions({}, 'http://[::1]:1/token')[allowInsecureRequests], true);
    assert.equal(oauthHttpOptions({}, 'http://example.com/token')[allowInsecureRequests], undefined);
    assert.equal(oauthHttpOptions({}, 'https://example.com/token')[allowInsecureRequests], undefined);
    assert.equal(oauthHttpOptions({ allowHttpLoopback: false }, 'http://127.0.0.1:1/token')[allowInsecureRequests], undefined);
    assert.equal(typeof oauthHttpOptions({}, undefined)[customFetch], 'function');
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BoundedFetchError, fetchBounded, fetchJson } from './bounded-fetch.js';
import { FetchPolicyError, type HostLookup } from './fetch-policy.js';

const limits = { timeoutMs: 2000, maxBytes: 1024 };

describe('a bounded fetch', () => {
  let server: Server;
  let base: string;
  let port: number;
  let slowResponses: ServerResponse[] = [];
  const seen: { method: string; body: string; headers: IncomingMessage['headers'] }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', body, headers: req.headers });
        switch (req.url) {
          case '/json':
            res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
            break;
          case '/not-json':
            res.writeHead(200).end('<html>');
            break;
          case '/error':
            res.writeHead(500).end('{"error":"server_error"}');
            break;
          case '/redirect':
            res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
            break;
          case '/big-declared':
            res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
            break;
          case '/big-chunked':
            res.writeHead(200);
            for (let i = 0; i < 10; i++) res.write('y'.repeat(500));
            res.end();
            break;
          case '/slow':
            res.writeHead(200);
            res.write('{');
            slowResponses.push(res);
            break;
          default:
            res.writeHead(404).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });

  after(async () => {
    for (const res of slowResponses) res.destroy();
    slowResponses = [];
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('reads a JSON answer and sends the body it is given', async () => {
    const response = await fetchJson(`${base}/json`, { method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, limits);
    assert.deepEqual(response.body, { ok: true });
    const last = seen.at(-1);
    assert.equal(last?.method, 'POST');
    assert.equal(last?.body, 'a=1');
    assert.equal(last?.headers.accept, 'application/json');
  });

  test('a body that is not JSON is a clear error', async () => {
    await assert.rejects(fetchJson(`${base}/not-json`, {}, limits), (e: unknown) => e instanceof BoundedFetchError && e.reason === 'json' && /not JSON/.test(e.message));
  });

  test('a non-2xx status rejects with the status', async () => {
    await assert.rejects(fetchJson(`${base}/error`, {}, limits), (e: unknown) => e instanceof BoundedFetchError && e.reason === 'status' && e.status === 500);
  });

  test('a redirect is never followed: an error by default, handed back with redirect manual', async () => {
    await assert.rejects(fetchBounded(`${base}/redirect`, {}, limits), (e: unknown) => e instanceof BoundedFetchError && e.reason === 'redirect');
    const manual = await fetchBounded(`${base}/redirect`, { redirect: 'manual' }, limits);
    assert.equal(manual.status, 302);
    assert.equal(manual.headers.location, 'http://169.254.169.254/');
  });

  test('a body over the cap is refused, declared or streamed', async () => {
    await assert.rejects(fetchBounded(`${base}/big-declared`, {}, limits), (e: unknown) => e instanceof BoundedFetchError && e.reason === 'too-large');
    await assert.rejects(fetchBounded(`${base}/big-chunked`, {}, limits), (e: unknown) => e instanceof BoundedFetchError && e.reason === 'too-large');
  });

  test('an answer slower than the deadline is given up', async () => {
    await assert.rejects(fetchBounded(`${base}/slow`, {}, { ...limits, timeoutMs: 100 }), (e: unknown) => e instanceof BoundedFetchError && e.reason === 'timeout');
  });

  test('the URL policy applies before any connection', async () => {
    const before = seen.length;
    await assert.rejects(fetchBounded('http://169.254.169.254/latest/meta-data/', {}, limits), FetchPolicyError);
    await assert.rejects(fetchBounded(`http://127.0.0.1:${port}/json`, {}, { ...limits, allowHttpLoopback: false }), FetchPolicyError);
    assert.equal(seen.length, before);
  });

  test('the connection goes to the addresses the policy checked, not to a second resolution', async () => {
    let lookups = 0;
    const lookup: HostLookup = async () => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const response = await fetchJson(`http://localhost:${port}/json`, {}, { ...limits, lookup });
    assert.deepEqual(response.body, { ok: true });
    assert.equal(lookups, 1);
  });
});

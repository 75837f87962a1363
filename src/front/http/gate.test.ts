// The gate every HTTP request passes first: DNS-rebinding protection (Host, Origin), CORS without
// wildcards, and authentication with sessions bound to the identity that created them.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { initializeRequest, openSession, send } from '../../../test/helpers/http.js';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { local } from '../../upstream/local.js';
import { serveHttp, type HttpFront, type ServeHttpOptions } from './serve-http.js';

const whoami = local({
  tools: [{ name: 'whoami', handler: (_args, ctx) => ({ content: [{ type: 'text', text: ctx.session.identity?.id ?? 'anonymous' }] }) }],
});

function start(options: ServeHttpOptions = {}): Promise<HttpFront> {
  return serveHttp(chain().to(whoami), { port: 0, log: silentLogger, ...options });
}

/** The status of a POST written by hand on a socket (Node's client will not send two Host headers). */
function statusOfHandWritten(url: string, headerLines: string[]): Promise<number> {
  const target = new URL(url);
  const body = JSON.stringify(initializeRequest());
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (status) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on('error', reject);
    socket.write([
      `POST ${target.pathname} HTTP/1.1`,
      ...headerLines,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'));
  });
}

/** A raw request with exactly the headers given (fetch would fix Host and refuse some). */
function raw(url: string, headers: Record<string, string | string[]>, body = JSON.stringify(initializeRequest())): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTP gate: DNS rebinding (bound to loopback)', () => {
  let front: HttpFront;
  before(async () => (front = await start()));
  after(() => front.close());

  test('binds to 127.0.0.1 by default', () => {
    const address = front.server.address();
    assert.ok(address !== null && typeof address === 'object');
    assert.equal(address.address, '127.0.0.1');
    assert.match(front.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  test('loopback Host names and loopback origins are accepted', async () => {
    const port = new URL(front.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      assert.equal((await raw(front.url, { host })).status, 200, host);
    }
    for (const origin of [`http://localhost:${port}`, 'http://127.0.0.1:6274', 'https://[::1]']) {
      assert.equal((await raw(front.url, { origin })).status, 200, origin);
    }
  });

  test('a foreign Host is 403 (a rebound DNS name pointing at us)', async () => {
    for (const host of ['evil.example.com', 'localhost.evil.com', '127.0.0.1.nip.io', 'evil.com:80']) {
      assert.equal((await raw(front.url, { host })).status, 403, host);
    }
  });

  test('two Host headers are 403, whichever comes first (Node keeps only one of them)', async () => {
    const port = new URL(front.url).port;
    for (const hosts of [[`localhost:${port}`, 'evil.example.com'], ['evil.example.com', `localhost:${port}`], [`localhost:${port}`, `localhost:${port}`]]) {
      assert.equal(await statusOfHandWritten(front.url, hosts.map((host) => `Host: ${host}`)), 403, hosts.join(' + '));
    }
  });

  test('a foreign, null, malformed, look-alike or duplicated Origin is 403', async () => {
    const cases: Array<string | string[]> = [
      'http://evil.example.com',
      'null',
      'http://localhost.evil.com',
      'http://127.0.0.1.nip.io',
      'http://localhost@evil.com',
      'http://evil.com#@localhost',
      'file://localhost',
      'not a url',
      ['http://localhost', 'http://evil.com'],
    ];
    for (const origin of cases) assert.equal((await raw(front.url, { origin })).status, 403, String(origin));
  });

  test('CORS reflects an admitted origin only, never a wildcard, with Vary: Origin, and exposes Mcp-Session-Id', async () => {
    /** Whether a Vary header lists Origin (a cache must not serve one origin's answer to another). */
    const variesByOrigin = (vary: string | string[] | null | undefined): boolean =>
      [vary ?? []].flat().join(',').split(',').some((name) => name.trim().toLowerCase() === 'origin');
    const allowed = await raw(front.url, { origin: 'http://localhost:6274' });
    assert.equal(allowed.headers['access-control-allow-origin'], 'http://localhost:6274');
    assert.ok(variesByOrigin(allowed.headers.vary), `Vary: ${String(allowed.headers.vary)}`);
    assert.match(String(allowed.headers['access-control-expose-headers']), /mcp-session-id/);
    const none = await raw(front.url, {});
    assert.equal(none.headers['access-control-allow-origin'], undefined);
    const preflight = await fetch(front.url, { method: 'OPTIONS', headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:6274');
    assert.ok(variesByOrigin(preflight.headers.get('vary')), `Vary: ${String(preflight.headers.get('vary'))}`);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /mcp-protocol-version/);
  });
});

describe('HTTP gate: allow-lists', () => {
  test('allowedOrigins admits exactly the listed origins', async () => {
    const front = await start({ allowedOrigins: ['https://app.example.com'] });
    try {
      assert.equal((await raw(front.url, { origin: 'https://app.example.com' })).status, 200);
      assert.equal((await raw(front.url, { origin: 'https://app.example.com.evil.com' })).status, 403);
      assert.equal((await raw(front.url, { origin: 'http://app.example.com' })).status, 403);
      assert.equal((await raw(front.url, { origin: 'http://localhost:3000' })).status, 403);
    } finally {
      await front.close();
    }
  });

  test('allowedHosts admits exactly the listed host names', async () => {
    const front = await start({ allowedHosts: ['mcp.internal'] });
    try {
      assert.equal((await raw(front.url, { host: 'mcp.internal:8080' })).status, 200);
      assert.equal((await raw(front.url, { host: 'localhost' })).status, 403);
    } finally {
      await front.close();
    }
  });
});

describe('HTTP gate: authentication', () => {
  let front: HttpFront;
  before(async () => (front = await start({ auth: { tokens: [{ id: 'alice', token: 'alice-secret-token' }, { id: 'bob', token: 'bob-secret-token' }] } })));
  after(() => front.close());

  test('no credentials: 401 with a Bearer challenge', async () => {
    const reply = await send(front.url, { body: initializeRequest() });
    assert.equal(reply.status, 401);
    assert.equal(reply.headers.get('www-authenticate'), 'Bearer realm="mcp-chain"');
  });

  test('a wrong token (or a prefix of a right one, or a malformed header) is 401 invalid_token / invalid_request', async () => {
    for (const authorization of ['Bearer nope', 'Bearer alice-secret', 'Bearer alice-secret-token-and-more']) {
      const reply = await send(front.url, { body: initializeRequest(), headers: { authorization } });
      assert.equal(reply.status, 401, authorization);
      assert.match(reply.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    }
    const basic = await send(front.url, { body: initializeRequest(), headers: { authorization: 'Basic YWxpY2U6eA==' } });
    assert.equal(basic.status, 401);
    assert.match(basic.headers.get('www-authenticate') ?? '', /error="invalid_request"/);
  });

  test('a bearer token or the same token as X-API-Key gets in; middleware sees the identity', async () => {
    const alice = await openSession(front.url, { headers: { authorization: 'Bearer alice-secret-token' } });
    const reply = await send(front.url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, headers: alice.headers });
    assert.deepEqual(reply.json, { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'alice' }] } });
    const bob = await openSession(front.url, { headers: { 'x-api-key': 'bob-secret-token' } });
    const bobReply = await send(front.url, { body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, headers: bob.headers });
    assert.match(bobReply.text, /"bob"/);
  });

  test('a session is bound to its identity: another valid token gets 404 for it', async () => {
    const alice = await openSession(front.url, { headers: { authorization: 'Bearer alice-secret-token' } });
    const asBob = { ...alice.headers, authorization: 'Bearer bob-secret-token' };
    const hijack = await send(front.url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers: asBob });
    assert.equal(hijack.status, 404);
    const stream = await send(front.url, { method: 'DELETE', headers: asBob });
    assert.equal(stream.status, 404);
    const stillAlice = await send(front.url, { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' }, headers: alice.headers });
    assert.equal(stillAlice.status, 200);
  });
});

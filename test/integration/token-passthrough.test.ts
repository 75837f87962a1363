// The spec forbids token passthrough: a client's credentials are for the gateway, never for the
// servers behind it. An HTTP upstream that records every header it receives proves that the
// client's Authorization, Cookie and X-API-Key (and their values, under any header name) never
// reach it, whichever front the client came in by; the upstream gets only what mcp-chain was
// configured to send it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chain } from '../../src/chain/chain.js';
import { serveHttp } from '../../src/front/http/serve-http.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import { harness } from '../../src/testing/harness.js';
import { http } from '../../src/upstream/http/index.js';
import { startHttpFixture, type HttpFixture, type RecordedRequest } from '../fixtures/http/mcp-http-server.js';
import { openSession, send } from '../helpers/http.js';

const CLIENT_TOKEN = 'client-token-3f9a1c';
const CLIENT_COOKIE = 'sid=client-cookie-77e2';
const CLIENT_API_KEY = 'client-api-key-5b10';
const UPSTREAM_TOKEN = 'upstream-token-c4d8';

/** The header names mcp-chain itself sends to a Streamable HTTP server. */
const PROTOCOL_HEADERS = new Set([
  'accept',
  'connection',
  'content-length',
  'content-type',
  'host',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-session-id',
  // 2026-07-28 (the server/discover probe): the method and target mirrored from the body.
  'mcp-method',
  'mcp-name',
  'transfer-encoding',
]);

/** Every header the fixture received, flattened, for a search by name and by value. */
function headersOf(requests: readonly RecordedRequest[]): Array<[string, string]> {
  return requests.flatMap((r) =>
    Object.entries(r.headers).flatMap(([name, value]) => (Array.isArray(value) ? value : [value ?? '']).map((v): [string, string] => [name, v])),
  );
}

function assertNoClientCredentials(requests: readonly RecordedRequest[]): void {
  assert.ok(requests.length > 0, 'the upstream was reached');
  for (const [name, value] of headersOf(requests)) {
    assert.notEqual(name, 'cookie', 'a Cookie header reached the upstream');
    assert.notEqual(name, 'x-api-key', 'an X-API-Key header reached the upstream');
    for (const secret of [CLIENT_TOKEN, CLIENT_COOKIE, CLIENT_API_KEY]) {
      assert.ok(!value.includes(secret), `the client's credential reached the upstream in ${name}`);
    }
  }
}

describe('no token passthrough: a client credential never reaches an HTTP upstream', () => {
  let fixture: HttpFixture;
  before(async () => {
    fixture = await startHttpFixture({ json: true });
  });
  after(() => fixture.stop());

  test('HTTP front with tokens → HTTP upstream: the client authenticates with Authorization, Cookie and X-API-Key; the upstream sees none of them', async () => {
    const front = await serveHttp(chain().to(http({ url: fixture.url })), {
      port: 0,
      log: silentLogger,
      auth: { tokens: [{ id: 'client', token: CLIENT_TOKEN }] },
    });
    const first = fixture.requests.length;
    try {
      const credentials = { authorization: `Bearer ${CLIENT_TOKEN}`, cookie: CLIENT_COOKIE, 'x-api-key': CLIENT_API_KEY };
      const { headers } = await openSession(front.url, { headers: credentials });
      const list = await send(front.url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers });
      assert.equal(list.status, 200);
      const call = await send(front.url, { body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }, headers });
      assert.deepEqual((call.messages[0] as { result: unknown }).result, { content: [{ type: 'text', text: 'hi' }] });
    } finally {
      await front.close();
    }
    const seen = fixture.requests.slice(first);
    assertNoClientCredentials(seen);
    assert.ok(seen.every((r) => r.headers.authorization === undefined), 'no Authorization at all: none was configured');
    const names = new Set(headersOf(seen).map(([name]) => name));
    assert.deepEqual([...names].filter((name) => !PROTOCOL_HEADERS.has(name)), [], 'only protocol headers reach the upstream');
  });

  test('HTTP front → HTTP upstream with its own bearer: the upstream sees its configured token, never the client\'s', async () => {
    const front = await serveHttp(chain().to(http({ url: fixture.url, bearer: UPSTREAM_TOKEN })), {
      port: 0,
      log: silentLogger,
      auth: { tokens: [{ id: 'client', token: CLIENT_TOKEN }] },
    });
    const first = fixture.requests.length;
    try {
      const { headers } = await openSession(front.url, { headers: { authorization: `Bearer ${CLIENT_TOKEN}`, cookie: CLIENT_COOKIE } });
      assert.equal((await send(front.url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers })).status, 200);
    } finally {
      await front.close();
    }
    const seen = fixture.requests.slice(first);
    assertNoClientCredentials(seen);
    assert.ok(seen.every((r) => r.headers.authorization === `Bearer ${UPSTREAM_TOKEN}`), 'every request carries the configured token');
  });

  test('stdio front → HTTP upstream: the upstream sees exactly the protocol headers and the configured ones', async () => {
    const first = fixture.requests.length;
    const h = await harness(chain().to(http({ url: fixture.url, headers: { 'X-Team': 'platform' } })));
    await h.request('tools/list');
    await h.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    await h.close();
    const seen = fixture.requests.slice(first);
    assertNoClientCredentials(seen);
    const names = new Set(headersOf(seen).map(([name]) => name));
    assert.deepEqual([...names].filter((name) => !PROTOCOL_HEADERS.has(name)), ['x-team']);
  });
});

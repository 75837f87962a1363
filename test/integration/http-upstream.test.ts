// The HTTP upstream (src/upstream/http/) against real peers: the official SDK's server-side
// StreamableHTTPServerTransport and SSEServerTransport (test/fixtures/http/mcp-http-server.ts,
// in-process, with levers for faults), the conformance fixture over Streamable HTTP, and a raw
// node:http server for answers no SDK server gives.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { chain } from '../../src/chain/chain.js';
import { ChainError } from '../../src/errors/chain-error.js';
import { harness } from '../../src/testing/harness.js';
import { http } from '../../src/upstream/http/http.js';
import { interpolateEnv } from '../../src/upstream/http/interpolate-env.js';
import { sse } from '../../src/upstream/http/sse.js';
import type { Upstream } from '../../src/core/upstream.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/http/mcp-http-server.js';
import { fixtureCommand } from '../helpers/targets.js';
import { CaptureLogger } from './_capture-logger.js';

const CLIENT = { name: 'http-test-client', version: '1.2.3' };

function texts(result: Record<string, unknown>): string[] {
  return (result.content as Array<{ text: string }>).map((c) => c.text);
}

async function open(upstream: Upstream, log = new CaptureLogger(), capabilities = {}): Promise<Awaited<ReturnType<typeof harness>>> {
  const h = await harness(chain().to(upstream), { log, initialize: false });
  await h.request('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: CLIENT });
  h.notify('notifications/initialized');
  return h;
}

describe('http upstream: Streamable HTTP against the SDK server', () => {
  let fixture: HttpFixture;
  before(async () => {
    fixture = await startHttpFixture();
  });
  after(() => fixture.close());

  test('calls work; headers, bearer and ${ENV} arrive; session id and protocol version follow initialize; the session is deleted on close', async () => {
    const log = new CaptureLogger();
    const upstream = http({
      url: fixture.url,
      headers: { 'X-Team': '${HTTP_TEST_TEAM}-team', 'X-Static': 'plain' },
      bearer: '${HTTP_TEST_TOKEN}',
      env: { HTTP_TEST_TEAM: 'blue', HTTP_TEST_TOKEN: 's3cret-token' },
    });
    const first = fixture.requests.length;
    const h = await open(upstream, log);
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'hello' } })), ['hello']);
    const seen = JSON.parse(texts(await h.request('tools/call', { name: 'headers', arguments: {} }))[0] ?? '{}') as Record<string, string>;
    assert.equal(seen.authorization, 'Bearer s3cret-token');
    assert.equal(seen['x-team'], 'blue-team');
    assert.equal(seen['x-static'], 'plain');
    await h.close();
    await upstream.close?.();

    const all = fixture.requests.slice(first);
    // The first connection asks server/discover (2026-07-28) first; a session-era server refuses it.
    const [probe] = all;
    assert.equal(probe?.rpc, 'server/discover');
    assert.equal(probe.headers['mcp-protocol-version'], '2026-07-28');
    assert.equal(probe.headers['mcp-method'], 'server/discover');
    assert.equal(probe.headers['mcp-session-id'], undefined);
    assert.equal(probe.headers.authorization, 'Bearer s3cret-token');
    const mine = all.slice(1);
    const initialize = mine.find((r) => r.rpc === 'initialize');
    assert.ok(initialize);
    assert.equal(initialize.headers.accept, 'application/json, text/event-stream');
    assert.equal(initialize.headers['content-type'], 'application/json');
    assert.equal(initialize.headers['mcp-session-id'], undefined);
    const sessionId = fixture.sessions.at(-1)?.id;
    const later = mine.filter((r) => r !== initialize);
    assert.ok(later.length >= 4);
    for (const request of later) {
      assert.equal(request.headers['mcp-session-id'], sessionId, `${request.method} ${request.rpc ?? ''}`);
      assert.equal(request.headers['mcp-protocol-version'], '2025-11-25');
      assert.equal(request.headers.authorization, 'Bearer s3cret-token');
    }
    // The standalone stream was opened after initialization, and the session deleted at the end.
    assert.ok(later.some((r) => r.method === 'GET' && r.headers.accept === 'text/event-stream'));
    assert.equal(mine.at(-1)?.method, "DELETE", JSON.stringify(mine.map((r) => [r.method, r.rpc])) + JSON.stringify(log.lines));
    // The client's own initialize went upstream.
    assert.deepEqual(fixture.sessions.at(-1)?.initializeParams?.clientInfo, CLIENT);
    // Secrets never reach the log.
    assert.ok(!JSON.stringify(log.lines).includes('s3cret-token'));
  });

  test('each downstream session gets its own upstream session', async () => {
    const upstream = http({ url: fixture.url });
    const a = await open(upstream);
    const b = await open(upstream);
    const [sa] = texts(await a.request('tools/call', { name: 'whoami', arguments: {} }));
    const [sb] = texts(await b.request('tools/call', { name: 'whoami', arguments: {} }));
    assert.notEqual(sa, sb);
    await a.close();
    await b.close();
    await upstream.close?.();
  });

  test('a session the server forgot (404) is initialized again with the client\'s parameters, log level and subscriptions, and the call retried', async () => {
    const log = new CaptureLogger();
    const upstream = http({ url: fixture.url });
    const h = await open(upstream, log);
    await h.request('logging/setLevel', { level: 'debug' });
    await h.request('resources/subscribe', { uri: 'test://kept' });
    await h.request('resources/subscribe', { uri: 'test://dropped' });
    await h.request('resources/unsubscribe', { uri: 'test://dropped' });
    const before = fixture.sessions.length;
    const old = fixture.sessions.at(-1);
    await fixture.expireSessions();

    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'again' } })), ['again']);
    assert.equal(fixture.sessions.length, before + 1);
    const renewed = fixture.sessions.at(-1);
    assert.ok(renewed && old);
    assert.notEqual(renewed.id, old.id);
    assert.deepEqual(renewed.initializeParams, old.initializeParams);
    assert.equal(renewed.initialized, true);
    assert.equal(renewed.logLevel, 'debug');
    assert.deepEqual([...renewed.subscriptions], ['test://kept']);
    assert.equal(texts(await h.request('tools/call', { name: 'whoami', arguments: {} }))[0], `session ${before + 1}`);
    assert.ok(log.lines.some((l) => l.message === 'the upstream session is gone; initializing a new one'));
    await h.close();
    await upstream.close?.();
  });

  test('a notification that finds the session forgotten (404) is sent again on the new session, and what follows it is not held forever', async () => {
    const upstream = http({ url: fixture.url });
    const h = await open(upstream);
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'before' } })), ['before']);
    const before = fixture.sessions.length;
    const sent = (): number => fixture.requests.filter((r) => r.rpc === 'notifications/roots/list_changed').length;
    await fixture.expireSessions();
    // The re-initialization it starts sends notifications/initialized of its own, which must not
    // wait behind this notification (it waits for the re-initialization): that held every later
    // message of the session forever.
    h.notify('notifications/roots/list_changed');
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'after' } })), ['after']);
    assert.equal(fixture.sessions.length, before + 1);
    assert.equal(fixture.sessions.at(-1)?.initialized, true);
    assert.equal(sent(), 2, 'refused with 404 once, then sent on the new session');
    await h.close();
    await upstream.close?.();
  });

  test('an answer stream cut mid-response is resumed with Last-Event-ID: nothing lost, nothing twice', async () => {
    const upstream = http({ url: fixture.url });
    const h = await open(upstream);
    const firstProgress = h.notification('notifications/progress');
    const answer = h.call('tools/call', { name: 'slow', arguments: {}, _meta: { progressToken: 'tok' } });
    await firstProgress;
    await fixture.slowStarted();
    const resumed = fixture.resumed();
    fixture.cutSlowStream();
    assert.ok((await resumed).length > 0);
    fixture.releaseSlow();
    const reply = await answer;
    assert.deepEqual(texts(reply.result as Record<string, unknown>), ['slow done']);
    const progress = h.notifications('notifications/progress').map((n) => n.params);
    assert.deepEqual(progress, [
      { progressToken: 'tok', progress: 1, total: 2 },
      { progressToken: 'tok', progress: 2, total: 2 },
    ]);
    await h.close();
    await upstream.close?.();
  });

  test('a cancelled call tells the server and aborts its HTTP exchange', async () => {
    const upstream = http({ url: fixture.url });
    const h = await open(upstream);
    const firstProgress = h.notification('notifications/progress');
    h.send({ jsonrpc: '2.0', id: 'to-cancel', method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: { progressToken: 'c' } } });
    await firstProgress;
    await fixture.slowStarted();
    const closed = fixture.slowClosed();
    const cancelledBefore = fixture.requests.filter((r) => r.rpc === 'notifications/cancelled').length;
    h.notify('notifications/cancelled', { requestId: 'to-cancel' });
    await closed;
    assert.equal(fixture.requests.filter((r) => r.rpc === 'notifications/cancelled').length, cancelledBefore + 1);
    fixture.releaseSlow();
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'still here' } })), ['still here']);
    assert.ok(!h.received.some((m) => typeof m === 'object' && m !== null && (m as { id?: unknown }).id === 'to-cancel'));
    await h.close();
    await upstream.close?.();
  });

  test('server down: a clear -32000 at once, the session keeps serving, and the next call after it is back reconnects', async () => {
    const upstream = http({ url: fixture.url });
    const h = await open(upstream);
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'up' } })), ['up']);
    await fixture.stop();
    const down = await h.call('tools/call', { name: 'echo', arguments: { text: 'down' } });
    const error = down.error as { code: number; message: string };
    assert.equal(error.code, -32000);
    assert.match(error.message, /^Upstream http:\/\/127\.0\.0\.1:\d+\/mcp is unreachable: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    assert.ok('result' in (await h.call('ping')));
    await fixture.restart();
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'back' } })), ['back']);
    await h.close();
    await upstream.close?.();
  });

  test('legacy fallback: initialize refused with 405 → GET, endpoint event, POSTs there', async () => {
    const log = new CaptureLogger();
    const upstream = http({ url: fixture.sseUrl });
    const first = fixture.requests.length;
    const h = await open(upstream, log);
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'old school' } })), ['old school']);
    const mine = fixture.requests.slice(first).map((r) => `${r.method} ${r.path}${r.rpc ? ` ${r.rpc}` : ''}`);
    assert.deepEqual(mine.slice(0, 5), ['POST /sse server/discover', 'POST /sse initialize', 'GET /sse', 'POST /messages initialize', 'POST /messages notifications/initialized']);
    assert.ok(log.lines.some((l) => l.message === 'the upstream speaks the legacy HTTP+SSE transport (2024-11-05)'));
    await h.close();
    await upstream.close?.();
  });

  test('sse(): legacy only, and a broken stream fails what waits on it, then reconnects and re-initializes', async () => {
    const upstream = sse({ url: fixture.sseUrl });
    const log = new CaptureLogger();
    const h = await open(upstream, log);
    await h.request('logging/setLevel', { level: 'error' });
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'sse' } })), ['sse']);
    const before = fixture.sessions.length;
    const old = fixture.sessions.at(-1);
    await fixture.stop();
    await log.waitFor(/^the upstream SSE stream ended$/);
    const down = await h.call('tools/call', { name: 'echo', arguments: { text: 'down' } });
    assert.match((down.error as { message: string }).message, /^Upstream http:\/\/127\.0\.0\.1:\d+\/sse is unreachable: connect ECONNREFUSED/);
    await fixture.restart();
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'sse again' } })), ['sse again']);
    assert.equal(fixture.sessions.length, before + 1);
    assert.deepEqual(fixture.sessions.at(-1)?.initializeParams, old?.initializeParams);
    assert.equal(fixture.sessions.at(-1)?.logLevel, 'error');
    await h.close();
    await upstream.close?.();
  });
});

describe('http upstream: JSON answers', () => {
  test('a server answering application/json works the same', async () => {
    const fixture = await startHttpFixture({ json: true });
    const upstream = http({ url: fixture.url });
    const h = await open(upstream);
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'json' } })), ['json']);
    await h.close();
    await upstream.close?.();
    await fixture.close();
  });
});

describe('http upstream: the conformance fixture over Streamable HTTP', () => {
  test('server→client sampling and elicitation travel on the SSE stream and the answers go back as POSTs', async () => {
    const child = spawn(fixtureCommand('conformance').command, [...fixtureCommand('conformance').args, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let seen = '';
        child.stderr.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const match = /listening on (\S+)/.exec(seen);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`conformance fixture exited (${String(code)}): ${seen}`)));
      });
      const upstream = http({ url });
      const h = await open(upstream, new CaptureLogger(), { sampling: {}, elicitation: { form: {} } });
      h.handle('sampling/createMessage', () => ({ role: 'assistant', content: { type: 'text', text: 'sampled!' }, model: 'test-model' }));
      h.handle('elicitation/create', () => ({ action: 'accept', content: { username: 'ada' } }));
      const sampled = texts(await h.request('tools/call', { name: 'test_sampling', arguments: { prompt: 'hi' } }));
      assert.match(sampled[0] ?? '', /sampled!/);
      const elicited = texts(await h.request('tools/call', { name: 'test_elicitation', arguments: { message: 'who?' } }));
      assert.match(elicited[0] ?? '', /ada/);
      // The server closes this call's stream itself and the answer is replayed from its event store.
      assert.match(texts(await h.request('tools/call', { name: 'test_reconnection', arguments: {} }))[0] ?? '', /replayed/);
      await h.close();
      await upstream.close?.();
    } finally {
      child.kill();
    }
  });
});

describe('http upstream: HTTP errors', () => {
  let server: ReturnType<typeof createServer>;
  let url: string;
  let answer: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://user:pw@127.0.0.1:${(server.address() as AddressInfo).port}/mcp?key=secret`;
  });
  after(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));

  async function initializeError(): Promise<{ code: number; message: string; data?: unknown }> {
    const upstream = http({ url });
    const h = await harness(chain().to(upstream), { initialize: false });
    const reply = await h.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT });
    await h.close();
    await upstream.close?.();
    return reply.error as { code: number; message: string };
  }

  test('a non-2xx answer is -32000 naming the server (without credentials or query) and the status', async () => {
    answer = (_req, res) => res.writeHead(401, { 'content-type': 'text/plain' }).end('go away');
    const error = await initializeError();
    assert.equal(error.code, -32000);
    assert.match(error.message, /^Upstream http:\/\/127\.0\.0\.1:\d+\/mcp answered HTTP 401 Unauthorized$/);
    assert.deepEqual(error.data, { status: 401 });
  });

  test('a JSON-RPC error body passes through unchanged', async () => {
    answer = (_req, res) => res.writeHead(403, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32099, message: 'Forbidden: bad token', data: { hint: 'x' } } }));
    assert.deepEqual(await initializeError(), { code: -32099, message: 'Forbidden: bad token', data: { hint: 'x' } });
  });

  test('a 404 to initialize from a server that is no legacy SSE server either says so', async () => {
    answer = (_req, res) => res.writeHead(404).end();
    const error = await initializeError();
    assert.equal(error.code, -32000);
    assert.match(error.message, /answered HTTP 404 to initialize, and is no legacy HTTP\+SSE server either \(answered the SSE GET with HTTP 404/);
  });
});

describe('http upstream: configuration', () => {
  test('${NAME} is replaced from the environment; an unset one is a clear CONFIG error without values', () => {
    assert.equal(interpolateEnv('Bearer ${A}-${B_2}', { A: 'x', B_2: 'y' }, 'header X'), 'Bearer x-y');
    assert.equal(interpolateEnv('$A {A} $', { A: 'x' }, 'header X'), '$A {A} $');
    assert.throws(
      () => http({ url: 'http://127.0.0.1:1/mcp', headers: { 'X-Key': '${HTTP_TEST_UNSET_VAR}' }, env: {} }),
      (error: unknown) => error instanceof ChainError && error.code === 'CONFIG'
        && error.message === 'header X-Key refers to ${HTTP_TEST_UNSET_VAR}, which is not set in the environment',
    );
    assert.throws(
      () => http({ url: 'http://127.0.0.1:1/mcp', bearer: '${HTTP_TEST_UNSET_TOKEN}', env: {} }),
      /the bearer token refers to \$\{HTTP_TEST_UNSET_TOKEN\}, which is not set/,
    );
    assert.throws(() => http({ url: 'ftp://example.com/' }), /needs an http: or https: URL/);
    assert.throws(() => http({ url: 'http://127.0.0.1:1/mcp', headers: { 'Mcp-Session-Id': 'x' } }), /set by mcp-chain/);
  });
});

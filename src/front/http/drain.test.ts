import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { answerTo, initializeRequest, openSession, openStream, send } from '../../../test/helpers/http.js';
import { chain } from '../../chain/chain.js';
import type { LogFields, Logger } from '../../log/logger.js';
import { withDeadline } from '../../testing/with-deadline.js';
import { local } from '../../upstream/local.js';
import { serveHttp, type HttpFront, type ServeHttpOptions } from './serve-http.js';

// HttpFront.drain: the graceful shutdown of the HTTP front (SIGTERM on `mcp-chain serve --http`).

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A logger that keeps its info lines. */
function infoLines(): Logger & { lines: { message: string; fields: LogFields }[] } {
  const lines: { message: string; fields: LogFields }[] = [];
  const logger = {
    lines,
    error: () => undefined,
    warn: () => undefined,
    debug: () => undefined,
    info: (message: string, fields: LogFields = {}) => void lines.push({ message, fields }),
    child: () => logger,
  };
  return logger;
}

/** The tools of the test server: `held` answers when released, `hang` never does (it records its abort), `ask` elicits. */
function testServer() {
  const state = {
    release: deferred(),
    started: 0,
    startedOne: deferred(),
    aborted: deferred<string>(),
    closed: 0,
  };
  const server = local({
    name: 'drain-test',
    tools: [
      {
        name: 'held',
        handler: async () => {
          state.started += 1;
          state.startedOne.resolve();
          await state.release.promise;
          return { content: [{ type: 'text', text: 'released' }] };
        },
      },
      {
        name: 'hang',
        handler: (_args, ctx) => new Promise(() => {
          state.startedOne.resolve();
          ctx.signal.addEventListener('abort', () => state.aborted.resolve(ctx.signal.reason instanceof Error ? ctx.signal.reason.message : String(ctx.signal.reason)));
        }),
      },
      {
        name: 'ask',
        handler: async (_args, ctx) => {
          const answer = await ctx.downstream.request(
            { method: 'elicitation/create', params: { message: 'sure?', requestedSchema: { type: 'object', properties: {} } } },
            { signal: ctx.signal },
          );
          return { content: [{ type: 'text', text: String(answer.action) }] };
        },
      },
    ],
  });
  const upstream = chain().to({
    connect(downstream, session) {
      const connection = server.connect(downstream, session);
      return { ...connection, close: async () => {
        state.closed += 1;
        await connection.close();
      } };
    },
  });
  return { state, upstream };
}

function call(id: number, name: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } };
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  return withDeadline(promise, { what });
}

/** Resolves once `condition` holds (checked every few ms); fails naming `what` after 10 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A POST by node:http (fetch hides hop-by-hop headers): the status, the Connection header and the body. */
function rawPost(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; connection: string | undefined; retryAfter: string | undefined; json: unknown }> {
  const target = new URL(url);
  return within(new Promise((resolve, reject) => {
    const req = httpRequest({
      host: target.hostname,
      port: target.port,
      path: target.pathname + target.search,
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({
        status: res.statusCode ?? 0,
        connection: res.headers.connection,
        retryAfter: res.headers['retry-after'],
        json: text === '' ? undefined : JSON.parse(text),
      }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  }), `the answer to a POST to ${url}`);
}

async function start(upstream: ReturnType<typeof testServer>['upstream'], options: ServeHttpOptions = {}): Promise<HttpFront> {
  return serveHttp(upstream, { port: 0, log: infoLines(), ...options });
}

describe('HTTP front drain: what is refused, what still flows', () => {
  test('idle sessions end at once; the front then closes, saying so in two info lines', async () => {
    const { state, upstream } = testServer();
    const log = infoLines();
    const front = await start(upstream, { log });
    await openSession(front.url);
    await openSession(front.url);
    await within(front.drain(60_000), 'the drain of idle sessions');
    assert.equal(front.sessions, 0);
    assert.equal(state.closed, 2);
    assert.equal(front.server.listening, false);
    const [started, done] = log.lines.filter((line) => line.message.startsWith('drain'));
    assert.deepEqual(started?.fields, { sessions: 2, inFlight: 0, deadlineMs: 60_000 });
    assert.equal(done?.message, 'drained');
    assert.deepEqual({ ...done?.fields, ms: 0 }, { finished: 0, cancelled: 0, ms: 0 });
  });

  test('a new session and a new request get 503 with Retry-After and Connection: close; the call in flight completes, then the session ends', async () => {
    const { state, upstream } = testServer();
    const front = await start(upstream);
    const { headers } = await openSession(front.url);
    const inFlight = send(front.url, { body: call(7, 'held'), headers });
    await within(state.startedOne.promise, 'the held call to start');
    const drained = front.drain(60_000);

    const initialize = await rawPost(front.url, {}, initializeRequest(undefined, 'init-1'));
    assert.equal(initialize.status, 503);
    assert.equal(initialize.retryAfter, '60');
    assert.equal(initialize.connection, 'close');
    assert.deepEqual(initialize.json, {
      jsonrpc: '2.0',
      id: 'init-1',
      error: { code: -32000, message: 'Service Unavailable: the server is shutting down and takes no new sessions or requests' },
    });
    const request = await rawPost(front.url, headers, call(8, 'held'));
    assert.equal(request.status, 503);
    assert.equal(request.retryAfter, '60');
    assert.equal(request.connection, 'close');
    assert.deepEqual((request.json as { id: unknown; error: { code: number } }).id, 8);
    assert.equal((request.json as { error: { code: number } }).error.code, -32000);
    // A notification is still taken (202), and the session is still there.
    const notification = await rawPost(front.url, headers, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    assert.deepEqual([notification.status, notification.connection], [202, 'close']);
    assert.equal(front.sessions, 1);
    assert.equal(state.started, 1);

    state.release.resolve();
    assert.deepEqual(answerTo(await inFlight, 7)?.result, { content: [{ type: 'text', text: 'released' }] });
    await within(drained, 'the drain after the call completed');
    assert.equal(front.sessions, 0);
    assert.equal(state.closed, 1);
  });

  test("the client's answer to the server's request (elicitation) is taken, so the call that asked completes", async () => {
    const { upstream } = testServer();
    const front = await start(upstream);
    const { headers } = await openSession(front.url);
    const stream = await openStream(front.url, { method: 'POST', body: call(4, 'ask'), headers });
    let event = await stream.next();
    if (event.data === '') event = await stream.next();
    const request = JSON.parse(event.data) as { id: number; method: string };
    assert.equal(request.method, 'elicitation/create');
    const drained = front.drain(60_000);
    const answered = await rawPost(front.url, headers, { jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: {} } });
    assert.equal(answered.status, 202);
    assert.deepEqual(JSON.parse((await stream.next()).data), { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'accept' }] } });
    await within(drained, 'the drain after the elicited call completed');
    stream.close();
  });

  test('a call still in flight at the deadline is cancelled upstream and answered -32000 naming the deadline', async () => {
    const { state, upstream } = testServer();
    const front = await start(upstream);
    const { headers } = await openSession(front.url);
    const inFlight = send(front.url, { body: call(9, 'hang'), headers });
    await within(state.startedOne.promise, 'the hanging call to start');
    await within(front.drain(50), 'the drain with a deadline of 50 ms');
    assert.deepEqual(answerTo(await inFlight, 9)?.error, {
      code: -32000,
      message: 'The gateway is shutting down: the call was cancelled after the drain deadline of 50 ms',
    });
    assert.equal(await state.aborted.promise, 'The gateway is shutting down: the call was cancelled after the drain deadline of 50 ms');
    assert.equal(state.closed, 1);
  });

  test('a request to a session the drain has already ended gets 503, not 404 (the client should not start another here)', async () => {
    const { state, upstream } = testServer();
    const front = await start(upstream);
    const idle = await openSession(front.url);
    const busy = await openSession(front.url);
    const inFlight = send(front.url, { body: call(1, 'held'), headers: busy.headers });
    await within(state.startedOne.promise, 'the held call to start');
    const drained = front.drain(60_000);
    const late = await rawPost(front.url, idle.headers, call(2, 'held'));
    assert.deepEqual([late.status, late.retryAfter, (late.json as { id: unknown }).id], [503, '60', 2]);
    state.release.resolve();
    await inFlight;
    await within(drained, 'the drain');
  });

  test('close() during a drain ends it at once: what is in flight is answered -32000 Session closed', async () => {
    const { state, upstream } = testServer();
    const front = await start(upstream);
    const { headers } = await openSession(front.url);
    const inFlight = send(front.url, { body: call(3, 'hang'), headers });
    await within(state.startedOne.promise, 'the hanging call to start');
    const drained = front.drain(60_000);
    await within(front.close(), 'the close');
    await within(drained, 'the drain cut short');
    assert.equal(answerTo(await inFlight, 3)?.error?.code, -32000);
  });

  test('many sessions at once: each ends when its own calls are done, every call is answered', async () => {
    const { state, upstream } = testServer();
    const front = await start(upstream);
    const sessions = await Promise.all(Array.from({ length: 40 }, () => openSession(front.url)));
    const busy = sessions.slice(0, 20);
    const calls = busy.flatMap((session, s) => [0, 1, 2].map((n) => send(front.url, { body: call(s * 10 + n, 'held'), headers: session.headers })));
    await until(() => state.started === calls.length, 'the calls to start');
    const drained = front.drain(60_000);
    // The idle half ends at once; the busy half waits for its calls.
    await until(() => front.sessions === busy.length, 'the idle sessions to end');
    assert.equal(front.sessions, busy.length);
    state.release.resolve();
    const replies = await Promise.all(calls);
    assert.ok(replies.every((reply) => reply.status === 200 && reply.messages.length === 1 && 'result' in (reply.messages[0] as object)));
    await within(drained, 'the drain of 40 sessions');
    assert.equal(state.closed, 40);
  });
});

describe('HTTP front drain: the legacy HTTP+SSE front', () => {
  test('GET /sse and a new request get 503 with Retry-After; the call in flight completes on the stream, which then ends', async () => {
    const { state, upstream } = testServer();
    const front = await start(upstream, { sse: true });
    const base = new URL('/', front.url);
    const stream = await openStream(new URL('/sse', base).href, {});
    const endpoint = await stream.next();
    const messages = new URL(endpoint.data, base).href;
    assert.equal((await send(messages, { body: initializeRequest('2024-11-05') })).status, 202);
    await stream.next();
    assert.equal((await send(messages, { body: { jsonrpc: '2.0', method: 'notifications/initialized' } })).status, 202);
    assert.equal((await send(messages, { body: call(5, 'held') })).status, 202);
    await within(state.startedOne.promise, 'the held call to start');
    const drained = front.drain(30_000);

    const open = await send(new URL('/sse', base).href, { method: 'GET', headers: { accept: 'text/event-stream' } });
    assert.deepEqual([open.status, open.headers.get('retry-after')], [503, '30']);
    const refused = await rawPost(messages, {}, call(6, 'held'));
    assert.deepEqual([refused.status, refused.retryAfter, (refused.json as { id: unknown }).id], [503, '30', 6]);

    state.release.resolve();
    assert.deepEqual(JSON.parse((await stream.next()).data), { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'released' }] } });
    await within(drained, 'the drain of the legacy session');
    await assert.rejects(stream.next(), /the stream ended/);
  });
});

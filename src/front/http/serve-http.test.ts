import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { openSession, openStream, send, initializeRequest, LATEST } from '../../../test/helpers/http.js';
import { withDeadline } from '../../testing/with-deadline.js';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { local } from '../../upstream/local.js';
import type { Downstream } from '../../core/downstream.js';
import type { Upstream } from '../../core/upstream.js';
import { serveHttp, type HttpFront, type ServeHttpOptions } from './serve-http.js';
import { rateLimit } from '../../middleware/rate-limit/index.js';

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** What the test server's tools saw, and the session-wide downstream of the last session. */
const seen = {
  aborted: [] as string[],
  /** Resolved with the reason when the `slow` tool is next aborted (replace it before the call). */
  slowAborted: deferred<string>(),
  /** Resolved when an upstream connection is next closed (replace it before waiting). */
  connectionClosed: deferred(),
  slowStarted: deferred(),
  downstream: undefined as Downstream | undefined,
  /** Every session's downstream, in the order sessions opened. */
  downstreams: [] as Downstream[],
  release: deferred(),
  heldStarted: deferred(),
  closedConnections: 0,
};

const server = local({
  name: 'http-front-test',
  tools: [
    { name: 'echo', handler: (args) => ({ content: [{ type: 'text', text: String(args.text) }] }) },
    {
      name: 'slow',
      handler: (_args, ctx) => {
        seen.slowStarted.resolve();
        return new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            seen.aborted.push(String(ctx.signal.reason instanceof Error ? ctx.signal.reason.message : ctx.signal.reason));
            seen.slowAborted.resolve(seen.aborted.at(-1) ?? '');
            resolve({ content: [{ type: 'text', text: 'aborted' }] });
          });
        });
      },
    },
    {
      name: 'held',
      handler: async () => {
        seen.heldStarted.resolve();
        await seen.release.promise;
        return { content: [{ type: 'text', text: 'released' }] };
      },
    },
    {
      name: 'progress',
      handler: async (_args, ctx) => {
        await ctx.progress(1, 2, 'half');
        await ctx.progress(2, 2, 'done');
        return { content: [{ type: 'text', text: 'finished' }] };
      },
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

/** The local server, keeping each session's downstream and counting closed connections. */
const upstream: Upstream = {
  connect(downstream, session) {
    seen.downstream = downstream;
    seen.downstreams.push(downstream);
    const connection = server.connect(downstream, session);
    return {
      ...connection,
      close: async () => {
        seen.closedConnections += 1;
        await connection.close();
        seen.connectionClosed.resolve();
      },
    };
  },
};

async function start(options: ServeHttpOptions = {}): Promise<HttpFront> {
  return serveHttp(chain().to(upstream), { port: 0, log: silentLogger, ...options });
}

/** Settles with `promise`, or fails naming `what` if that takes longer than a generous 10 s. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  return withDeadline(promise, { what });
}

/**
 * POSTs `body` with `Transfer-Encoding: chunked` (no Content-Length, so the front can only find
 * out how large it is by reading it), in 1 KiB chunks; resolves with the status and body.
 */
function postChunked(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  return within(new Promise((resolve, reject) => {
    const req = httpRequest({
      host: target.hostname,
      port: target.port,
      path: target.pathname + target.search,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'transfer-encoding': 'chunked', ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    // The front may answer 413 and close before it has read everything: that is no failure here.
    req.on('error', (error) => (req.headersSent ? undefined : reject(error)));
    for (let at = 0; at < body.length; at += 1024) req.write(body.slice(at, at + 1024));
    req.end();
  }), `the answer to a chunked POST to ${url}`);
}

function call(id: number, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } };
}

describe('Streamable HTTP front: a refusal that says when to retry', () => {
  let front: HttpFront;
  before(async () => (front = await serveHttp(chain().use(rateLimit({ limits: [{ tools: ['echo'], rate: 1, per: 'hour' }] })).to(upstream), { port: 0, log: silentLogger })));
  after(() => front.close());

  test("an answer whose error carries data.retryAfterMs gets Retry-After (whole seconds); the status stays 200 with the JSON-RPC error", async () => {
    const { headers } = await openSession(front.url);
    const first = await send(front.url, { body: call(1, 'echo', { text: 'a' }), headers });
    assert.equal(first.headers.get('retry-after'), null);
    const refused = await send(front.url, { body: call(2, 'echo', { text: 'b' }), headers });
    assert.equal(refused.status, 200);
    const error = (refused.json as { error: { code: number; data: { retryAfterMs: number } } }).error;
    assert.equal(error.code, -32029);
    assert.equal(refused.headers.get('retry-after'), String(Math.ceil(error.data.retryAfterMs / 1000)));
  });
});

describe('Streamable HTTP front: sessions', () => {
  let front: HttpFront;
  before(async () => (front = await start()));
  after(() => front.close());

  test('initialize creates a session: a long random Mcp-Session-Id of visible ASCII, answered as JSON', async () => {
    const reply = await send(front.url, { body: initializeRequest() });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'application/json');
    const id = reply.headers.get('mcp-session-id') ?? '';
    assert.match(id, /^[\x21-\x7e]{32,}$/);
    assert.deepEqual((reply.json as { result: { serverInfo: unknown } }).result.serverInfo, { name: 'http-front-test', version: '0.0.0' });
    const other = await send(front.url, { body: initializeRequest() });
    assert.notEqual(other.headers.get('mcp-session-id'), id);
  });

  test('a request is answered as application/json with its result', async () => {
    const { headers } = await openSession(front.url);
    const reply = await send(front.url, { body: call(7, 'echo', { text: 'hi' }), headers });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json, { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'hi' }] } });
  });

  test('notifications and responses get 202 and no body', async () => {
    const { headers } = await openSession(front.url);
    const notified = await send(front.url, { body: { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, headers });
    assert.equal(notified.status, 202);
    assert.equal(notified.text, '');
    // A response: the client's answer to a request the server made (elicitation, during a call).
    const stream = await openStream(front.url, { method: 'POST', body: call(21, 'ask'), headers });
    let event = await stream.next();
    if (event.data === '') event = await stream.next();
    const asked = JSON.parse(event.data) as { id: number; method: string };
    assert.equal(asked.method, 'elicitation/create');
    const answered = await send(front.url, { body: { jsonrpc: '2.0', id: asked.id, result: { action: 'decline' } }, headers });
    assert.equal(answered.status, 202);
    assert.equal(answered.text, '');
    assert.equal(answered.headers.get('content-type'), null);
    // ... and it was taken as the answer: the call finishes with it.
    assert.deepEqual(JSON.parse((await stream.next()).data), { jsonrpc: '2.0', id: 21, result: { content: [{ type: 'text', text: 'decline' }] } });
    stream.close();
  });

  test('a request without Mcp-Session-Id (other than initialize) is 400', async () => {
    const reply = await send(front.url, { body: call(1, 'echo', { text: 'x' }) });
    assert.equal(reply.status, 400);
    assert.match(String((reply.json as { error: { message: string } }).error.message), /Mcp-Session-Id/);
  });

  test('an unknown or guessed session id is 404, on POST, GET and DELETE', async () => {
    for (const method of ['POST', 'GET', 'DELETE']) {
      const reply = await send(front.url, {
        method,
        ...(method === 'POST' ? { body: call(1, 'echo', { text: 'x' }) } : {}),
        headers: { 'mcp-session-id': 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', ...(method === 'GET' ? { accept: 'text/event-stream' } : {}) },
      });
      assert.equal(reply.status, 404, method);
    }
  });

  test('DELETE ends the session and closes its upstream connection; the id is then 404', async () => {
    const { headers } = await openSession(front.url);
    const closedBefore = seen.closedConnections;
    const deleted = await send(front.url, { method: 'DELETE', headers });
    assert.equal(deleted.status, 200);
    assert.equal(seen.closedConnections, closedBefore + 1);
    const after = await send(front.url, { body: call(2, 'echo', { text: 'x' }), headers });
    assert.equal(after.status, 404);
  });

  test('a second initialize in a session is refused with -32600, the session goes on', async () => {
    const { headers } = await openSession(front.url);
    const again = await send(front.url, { body: initializeRequest(LATEST, 9), headers });
    assert.equal((again.json as { error: { code: number } }).error.code, -32600);
    const still = await send(front.url, { body: call(10, 'echo', { text: 'ok' }), headers });
    assert.equal(still.status, 200);
  });

  test('a malformed initialize is 400 and opens no session (no upstream is started for it)', async () => {
    const sessions = front.sessions;
    const reply = await send(front.url, { body: { jsonrpc: '1.0', id: 1, method: 'initialize', params: {} } });
    assert.equal(reply.status, 400);
    assert.equal(reply.headers.get('mcp-session-id'), null);
    assert.equal(front.sessions, sessions);
  });

  test('a failed initialize leaves no session behind', async () => {
    const sessions = front.sessions;
    const reply = await send(front.url, { body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} } });
    assert.equal((reply.json as { error: { code: number } }).error.code, -32602);
    const id = reply.headers.get('mcp-session-id') ?? '';
    assert.equal(front.sessions, sessions);
    const use = await send(front.url, { body: call(2, 'echo', { text: 'x' }), headers: { 'mcp-session-id': id } });
    assert.equal(use.status, 404);
  });
});

describe('Streamable HTTP front: what a client sends wrong gets the exact status', () => {
  let front: HttpFront;
  let headers: Record<string, string>;
  before(async () => {
    front = await start({ maxBodyBytes: 64 * 1024 });
    ({ headers } = await openSession(front.url));
  });
  after(() => front.close());

  test('malformed JSON is 400 with a -32700 parse error and id null', async () => {
    const reply = await send(front.url, { body: '{"jsonrpc":"2.0","id":1,', headers });
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.json, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON' } });
  });

  test('invalid UTF-8 is a parse error too', async () => {
    const response = await fetch(front.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { code: number } }).error.code, -32700);
  });

  test('a structurally invalid message is 400 with -32600 and its id echoed', async () => {
    const reply = await send(front.url, { body: { jsonrpc: '1.0', id: 5, method: 'tools/list' }, headers });
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.json, { jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' } });
  });

  test('an unknown method is answered -32601 by the upstream, over HTTP 200', async () => {
    const reply = await send(front.url, { body: { jsonrpc: '2.0', id: 6, method: 'no/such' }, headers });
    assert.equal(reply.status, 200);
    assert.equal((reply.json as { error: { code: number } }).error.code, -32601);
  });

  test('a body over the limit is 413, and the session keeps serving', async () => {
    const reply = await send(front.url, { body: call(3, 'echo', { text: 'x'.repeat(70 * 1024) }), headers });
    assert.equal(reply.status, 413);
    const after = await send(front.url, { body: call(4, 'echo', { text: 'small' }), headers });
    assert.equal(after.status, 200);
  });

  test('a chunked body (no Content-Length) over the limit is 413 too, and the session keeps serving', async () => {
    const reply = await postChunked(front.url, headers, JSON.stringify(call(5, 'echo', { text: 'x'.repeat(70 * 1024) })));
    assert.equal(reply.status, 413);
    assert.match(reply.text, /Payload Too Large/);
    const small = await postChunked(front.url, headers, JSON.stringify(call(6, 'echo', { text: 'small' })));
    assert.equal(small.status, 200, 'a chunked body under the limit is read as usual');
    assert.deepEqual(JSON.parse(small.text), { jsonrpc: '2.0', id: 6, result: { content: [{ type: 'text', text: 'small' }] } });
  });

  test('an Accept header without text/event-stream is 406; a non-JSON content type is 415', async () => {
    const notAcceptable = await send(front.url, { body: call(1, 'echo'), headers: { ...headers, accept: 'application/json' } });
    assert.equal(notAcceptable.status, 406);
    const unsupported = await send(front.url, { body: 'x=1', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(unsupported.status, 415);
  });

  test('an unsupported MCP-Protocol-Version is 400; a supported one is fine', async () => {
    const bad = await send(front.url, { body: call(1, 'echo', { text: 'x' }), headers: { ...headers, 'mcp-protocol-version': '1999-01-01' } });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /MCP-Protocol-Version/);
    const good = await send(front.url, { body: call(2, 'echo', { text: 'x' }), headers: { ...headers, 'mcp-protocol-version': '2025-06-18' } });
    assert.equal(good.status, 200);
  });

  test('a request id already in flight is refused with -32600 without disturbing the first', async () => {
    seen.release = deferred();
    seen.heldStarted = deferred();
    const first = send(front.url, { body: call(50, 'held'), headers });
    await seen.heldStarted.promise;
    const duplicate = await send(front.url, { body: call(50, 'echo', { text: 'dup' }), headers });
    assert.equal(duplicate.status, 400);
    assert.equal((duplicate.json as { error: { code: number } }).error.code, -32600);
    seen.release.resolve();
    assert.deepEqual((await first).json, { jsonrpc: '2.0', id: 50, result: { content: [{ type: 'text', text: 'released' }] } });
  });

  test('other HTTP methods are 405 with Allow; other paths 404', async () => {
    const put = await send(front.url, { method: 'PUT', headers });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, POST, DELETE');
    const elsewhere = await send(new URL('/other', front.url).href, { body: call(1, 'echo') });
    assert.equal(elsewhere.status, 404);
  });
});

describe('Streamable HTTP front: streams', () => {
  let front: HttpFront;
  before(async () => (front = await start()));
  after(() => front.close());

  test('progress turns the answer into an SSE stream: priming event, progress in order, then the result', async () => {
    const { headers } = await openSession(front.url);
    const reply = await send(front.url, { body: call(3, 'progress', {}, { progressToken: 'tok' }), headers });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'text/event-stream');
    const [priming] = reply.events;
    assert.equal(priming?.data, '');
    assert.ok(priming?.id);
    assert.deepEqual(reply.messages, [
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, total: 2, message: 'half' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 2, total: 2, message: 'done' } },
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'finished' }] } },
    ]);
    const ids = reply.events.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, 'event ids are unique');
  });

  test('a 2025-06-18 client gets no priming event (older SDKs cannot parse empty data)', async () => {
    const { headers } = await openSession(front.url, { version: '2025-06-18' });
    const reply = await send(front.url, { body: call(3, 'progress', {}, { progressToken: 1 }), headers });
    assert.ok(reply.events.every((e) => e.data !== ''));
    assert.equal(reply.messages.length, 3);
  });

  test('a request the server makes while handling a call travels on that call\'s stream, and its answer comes back by POST', async () => {
    const { headers } = await openSession(front.url);
    const stream = await openStream(front.url, { method: 'POST', body: call(4, 'ask'), headers });
    assert.equal(stream.headers.get('content-type'), 'text/event-stream');
    let event = await stream.next();
    if (event.data === '') event = await stream.next();
    const request = JSON.parse(event.data) as { id: number; method: string };
    assert.equal(request.method, 'elicitation/create');
    const answered = await send(front.url, { body: { jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: {} } }, headers });
    assert.equal(answered.status, 202);
    const result = JSON.parse((await stream.next()).data) as unknown;
    assert.deepEqual(result, { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'accept' }] } });
    stream.close();
  });

  test('unrelated server messages go to the standalone GET stream', async () => {
    const { headers } = await openSession(front.url);
    const stream = await openStream(front.url, { headers });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('content-type'), 'text/event-stream');
    const priming = await stream.next();
    assert.equal(priming.data, '');
    await seen.downstream?.notify({ method: 'notifications/tools/list_changed' });
    assert.deepEqual(JSON.parse((await stream.next()).data), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    stream.close();
  });

  test('without a GET stream, unrelated messages wait in a backlog and arrive when one opens', async () => {
    const { headers } = await openSession(front.url);
    await seen.downstream?.notify({ method: 'notifications/resources/list_changed' });
    await seen.downstream?.notify({ method: 'notifications/prompts/list_changed' });
    const stream = await openStream(front.url, { headers });
    const methods: string[] = [];
    while (methods.length < 2) {
      const event = await stream.next();
      if (event.data !== '') methods.push((JSON.parse(event.data) as { method: string }).method);
    }
    assert.deepEqual(methods, ['notifications/resources/list_changed', 'notifications/prompts/list_changed']);
    stream.close();
  });

  test('a dropped SSE stream is resumed with Last-Event-ID: the rest arrives once, nothing before it again', async () => {
    const { headers } = await openSession(front.url);
    seen.release = deferred();
    const stream = await openStream(front.url, { headers });
    const priming = await stream.next();
    await seen.downstream?.notify({ method: 'notifications/message', params: { level: 'info', data: 'one' } });
    const one = await stream.next();
    assert.match(one.data, /"one"/);
    stream.close();
    // Sent while the client is away: kept in the event store.
    await seen.downstream?.notify({ method: 'notifications/message', params: { level: 'info', data: 'two' } });
    await seen.downstream?.notify({ method: 'notifications/message', params: { level: 'info', data: 'three' } });
    const resumed = await openStream(front.url, { headers: { ...headers, 'last-event-id': one.id ?? '' } });
    assert.equal(resumed.status, 200);
    const two = await resumed.next();
    const three = await resumed.next();
    assert.deepEqual([two.data, three.data].map((d) => (JSON.parse(d) as { params: { data: string } }).params.data), ['two', 'three']);
    assert.notEqual(two.id, one.id);
    assert.ok(priming.id);
    // The resumed connection carries the stream on.
    await seen.downstream?.notify({ method: 'notifications/message', params: { level: 'info', data: 'four' } });
    assert.match((await resumed.next()).data, /"four"/);
    resumed.close();
  });

  test('Last-Event-ID never replays across sessions, and an unknown id of a POST stream is 400', async () => {
    const a = await openSession(front.url);
    const downstreamA = seen.downstream;
    const b = await openSession(front.url);
    const downstreamB = seen.downstream;
    const streamA = await openStream(front.url, { headers: a.headers });
    const primingA = await streamA.next();
    await downstreamA?.notify({ method: 'notifications/message', params: { level: 'info', data: 'secret of a' } });
    assert.match((await streamA.next()).data, /secret of a/);
    streamA.close();
    // b presents a's event id: it names b's own standalone stream, which has nothing of a's.
    const streamB = await openStream(front.url, { headers: { ...b.headers, 'last-event-id': primingA.id ?? '' } });
    assert.equal(streamB.status, 200);
    await downstreamB?.notify({ method: 'notifications/message', params: { level: 'info', data: 'for b' } });
    let event = await streamB.next();
    if (event.data === '') event = await streamB.next();
    assert.match(event.data, /for b/);
    streamB.close();
    const unknown = await send(front.url, { method: 'GET', headers: { ...b.headers, accept: 'text/event-stream', 'last-event-id': '7-1' } });
    assert.equal(unknown.status, 400);
  });
});

describe('Streamable HTTP front: nothing lost when a client goes away', () => {
  let front: HttpFront;
  before(async () => (front = await start()));
  after(() => front.close());

  test('a client that drops a plain JSON answer cancels the call upstream (it could never be delivered)', async () => {
    const { headers } = await openSession(front.url);
    seen.slowStarted = deferred();
    seen.slowAborted = deferred<string>();
    const controller = new AbortController();
    const call7 = fetch(front.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(call(7, 'slow')),
      signal: controller.signal,
    }).catch(() => 'dropped');
    await seen.slowStarted.promise;
    controller.abort();
    assert.equal(await call7, 'dropped');
    assert.match(await within(seen.slowAborted.promise, 'the slow tool to be aborted'), /disconnected/);
    // The session is unharmed.
    const after = await send(front.url, { body: call(8, 'echo', { text: 'still here' }), headers });
    assert.equal(after.status, 200);
  });

  test('a dropped POST stream is resumed by GET with Last-Event-ID, and the answer arrives there', async () => {
    const { headers } = await openSession(front.url);
    seen.release = deferred();
    seen.heldStarted = deferred();
    const opening = openStream(front.url, { method: 'POST', body: call(9, 'held'), headers });
    await seen.heldStarted.promise;
    // A message while the call runs (with no GET stream open, it rides on the call's stream)
    // turns the answer into an SSE stream with event ids.
    await seen.downstreams.at(-1)?.notify({ method: 'notifications/message', params: { level: 'info', data: 'x' } });
    const stream = await opening;
    const priming = await stream.next();
    assert.equal(priming.data, '');
    stream.close();
    seen.release.resolve();
    const resumed = await openStream(front.url, { headers: { ...headers, 'last-event-id': priming.id ?? '' } });
    assert.equal(resumed.status, 200);
    const replayed = [JSON.parse((await resumed.next()).data), JSON.parse((await resumed.next()).data)] as unknown[];
    assert.deepEqual(replayed, [
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
      { jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: 'released' }] } },
    ]);
    await assert.rejects(resumed.next(), /the stream ended/);
  });

  test('ending a session answers its requests still in flight with -32000 Session closed', async () => {
    const { headers } = await openSession(front.url);
    seen.release = deferred();
    seen.heldStarted = deferred();
    const pending = send(front.url, { body: call(11, 'held'), headers });
    await seen.heldStarted.promise;
    assert.equal((await send(front.url, { method: 'DELETE', headers })).status, 200);
    const reply = await pending;
    assert.deepEqual(reply.json, { jsonrpc: '2.0', id: 11, error: { code: -32000, message: 'Session closed' } });
    seen.release.resolve();
  });
});

describe('Streamable HTTP front: batches (2025-03-26 only)', () => {
  let front: HttpFront;
  before(async () => (front = await start()));
  after(() => front.close());

  test('a 2025-03-26 session may POST a batch: one JSON array answers its requests, invalid members included', async () => {
    const { headers } = await openSession(front.url, { version: '2025-03-26' });
    const reply = await send(front.url, {
      body: [call(1, 'echo', { text: 'a' }), { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, { jsonrpc: '2.0', id: 2 }, call(3, 'echo', { text: 'b' })],
      headers,
    });
    assert.equal(reply.status, 200);
    const answers = reply.json as Array<{ id: number }>;
    assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 3]);
    assert.deepEqual(answers.find((a) => a.id === 2), { jsonrpc: '2.0', id: 2, error: { code: -32600, message: 'Invalid Request: neither a request, a notification nor a response' } });
  });

  test('later versions refuse a batch with 400 -32600; an empty batch is 400 too', async () => {
    const { headers } = await openSession(front.url);
    const batch = await send(front.url, { body: [call(1, 'echo', { text: 'a' })], headers });
    assert.equal(batch.status, 400);
    assert.equal((batch.json as { error: { code: number } }).error.code, -32600);
    const empty = await send(front.url, { body: [], headers });
    assert.equal(empty.status, 400);
  });
});

describe('Streamable HTTP front: limits', () => {
  test('requests in flight beyond the per-session limit get 429 with the id and Retry-After; the others are served', async () => {
    const front = await start({ maxInFlightPerSession: 1 });
    try {
      const { headers } = await openSession(front.url);
      seen.release = deferred();
      seen.heldStarted = deferred();
      const first = send(front.url, { body: call(1, 'held'), headers });
      await seen.heldStarted.promise;
      const second = await send(front.url, { body: call(2, 'echo', { text: 'x' }), headers });
      assert.equal(second.status, 429);
      assert.equal(second.headers.get('retry-after'), '1');
      assert.equal((second.json as { id: number }).id, 2);
      seen.release.resolve();
      assert.equal((await first).status, 200);
    } finally {
      await front.close();
    }
  });

  test('sessions beyond the limit get 503 with Retry-After', async () => {
    const front = await start({ maxSessions: 2 });
    try {
      await openSession(front.url);
      await openSession(front.url);
      const third = await send(front.url, { body: initializeRequest() });
      assert.equal(third.status, 503);
      assert.equal(third.headers.get('retry-after'), '5');
    } finally {
      await front.close();
    }
  });

  test('an idle session expires after its TTL: its upstream connection is closed and its id is 404', async () => {
    const front = await start({ sessionTtlMs: 1 });
    try {
      seen.connectionClosed = deferred();
      const closed = seen.closedConnections;
      const { headers } = await openSession(front.url);
      await within(seen.connectionClosed.promise, 'the idle session to expire and close its upstream connection');
      assert.equal(front.sessions, 0);
      assert.equal(seen.closedConnections, closed + 1);
      assert.equal((await send(front.url, { body: call(1, 'echo', { text: 'x' }), headers })).status, 404);
    } finally {
      await front.close();
    }
  });

  test('without the standalone stream, GET is 405', async () => {
    const front = await start({ standaloneSse: false });
    try {
      const { headers } = await openSession(front.url);
      const reply = await send(front.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } });
      assert.equal(reply.status, 405);
    } finally {
      await front.close();
    }
  });

  test('closing the front ends every session and its upstream connection', async () => {
    const front = await start();
    const closed = seen.closedConnections;
    await openSession(front.url);
    await openSession(front.url);
    await front.close();
    assert.equal(seen.closedConnections, closed + 2);
    assert.equal(front.sessions, 0);
  });
});

describe('Streamable HTTP front: keep-alive', () => {
  test('a quiet SSE stream gets keep-alive comments (ignored by SSE clients), so idle proxies keep it open', async () => {
    const front = await start({ sseKeepAliveMs: 20 });
    try {
      const { headers } = await openSession(front.url);
      const controller = new AbortController();
      const response = await fetch(front.url, { headers: { ...headers, accept: 'text/event-stream' }, signal: controller.signal });
      const reader = response.body?.getReader();
      let seen = '';
      while (!seen.includes(': keep-alive\n\n')) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        seen += new TextDecoder().decode(chunk.value);
      }
      assert.match(seen, /^: keep-alive$/m);
      controller.abort();
    } finally {
      await front.close();
    }
  });
});

describe('legacy HTTP+SSE front: what a client sends wrong', () => {
  test('an unknown session is 404, a body over the limit 413, malformed JSON 400 -32700; the session keeps serving', async () => {
    const front = await start({ sse: true, maxBodyBytes: 1024 });
    try {
      const base = new URL('/', front.url);
      const stream = await openStream(new URL('/sse', base).href, {});
      const endpoint = await stream.next();
      assert.equal(endpoint.event, 'endpoint');
      const messages = new URL(endpoint.data, base).href;
      const unknown = await send(new URL('/messages?sessionId=nope', base).href, { body: initializeRequest() });
      assert.equal(unknown.status, 404);
      assert.equal((await send(messages, { body: call(1, 'echo', { text: 'x'.repeat(2048) }) })).status, 413);
      const malformed = await send(messages, { body: '{"jsonrpc":' });
      assert.equal(malformed.status, 400);
      assert.equal((malformed.json as { error: { code: number } }).error.code, -32700);
      assert.equal((await send(messages, { body: initializeRequest('2024-11-05') })).status, 202);
      const answer = JSON.parse((await stream.next()).data) as { id: number; result: { protocolVersion: string } };
      assert.deepEqual([answer.id, answer.result.protocolVersion], [1, '2024-11-05']);
      stream.close();
    } finally {
      await front.close();
    }
  });
});

import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { answerTo, openSession, openStream, send } from '../../../test/helpers/http.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { withDeadline } from '../../testing/with-deadline.js';
import { local } from '../../upstream/local.js';
import { serveHttp, type HttpFront } from './serve-http.js';

// A call the client cancels (notifications/cancelled, in another POST) gets no answer, as the spec
// says; the HTTP front lets go of it at once: its POST stream ends, and it no longer counts among
// the session's requests in flight. (Found by the soak: held until the session closed, each
// cancelled call kept a socket and its place, so that after 100 a session got only 429s.)

/** `hang` never answers (it records the aborts it gets); with `progress: true` it first sends one progress notification, so its POST becomes an SSE stream. */
function hangingServer(): { upstream: ReturnType<typeof local>; started: () => number; aborted: () => number; startedOne: () => Promise<void> } {
  let started = 0;
  let aborted = 0;
  let waiters: (() => void)[] = [];
  const upstream = local({
    name: 'hanging',
    tools: [
      {
        name: 'hang',
        handler: async (args, ctx) => {
          started += 1;
          ctx.signal.addEventListener('abort', () => (aborted += 1));
          if (args.progress === true) await ctx.progress(1, undefined, 'started');
          for (const wake of waiters.splice(0)) wake();
          return new Promise(() => undefined);
        },
      },
      { name: 'echo', handler: (args) => ({ content: [{ type: 'text', text: String(args.text) }] }) },
    ],
  });
  waiters = [];
  return {
    upstream,
    started: () => started,
    aborted: () => aborted,
    startedOne: () => withDeadline(new Promise<void>((resolve) => waiters.push(resolve)), { what: 'a hang call to start' }),
  };
}

const call = (id: number, name: string, args: Record<string, unknown> = {}): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(args.progress === true ? { _meta: { progressToken: `p${id}` } } : {}) },
});
const cancel = (id: number): Record<string, unknown> => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the user gave up' } });

/** Resolves once `condition` holds; fails naming `what` after 10 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const fronts: HttpFront[] = [];
afterEach(async () => {
  await Promise.all(fronts.splice(0).map((front) => front.close()));
});

async function start(server: ReturnType<typeof hangingServer>): Promise<HttpFront> {
  const front = await serveHttp(server.upstream, { port: 0, log: silentLogger, maxInFlightPerSession: 1 });
  fronts.push(front);
  return front;
}

describe('HTTP front: a call the client cancels', () => {
  test('its POST ends without an answer (the call is cancelled upstream), and the session takes the next call at once', async () => {
    const server = hangingServer();
    const front = await start(server);
    const { headers } = await openSession(front.url);
    const started = server.startedOne();
    const reply = send(front.url, { body: call(2, 'hang'), headers });
    await started;
    assert.equal((await send(front.url, { body: cancel(2), headers })).status, 202);
    const ended = await reply;
    assert.equal(ended.status, 200);
    assert.equal(answerTo(ended, 2), undefined, `a cancelled call gets no answer: ${ended.text}`);
    await until(() => server.aborted() === 1, 'the cancellation upstream');
    // maxInFlightPerSession is 1: were the cancelled call still counted, this would be 429.
    const next = await send(front.url, { body: call(3, 'echo', { text: 'next' }), headers });
    assert.equal(next.status, 200);
    assert.deepEqual(answerTo(next, 3)?.result?.content, [{ type: 'text', text: 'next' }]);
  });

  test('a POST already streaming (a progress notification came) ends after what it sent, without an answer', async () => {
    const server = hangingServer();
    const front = await start(server);
    const { headers } = await openSession(front.url);
    const stream = await openStream(front.url, { method: 'POST', body: call(2, 'hang', { progress: true }), headers });
    let event = await stream.next();
    while (event.data === '') event = await stream.next(); // the priming event
    assert.equal((JSON.parse(event.data) as { method?: string }).method, 'notifications/progress');
    assert.equal((await send(front.url, { body: cancel(2), headers })).status, 202);
    await assert.rejects(stream.next(), /the stream ended/, 'the stream ends, with no answer on it');
    const next = await send(front.url, { body: call(3, 'echo', { text: 'next' }), headers });
    assert.equal(next.status, 200);
  });

  test('a cancellation that overtakes its request (separate POSTs race) is kept: the request, when it comes, is not forwarded and gets no answer', async () => {
    const server = hangingServer();
    const front = await start(server);
    const { headers } = await openSession(front.url);
    assert.equal((await send(front.url, { body: cancel(2), headers })).status, 202);
    const late = await send(front.url, { body: call(2, 'hang'), headers });
    assert.equal(late.status, 200);
    assert.equal(answerTo(late, 2), undefined, `a cancelled call gets no answer: ${late.text}`);
    assert.equal(server.started(), 0, 'the cancelled request never reached the server');
    const next = await send(front.url, { body: call(3, 'echo', { text: 'next' }), headers });
    assert.deepEqual(answerTo(next, 3)?.result?.content, [{ type: 'text', text: 'next' }]);
  });

  test('a late cancellation (its request already answered) is not kept: a client that reuses the id still gets its answer', async () => {
    const server = hangingServer();
    const front = await start(server);
    const { headers } = await openSession(front.url);
    assert.deepEqual(answerTo(await send(front.url, { body: call(2, 'echo', { text: 'first' }), headers }), 2)?.result?.content, [{ type: 'text', text: 'first' }]);
    assert.equal((await send(front.url, { body: cancel(2), headers })).status, 202);
    const again = await send(front.url, { body: call(2, 'echo', { text: 'again' }), headers });
    assert.deepEqual(answerTo(again, 2)?.result?.content, [{ type: 'text', text: 'again' }]);
  });

  test('a client that dropped its resumable stream and then cancelled (as the SDK client does) leaves nothing waiting: the next call is taken', async () => {
    const server = hangingServer();
    const front = await start(server);
    const { headers } = await openSession(front.url);
    const stream = await openStream(front.url, { method: 'POST', body: call(2, 'hang', { progress: true }), headers });
    await stream.next();
    stream.close();
    assert.equal((await send(front.url, { body: cancel(2), headers })).status, 202);
    await until(() => server.aborted() === 1, 'the cancellation upstream');
    const next = await send(front.url, { body: call(3, 'echo', { text: 'next' }), headers });
    assert.equal(next.status, 200, next.text);
    assert.deepEqual(answerTo(next, 3)?.result?.content, [{ type: 'text', text: 'next' }]);
  });
});

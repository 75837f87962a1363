import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { initializeRequest, LATEST, openSession, parseSse, send } from '../../../test/helpers/http.js';
import { chain } from '../../chain/chain.js';
import type { Downstream } from '../../core/downstream.js';
import type { Upstream } from '../../core/upstream.js';
import { silentLogger } from '../../log/stderr-logger.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { rememberRawMember } from '../../message/raw-json.js';
import { local } from '../../upstream/local.js';
import { serveHttp, type HttpFront } from './serve-http.js';

/** An upstream whose server→client traffic the test sends itself, and which records flow control. */
function observedUpstream(): { upstream: Upstream; downstreams: Downstream[]; flow: Flow } {
  const server = local({ name: 'legacy-front-test' });
  const downstreams: Downstream[] = [];
  const flow = new Flow();
  const upstream: Upstream = {
    connect(downstream, session) {
      downstreams.push(downstream);
      const connection = server.connect(downstream, session);
      return { ...connection, pause: () => flow.pause(), resume: () => flow.resume() };
    },
  };
  return { upstream, downstreams, flow };
}

/** What the session asked of its upstream connection: to stop being read, and to go on. */
class Flow {
  paused = false;
  readonly changes: Array<'pause' | 'resume'> = [];
  #waiters: Array<{ until: 'pause' | 'resume'; resolve: () => void }> = [];

  pause(): void {
    this.#change('pause');
  }

  resume(): void {
    this.#change('resume');
  }

  /** Resolves at the next `change` (at once if the last change was that one). */
  next(change: 'pause' | 'resume'): Promise<void> {
    if (this.changes.at(-1) === change) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ until: change, resolve }));
  }

  #change(change: 'pause' | 'resume'): void {
    this.paused = change === 'pause';
    this.changes.push(change);
    for (const waiter of this.#waiters.filter((w) => w.until === change)) waiter.resolve();
    this.#waiters = this.#waiters.filter((w) => w.until !== change);
  }
}

/** An SSE response read as raw event blocks (`id:`/`event:`/`data:` lines as they were sent). */
interface RawStream {
  readonly response: IncomingMessage;
  /** The text of the next event, without its closing blank line; rejects if the stream ends first. */
  next(): Promise<string>;
}

function openRawStream(url: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: { accept: 'text/event-stream', ...init.headers } }, (response) => {
      let buffer = '';
      let ended = false;
      const blocks: string[] = [];
      const waiters: Array<{ resolve: (block: string) => void; reject: (error: Error) => void }> = [];
      const settle = (): void => {
        while (waiters.length > 0 && blocks.length > 0) waiters.shift()?.resolve(blocks.shift() ?? '');
        if (ended) for (const waiter of waiters.splice(0)) waiter.reject(new Error('the stream ended before the next event'));
      };
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          blocks.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
        settle();
      });
      response.on('close', () => {
        ended = true;
        settle();
      });
      resolve({
        response,
        next: () => new Promise<string>((resolveNext, rejectNext) => {
          waiters.push({ resolve: resolveNext, reject: rejectNext });
          settle();
        }),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The JSON-RPC message an event block carries, parsed as an SSE client does. */
function messageOf(block: string): JsonObject {
  const [event] = parseSse(`${block}\n\n`);
  return JSON.parse(event?.data ?? '') as JsonObject;
}

/** Opens a legacy session: GET the stream, POST initialize and initialized to the endpoint it names. */
async function openLegacySession(front: HttpFront): Promise<{ stream: RawStream; messages: string }> {
  const base = new URL('/', front.url);
  const stream = await openRawStream(new URL('/sse', base).href);
  const endpoint = parseSse(`${await stream.next()}\n\n`)[0];
  assert.equal(endpoint?.event, 'endpoint');
  const messages = new URL(endpoint.data, base).href;
  assert.equal((await send(messages, { body: initializeRequest('2024-11-05') })).status, 202);
  assert.equal(messageOf(await stream.next()).id, 1);
  assert.equal((await send(messages, { body: { jsonrpc: '2.0', method: 'notifications/initialized' } })).status, 202);
  return { stream, messages };
}

describe('legacy HTTP+SSE front: events are encoded as on the Streamable HTTP front', () => {
  const observed = observedUpstream();
  let front: HttpFront;
  // No event store: Streamable HTTP events then carry no id, exactly like legacy ones.
  before(async () => (front = await serveHttp(chain().to(observed.upstream), { port: 0, log: silentLogger, sse: true, eventStore: false, sseKeepAliveMs: 0 })));
  after(() => front.close());

  test('a message whose forwarded text spans lines (CR, LF, CRLF) is one event with a data line per line, the same bytes on both fronts', async () => {
    const legacy = await openLegacySession(front);
    const legacyDownstream = observed.downstreams.at(-1);
    const { headers } = await openSession(front.url, { version: LATEST });
    const streamableDownstream = observed.downstreams.at(-1);
    const standalone = await openRawStream(front.url, { headers });

    // A notification forwarded unchanged from a server that pretty-prints its JSON: its params
    // go out as the text they came in as, line breaks included.
    const line = '{"jsonrpc":"2.0","method":"notifications/message","params":{\n  "level": "info",\r\n  "data": "two\\nlines"\r}\n}';
    const sent = () => {
      const message = JSON.parse(line) as { method: string; params: JsonObject };
      rememberRawMember(message, line);
      return { method: message.method, params: message.params };
    };
    await legacyDownstream?.notify(sent());
    await streamableDownstream?.notify(sent());
    const onLegacy = await legacy.stream.next();
    const onStreamable = await standalone.next();

    assert.equal(onLegacy, onStreamable);
    assert.ok(onLegacy.split('\n').filter((l) => l.startsWith('data: ')).length > 1, `not split into data lines: ${JSON.stringify(onLegacy)}`);
    assert.doesNotMatch(onLegacy, /\r/);
    assert.deepEqual(messageOf(onLegacy), { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'two\nlines' } });
    legacy.stream.response.destroy();
    standalone.response.destroy();
  });

  test('the endpoint event and a plain message event have the Streamable HTTP front’s form', async () => {
    const legacy = await openLegacySession(front);
    await observed.downstreams.at(-1)?.notify({ method: 'notifications/tools/list_changed' });
    assert.equal(await legacy.stream.next(), 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}');
    legacy.stream.response.destroy();
  });
});

describe('legacy HTTP+SSE front: flow control', () => {
  const observed = observedUpstream();
  let front: HttpFront;
  before(async () => (front = await serveHttp(chain().to(observed.upstream), { port: 0, log: silentLogger, sse: true, sseKeepAliveMs: 0 })));
  after(() => front.close());

  test('a client that stops reading its stream pauses the upstream until it reads again, and gets every message', async () => {
    const { stream } = await openLegacySession(front);
    const downstream = observed.downstreams.at(-1);
    assert.ok(downstream);
    stream.response.pause();

    // The server: it sends while the session reads it, and waits while it is paused (as a
    // stdio server's output waits in its pipe). Far more than socket buffers hold.
    const total = 800;
    const data = 'x'.repeat(32 * 1024);
    let produced = 0;
    const producing = (async () => {
      while (produced < total) {
        if (observed.flow.paused) await observed.flow.next('resume');
        await downstream.notify({ method: 'notifications/message', params: { level: 'info', logger: String(produced), data } });
        produced += 1;
        if (produced % 8 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    })();

    // While socket buffers fill, the session may pause and resume a few times; once they are
    // full it stays paused, and the server is not read further.
    const neverPaused = producing.then(() =>
      assert.fail(`all ${total} messages (${(total * data.length) >> 20} MiB) were written to a client that reads nothing, and the upstream was never held back`),
    );
    let heldAt = -1;
    while (heldAt === -1) {
      await Promise.race([observed.flow.next('pause'), neverPaused]);
      const atPause = produced;
      for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      if (observed.flow.paused && produced === atPause) heldAt = atPause;
    }
    assert.ok(heldAt < total, 'held back before the end');
    const changes = observed.flow.changes.length;

    stream.response.resume();
    const loggers: string[] = [];
    while (loggers.length < total) loggers.push(String((messageOf(await stream.next()).params as JsonObject).logger));
    await producing;
    assert.deepEqual(loggers, Array.from({ length: total }, (_, i) => String(i)));
    assert.equal(observed.flow.changes[changes], 'resume', 'reading again resumed the upstream');
    if (observed.flow.paused) await observed.flow.next('resume');
    stream.response.destroy();
  });
});

describe('legacy HTTP+SSE front: one session table with the Streamable HTTP front', () => {
  test('legacy sessions count toward maxSessions, are not found by the other front, and end when the server closes', async () => {
    const observed = observedUpstream();
    const front = await serveHttp(chain().to(observed.upstream), { port: 0, log: silentLogger, sse: true, maxSessions: 1, sseKeepAliveMs: 0 });
    try {
      const { stream, messages } = await openLegacySession(front);
      assert.equal(front.sessions, 1);
      const full = await send(front.url, { body: initializeRequest() });
      assert.equal(full.status, 503);
      assert.equal(full.headers.get('retry-after'), '5');
      const legacyId = new URL(messages).searchParams.get('sessionId') ?? '';
      const elsewhere = await send(front.url, { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers: { 'mcp-session-id': legacyId } });
      assert.equal(elsewhere.status, 404);
      await front.close();
      assert.equal(front.sessions, 0);
      await assert.rejects(stream.next(), /the stream ended/);
    } finally {
      await front.close();
    }
  });
});

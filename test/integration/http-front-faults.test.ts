// The HTTP front under single faults a client can cause: a chunked body that never stops, a
// stream resumed after the events it missed were evicted, and an SSE client that stops reading
// (and then vanishes while its stream is held back). Raw node:http clients, so that what is on
// the wire is exactly what the test says.
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { chain } from '../../src/chain/chain.js';
import type { Downstream } from '../../src/core/downstream.js';
import type { Upstream } from '../../src/core/upstream.js';
import { MemoryEventStore } from '../../src/front/http/event-store.js';
import { serveHttp, type HttpFront, type ServeHttpOptions } from '../../src/front/http/serve-http.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import { withDeadline } from '../../src/testing/with-deadline.js';
import { local } from '../../src/upstream/local.js';
import { openSession, openStream, send, type OpenStream, type SseEvent } from '../helpers/http.js';

const server = local({
  name: 'http-front-faults',
  tools: [
    { name: 'echo', handler: (args) => ({ content: [{ type: 'text', text: String(args.text) }] }) },
    {
      // Progress (so the answer comes on an SSE stream), then the answer once released.
      name: 'held',
      handler: async (_args, ctx) => {
        await ctx.progress(1, 2, 'started');
        await release.promise;
        return { content: [{ type: 'text', text: 'released' }] };
      },
    },
    {
      name: 'chatty',
      handler: async (_args, ctx) => {
        for (let i = 1; i <= 3; i += 1) await ctx.progress(i, 3, `step ${i}`);
        return { content: [{ type: 'text', text: 'said' }] };
      },
    },
  ],
});

let release = deferred();

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The last session's downstream, and how the front held its upstream back (pause/resume). */
const seen = {
  downstream: undefined as Downstream | undefined,
  flow: [] as Array<'pause' | 'resume'>,
  onFlow: undefined as (() => void) | undefined,
};

const upstream: Upstream = {
  connect(downstream, session) {
    seen.downstream = downstream;
    const connection = server.connect(downstream, session);
    return {
      ...connection,
      pause: () => {
        seen.flow.push('pause');
        seen.onFlow?.();
      },
      resume: () => {
        seen.flow.push('resume');
        seen.onFlow?.();
      },
    };
  },
};

function start(options: ServeHttpOptions = {}): Promise<HttpFront> {
  return serveHttp(chain().to(upstream), { port: 0, log: silentLogger, ...options });
}

/** Resolves when `seen.flow` has `count` entries. */
function flowReaches(count: number, what: string): Promise<void> {
  return withDeadline(new Promise<void>((resolve) => {
    const check = (): void => {
      if (seen.flow.length >= count) {
        seen.onFlow = undefined;
        resolve();
      }
    };
    seen.onFlow = check;
    check();
  }), { what });
}

function notify(data: unknown): Promise<void> {
  const downstream = seen.downstream;
  assert.ok(downstream, 'a session is open');
  return downstream.notify({ method: 'notifications/message', params: { level: 'info', data } });
}

const CAP = 4 * 1024 * 1024;

describe('HTTP front: a chunked body over the cap', () => {
  let front: HttpFront;
  before(async () => {
    front = await start();
  });
  after(async () => {
    await front.close();
  });

  test('an endless chunked body gets 413 with a JSON-RPC error (id null) once the cap is passed; the front stops reading and closes the connection; the next connection is served', async () => {
    const { headers } = await openSession(front.url);
    const target = new URL(front.url);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let written = 0;
    const outcome = await withDeadline(new Promise<{ status: number; text: string; closed: boolean }>((resolve, reject) => {
      let stop = false;
      const req = httpRequest({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'transfer-encoding': 'chunked' },
      }, (res: IncomingMessage) => {
        stop = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (part: string) => (text += part));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, closed: res.headers.connection === 'close' }));
        res.on('error', reject);
      });
      // Writing into a connection the front has closed fails: expected once the answer came.
      req.on('error', (error) => (stop ? undefined : reject(error)));
      req.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"');
      const pump = (): void => {
        // A safety net far above anything a front that stops reading lets through.
        while (!stop && written < 512 * 1024 * 1024) {
          written += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        if (!stop) reject(new Error(`the front read ${written} bytes without answering`));
      };
      pump();
    }), { what: 'the 413 to an endless chunked body' });
    assert.equal(outcome.status, 413);
    assert.equal(outcome.closed, true, 'the connection is closed after the refusal');
    const body = JSON.parse(outcome.text) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.id, null);
    assert.equal(typeof body.error.code, 'number');
    assert.match(body.error.message, /Payload Too Large/);
    // What the client got into the socket before the answer: the cap and the socket buffers, not
    // the body's (unbounded) length.
    assert.ok(written < CAP + 64 * 1024 * 1024, `written ${written}`);
    const next = await send(front.url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'next' } } }, headers });
    assert.equal(next.status, 200);
    assert.deepEqual(next.json, { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'next' }] } });
  });
});

interface Note {
  id: string | undefined;
  method: string;
  level: string;
  data: unknown;
}

function noteOf(event: SseEvent): Note {
  const message = JSON.parse(event.data) as { method: string; params: { level: string; data: unknown } };
  return { id: event.id, method: message.method, level: message.params.level, data: message.params.data };
}

/** The next event with data (priming events skipped). */
async function nextNote(stream: OpenStream): Promise<Note> {
  for (;;) {
    const event = await stream.next();
    if (event.data !== '') return noteOf(event);
  }
}

describe('HTTP front: resuming after eviction', () => {
  let front: HttpFront;
  before(async () => {
    front = await start({ eventStore: new MemoryEventStore({ maxEventsPerSession: 5 }) });
  });
  after(async () => {
    await front.close();
  });

  test('repeated drops and resumes past evicted events: what is kept is replayed once and in order, and a warning says how many were lost', async () => {
    const { headers } = await openSession(front.url);
    let stream = await openStream(front.url, { headers });
    const priming = await stream.next();
    assert.equal(priming.data, '');
    let lastSeen = priming.id ?? '';
    let sent = 0;
    /** Every message number the client got, in the order it got them. */
    const got: number[] = [];
    let lostReported = 0;
    for (let round = 0; round < 4; round += 1) {
      // 8 messages go out; the client takes the first, and the rest is lost in transit with the
      // connection. The store keeps 5 events: 2 are evicted before the client comes back.
      for (let i = 0; i < 8; i += 1) await notify(++sent);
      const first = await nextNote(stream);
      got.push(Number(first.data));
      lastSeen = first.id ?? '';
      for (let i = 1; i < 8; i += 1) await nextNote(stream);
      stream.close();
      stream = await openStream(front.url, { headers: { ...headers, 'last-event-id': lastSeen } });
      assert.equal(stream.status, 200);
      const warning = await nextNote(stream);
      assert.equal(warning.level, 'warning', JSON.stringify(warning));
      assert.equal(warning.id, undefined, 'the warning is no event of the stream (nothing to resume from)');
      const lost = (warning.data as { lost: number }).lost;
      assert.equal(lost, 2);
      lostReported += lost;
      for (let i = 0; i < 5; i += 1) {
        const kept = await nextNote(stream);
        got.push(Number(kept.data));
        lastSeen = kept.id ?? '';
      }
    }
    // Then the resumed stream carries on, with nothing lost, nothing twice.
    await notify(++sent);
    got.push(Number((await nextNote(stream)).data));
    stream.close();
    assert.deepEqual(got, [...got].sort((a, b) => a - b), 'in order');
    assert.equal(new Set(got).size, got.length, 'nothing twice');
    assert.equal(got.length + lostReported, sent, 'everything either arrived or was reported lost');
    // Per round: the first (read), 2 lost, 5 replayed.
    assert.deepEqual(got.slice(0, 6), [1, 4, 5, 6, 7, 8]);
  });

  test('an event id this session never sent is still refused (400), and a resume of a kept id loses nothing', async () => {
    const { headers } = await openSession(front.url);
    const stream = await openStream(front.url, { headers });
    await stream.next();
    await notify('a');
    const a = await nextNote(stream);
    await notify('b');
    await nextNote(stream);
    stream.close();
    const resumed = await openStream(front.url, { headers: { ...headers, 'last-event-id': a.id ?? '' } });
    const b = await nextNote(resumed);
    assert.equal(b.method, 'notifications/message');
    assert.equal(b.data, 'b', 'no warning: nothing was lost');
    resumed.close();
    const unknown = await send(front.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': '9-1' } });
    assert.equal(unknown.status, 400);
  });
});

describe('HTTP front: an answer evicted before the client resumed', () => {
  /** Resolved when an answer to request 10 reaches the event store. */
  const stored = deferred();
  class WatchedStore extends MemoryEventStore {
    override append(session: string, stream: string, event: { id: string; data: string }): void {
      super.append(session, stream, event);
      if (event.data.includes('"result"') && event.data.includes('"id":10')) stored.resolve();
    }
  }
  let front: HttpFront;
  before(async () => {
    front = await start({ eventStore: new WatchedStore({ maxEventsPerSession: 3 }) });
  });
  after(async () => {
    await front.close();
  });

  test('is answered with an error when the POST stream is resumed, after the warning: the request gets exactly one answer', async () => {
    const { headers } = await openSession(front.url);
    release = deferred();
    const body = { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'held', arguments: {}, _meta: { progressToken: 'p' } } };
    const streamA = await openStream(front.url, { method: 'POST', body, headers });
    const progress = await nextNote(streamA);
    assert.equal(progress.method, 'notifications/progress');
    streamA.close();
    release.resolve();
    await withDeadline(stored.promise, { what: 'the answer to 10 in the event store' });
    // Another call's stream fills the store: the answer to 10 is evicted.
    const chatty = await send(front.url, { body: { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'chatty', arguments: {}, _meta: { progressToken: 'q' } } }, headers });
    assert.equal(chatty.messages.length, 4);
    const resumed = await openStream(front.url, { headers: { ...headers, 'last-event-id': progress.id ?? '' } });
    assert.equal(resumed.status, 200);
    const warning = await nextNote(resumed);
    assert.equal(warning.level, 'warning');
    assert.equal((warning.data as { lost: number }).lost, 1);
    const answer = JSON.parse((await resumed.next()).data) as { id: unknown; error?: { code: number; message: string } };
    assert.equal(answer.id, 10);
    assert.equal(answer.error?.code, -32000);
    assert.match(answer.error?.message ?? '', /lost/);
    await assert.rejects(resumed.next(), /the stream ended/, 'the stream is over: its request is answered');
  });
});

describe('HTTP front: a slow reader', () => {
  let front: HttpFront;
  before(async () => {
    front = await start();
  });
  after(async () => {
    await front.close();
  });

  test('a client that stops reading its stream holds the upstream back while its connection buffer is full; when it vanishes while held, the hold and the buffer are released', async () => {
    const { headers } = await openSession(front.url);
    seen.flow = [];
    const target = new URL(front.url);
    // The front's side of the stream, to see what it buffers for the client.
    const streamResponse = withDeadline(new Promise<ServerResponse>((resolve) => {
      const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
        if (req.method !== 'GET') return;
        front.server.off('request', onRequest);
        resolve(res);
      };
      front.server.on('request', onRequest);
    }), { what: 'the GET stream reaching the front' });
    const response = await withDeadline(new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'GET', headers: { ...headers, accept: 'text/event-stream' } }, resolve);
      req.on('error', reject);
      req.end();
    }), { what: 'the GET stream' });
    assert.equal(response.statusCode, 200);
    response.pause(); // never reads
    const res = await streamResponse;
    const text = 'y'.repeat(256 * 1024);
    // An upstream that honours the hold sends until held back; one message more than the
    // connection's buffer takes is all the front keeps for this client.
    let sent = 0;
    while (seen.flow.at(-1) !== 'pause') {
      assert.ok(sent < 1000, 'held back long before 250 MiB');
      await notify({ n: sent, text });
      sent += 1;
    }
    assert.ok(res.writableLength > 0, 'the front holds what the client has not taken');
    assert.ok(res.writableLength <= res.writableHighWaterMark + text.length + 1024, `buffered ${res.writableLength}`);
    // The client vanishes while its stream is held back: the hold is released (whether a last
    // drain or the close comes first), and so is what the front buffered for it.
    const closed = withDeadline(new Promise<void>((resolve) => (res.closed ? resolve() : res.once('close', () => resolve()))), { what: 'the front seeing the client go' });
    const released = flowReaches(2, 'the upstream resumed after the client vanished');
    response.socket.destroy();
    await Promise.all([closed, released]);
    assert.equal(seen.flow.at(-1), 'resume');
    assert.equal(seen.flow.filter((f) => f === 'pause').length, seen.flow.filter((f) => f === 'resume').length, 'every hold released');
    assert.equal(res.socket?.destroyed, true, 'the connection is gone');
    assert.equal(res.writableLength, 0, 'nothing parked for a client that is gone');
  });

  test('with no stream open, what the upstream sends waits for the client within a bound in bytes: the newest is kept, in order, and a warning says what was dropped', async () => {
    const { headers } = await openSession(front.url);
    const text = 'y'.repeat(64 * 1024);
    const waiting = 400; // 25 MiB
    for (let n = 0; n < waiting; n += 1) await notify({ n, text });
    const stream = await openStream(front.url, { headers });
    const delivered: number[] = [];
    let bytes = 0;
    let warning: Note | undefined;
    while (delivered.at(-1) !== waiting - 1) {
      const note = await nextNote(stream);
      if (note.level === 'warning') {
        warning = note;
        continue;
      }
      delivered.push((note.data as { n: number }).n);
      bytes += JSON.stringify(note.data).length;
    }
    stream.close();
    assert.ok(bytes <= 8 * 1024 * 1024, `kept ${bytes} bytes for a client with no stream`);
    assert.deepEqual(delivered, Array.from({ length: delivered.length }, (_, i) => waiting - delivered.length + i), 'the newest, in order');
    assert.equal((warning?.data as { lost: number } | undefined)?.lost, waiting - delivered.length);
  });
});

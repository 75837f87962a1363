import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import fc from 'fast-check';
import { readSse } from '../../src/upstream/http/read-sse.js';
import { readWithCursor, sseCursor } from '../../src/upstream/http/sse-cursor.js';
import { defineFuzzTarget } from './fuzz-target.js';
import { awkwardString, chunking, feedings, invalidUtf8, messageText, type Chunking } from './grammar.js';

/** An event as the reader reports it. */
interface Event {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * The reference, from the WHATWG SSE parsing rules: UTF-8 decoded with replacement, one leading
 * BOM dropped, lines ended by CRLF, CR or LF (an unterminated last line ignored), `:` comments,
 * `field: value` with one space dropped, an `id` holding NUL ignored, a blank line dispatching
 * the event when it has data. As the reader reports them: the `id` and `event` fields of the
 * event itself (an empty event name is no name). Also where each event ended (in characters) and
 * the last event id as the spec keeps it.
 */
function reference(text: string): { events: Event[]; ends: number[]; lastEventId: string } {
  if (text.startsWith('\ufeff')) text = text.slice(1);
  const events: Event[] = [];
  const ends: number[] = [];
  let lastEventId = '';
  let id: string | undefined;
  let event: string | undefined;
  let data: string[] = [];
  const pattern = /([^\r\n]*)(\r\n|\r|\n)/gy;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const line = match[1] ?? '';
    if (line === '') {
      if (data.length > 0) {
        events.push({ id, event, data: data.join('\n') });
        ends.push(pattern.lastIndex);
      }
      id = undefined;
      event = undefined;
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value === '' ? undefined : value;
    else if (field === 'id' && !value.includes('\0')) {
      id = value;
      lastEventId = value;
    }
  }
  return { events, ends, lastEventId };
}

/** A response body that arrives in the given chunks, decoded as `setEncoding` does (a StringDecoder). */
function body(chunks: readonly Buffer[]): { response: IncomingMessage; destroyed: () => boolean } {
  let decoder: StringDecoder | undefined;
  let destroyed = false;
  const fake = {
    setEncoding(encoding: BufferEncoding) {
      decoder = new StringDecoder(encoding);
      return fake;
    },
    destroy() {
      destroyed = true;
      return fake;
    },
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) {
        if (destroyed) return;
        const text = decoder === undefined ? chunk : decoder.write(chunk);
        if (text.length > 0) yield text;
      }
      const rest = decoder?.end();
      if (rest !== undefined && rest.length > 0) yield rest;
    },
  };
  return { response: fake as unknown as IncomingMessage, destroyed: () => destroyed };
}

const eol = fc.constantFrom('\n', '\r\n', '\r');
const line = (parts: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.tuple(parts, eol).map(([p, e]) => p + e);

/** One field line, of any kind an upstream might send. */
const fieldLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: line(fc.tuple(fc.constantFrom('data:', 'data: ', 'data:  '), fc.oneof(messageText, awkwardString)).map(([f, v]) => f + v)) },
  { weight: 2, arbitrary: line(fc.tuple(fc.constantFrom('id:', 'id: ', 'id:  '), fc.oneof(fc.stringMatching(/^[0-9a-z_-]{0,8}$/), fc.constantFrom('a\0b', '\0', '5\u0000', 'é', '😀'), awkwardString)).map(([f, v]) => f + v)) },
  { weight: 1, arbitrary: line(fc.tuple(fc.constantFrom('event:', 'event: '), fc.constantFrom('', 'message', 'endpoint', 'ping', 'é')).map(([f, v]) => f + v)) },
  { weight: 1, arbitrary: line(fc.constantFrom(':', ': keep-alive', ':comment: x', 'retry: 1000', 'retry: x', 'retry:', 'data', 'id', 'event', 'unknown: x', 'Data: x', ' data: x', 'data :x')) },
);

/** A stream: events (field lines, then a blank line), maybe a BOM first, maybe invalid UTF-8, maybe an unterminated tail. */
interface Input {
  readonly bytes: Buffer;
  readonly how: Chunking;
  readonly limit: number;
}

const stream: fc.Arbitrary<Input> = fc
  .record({
    bom: fc.boolean(),
    events: fc.array(fc.tuple(fc.array(fieldLine, { maxLength: 5 }), eol), { maxLength: 6 }),
    big: fc.option(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 3000 })), { nil: undefined }),
    bad: fc.option(fc.tuple(fc.nat(), invalidUtf8), { nil: undefined }),
    tail: fc.oneof(fc.constant(''), fieldLine.map((l) => l.replace(/[\r\n]+$/, '')), fc.constant('data: x\r')),
    how: chunking,
    limit: fc.oneof(fc.integer({ min: 16, max: 2000 }), fc.constant(1 << 20)),
  })
  .map(({ bom, events, big, bad, tail, how, limit }) => {
    const texts = events.map(([fields, end]) => fields.join('') + end);
    if (big !== undefined) texts.splice(big[0] % (texts.length + 1), 0, `data: ${'é'.repeat(big[1])}\n\n`);
    let bytes = Buffer.from((bom ? '\ufeff' : '') + texts.join('') + tail);
    if (bad !== undefined) {
      const at = bad[0] % (bytes.length + 1);
      bytes = Buffer.concat([bytes.subarray(0, at), bad[1], bytes.subarray(at)]);
    }
    return { bytes, how, limit };
  });

/** The longest run of characters between two dispatch points (or from the last one to the end). */
function longestGap(ends: readonly number[], length: number): number {
  let longest = 0;
  let from = 0;
  for (const end of [...ends, length]) {
    longest = Math.max(longest, end - from);
    from = end;
  }
  return longest;
}

async function check({ bytes, how, limit }: Input): Promise<void> {
  const text = bytes.toString('utf8');
  const want = reference(text);
  const bom = text.startsWith('\ufeff') ? 1 : 0;
  const gap = longestGap(want.ends.map((e) => e + bom), text.length);
  for (const chunks of feedings(bytes, how, 40)) {
    const at = chunks.map((c) => c.length).join('+');
    // Characters one chunk may decode to, at most (a partial character carried over adds one).
    const chunkChars = Math.max(0, ...chunks.map((c) => c.length)) + 1;
    const got: Event[] = [];
    const { response, destroyed } = body(chunks);
    let refused: unknown;
    try {
      await readSse(response, { event: (e) => got.push({ id: e.id, event: e.event, data: e.data }) }, limit);
    } catch (error) {
      refused = error;
    }
    if (refused !== undefined) {
      if (!(refused instanceof Error) || refused.message !== `an event larger than ${limit} bytes`) throw refused;
      if (!destroyed()) throw new Error(`chunks ${at}: refused without destroying the response`);
      if (gap + chunkChars <= 2 * limit) throw new Error(`chunks ${at}: refused, though no stretch without an event is longer than ${gap} characters (limit ${limit})`);
    } else if (gap > 2 * limit + chunkChars) {
      throw new Error(`chunks ${at}: ${gap} characters without an event were read whole (limit ${limit})`);
    }
    const expected = refused === undefined ? want.events : want.events.slice(0, got.length);
    if (got.length !== expected.length) throw new Error(`chunks ${at}: ${got.length} events, the reference has ${expected.length}`);
    got.forEach((event, i) => {
      const w = expected[i] as Event;
      if (event.id !== w.id || event.event !== w.event || event.data !== w.data) {
        throw new Error(`chunks ${at}: event ${i} is ${JSON.stringify(event).slice(0, 200)}, the reference says ${JSON.stringify(w).slice(0, 200)}`);
      }
    });
  }
}

/** Through the cursor: message events delivered once, the last event id as the reference keeps it (when an event carried it). */
async function checkCursor({ bytes, how }: Input): Promise<void> {
  const text = bytes.toString('utf8');
  const { events } = reference(text);
  const [chunks = []] = feedings(bytes, how.kind === 'every-offset' ? { kind: 'bytes' } : how);
  const cursor = sseCursor();
  const delivered: string[] = [];
  await readWithCursor(body(chunks).response, cursor, (data) => delivered.push(data), 1 << 20);
  // Each message event with data is delivered, but one whose id came before (a replay) only once;
  // an id moves the cursor (an empty one resets it: nothing to resume from), a replay does not.
  const seen = new Set<string>();
  let expectedId: string | undefined;
  const want = events.filter((e) => {
    if (e.id !== undefined && e.id !== '') {
      if (seen.has(e.id)) return false;
      seen.add(e.id);
    }
    if (e.id !== undefined) expectedId = e.id === '' ? undefined : e.id;
    return e.data !== '' && (e.event === undefined || e.event === 'message');
  });
  if (cursor.lastEventId !== expectedId) throw new Error(`the cursor is at ${JSON.stringify(cursor.lastEventId)}, expected ${JSON.stringify(expectedId)}`);
  if (delivered.length !== want.length || delivered.some((d, i) => d !== want[i]?.data)) {
    throw new Error(`delivered ${JSON.stringify(delivered).slice(0, 200)}, expected ${JSON.stringify(want.map((e) => e.data)).slice(0, 200)}`);
  }
}

export const fuzzTargets = [
  defineFuzzTarget({
    name: 'sse',
    invariant:
      'however an event stream is cut, the reader reports the events the SSE parsing rules give for the whole stream (data, id, event; NUL ids ignored; CR, LF, CRLF lines; a leading BOM dropped), and refuses exactly the streams with a stretch over twice the limit without an event',
    arbitrary: stream,
    quickRuns: 300,
    open: () => ({ check }),
  }),
  defineFuzzTarget({
    name: 'sse-cursor',
    invariant: 'the cursor delivers each message event once (a replayed id is skipped, an empty id resets) and ends at the last event id sent',
    arbitrary: stream,
    quickRuns: 250,
    open: () => ({ check: checkCursor }),
  }),
];

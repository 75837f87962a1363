import assert from 'node:assert/strict';
import { PassThrough, type Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { chain } from '../chain/chain.js';
import { requestScope } from '../core/request-scope.js';
import type { Upstream } from '../core/upstream.js';
import { McpError } from '../errors/mcp-error.js';
import { silentLogger } from '../log/stderr-logger.js';
import type { JsonObject, JsonRpcMessage } from '../message/jsonrpc.js';
import { LineReader } from '../message/line-reader.js';
import { RAW_THRESHOLD_BYTES } from '../message/raw-json.js';
import { Peer } from '../rpc/peer.js';
import { Session } from '../session/session.js';
import { withDeadline } from '../testing/with-deadline.js';
import { StreamTransport } from './stream-transport.js';

/** The lines written to a stream, as bytes (copies), and a wait for the n-th. */
class Lines {
  readonly lines: Buffer[] = [];
  onLine?: (line: Buffer) => void;
  #rest: Buffer[] = [];
  #waiters: { count: number; resolve: () => void }[] = [];

  constructor(stream: Readable) {
    stream.on('data', (chunk: Buffer) => this.#push(chunk));
  }

  #push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      const line = Buffer.concat([...this.#rest, chunk.subarray(start, nl)]);
      this.#rest = [];
      start = nl + 1;
      this.lines.push(line);
      this.onLine?.(line);
    }
    if (start < chunk.length) this.#rest.push(Buffer.from(chunk.subarray(start)));
    this.#waiters = this.#waiters.filter((waiter) => {
      if (this.lines.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Resolves with the lines once `count` have come. */
  async until(count: number, what: string): Promise<Buffer[]> {
    if (this.lines.length < count) {
      await withDeadline(new Promise<void>((resolve) => this.#waiters.push({ count, resolve })), { what: () => `${what}: ${this.lines.length} of ${count} lines` });
    }
    return this.lines;
  }
}

/** A line `prefix + member + suffix` of exactly `size` bytes (newline not counted), padded inside the member by `fill`. */
interface Built {
  readonly line: Buffer;
  readonly member: Buffer;
}

function build(size: number, prefix: string, member: (fill: string) => string, suffix: string): Built {
  const base = Buffer.byteLength(prefix + member('') + suffix);
  assert.ok(size >= base, `size ${size} fits the message (${base} without the filler)`);
  const text = member('a'.repeat(size - base));
  const line = Buffer.from(prefix + text + suffix);
  assert.equal(line.length, size);
  return { line, member: Buffer.from(text) };
}

/**
 * Members written as JSON.stringify writes them (so the eager path, parse then stringify, gives the
 * same bytes), with multi-byte characters and every kind of escape it writes at both ends and in
 * the middle.
 */
const canonical = (fill: string): string =>
  JSON.stringify({
    content: [{ type: 'text', text: `😀é"\\\ud800${fill.slice(0, fill.length >> 1)}"é😀\\${fill.slice(fill.length >> 1)}é\\"` }],
    structuredContent: { 'é😀': '\udc00', 'q"\\': ['\n\t', -1.5e-7, null, true] },
  });

/** Members JSON.stringify would write otherwise: whitespace, `\u` and `\/` escapes, `-0`, `1.0`. */
const uncanonical = (fill: string): string =>
  `{ "content" : [ {"type":"text", "text":"\\u00e9\\"😀\\\\${fill}\\u00E9\\/\\ud83d\\ude00"} ],\r\t"\\u00e9" : [ -0 , 1.0 , 1e2 ] , "x":"😀" }`;

const sizes = [RAW_THRESHOLD_BYTES - 1, RAW_THRESHOLD_BYTES, RAW_THRESHOLD_BYTES + 1, 3500];

/** Results as an upstream sends them (envelope first, or last around a string id with an é). */
function resultLine(size: number, member: (fill: string) => string, memberFirst = false): Built {
  return memberFirst
    ? build(size, '{"result":', member, ' , "jsonrpc" : "2.0" , "id" : "é-1" }')
    : build(size, '{"jsonrpc":"2.0","id":17,"result":', member, '}');
}

function requestLine(size: number, member: (fill: string) => string, id = 'c-é'): Built {
  return build(size, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":`, member, '}');
}

/**
 * What the chain's next hop must write for `source` in a new envelope: the member's very bytes
 * spliced in when the line was at least the threshold, else what the eager path writes
 * (JSON.parse, then JSON.stringify); either way the same value.
 */
function assertForwarded(out: Buffer, source: Built, envelope: (member: unknown) => JsonObject, where: string): void {
  const parsed = JSON.parse(source.line.toString()) as JsonObject;
  const memberValue = 'result' in parsed ? parsed.result : parsed.params;
  const slow = JSON.stringify(envelope(memberValue));
  if (source.line.length >= RAW_THRESHOLD_BYTES) {
    const head = slow.slice(0, slow.indexOf(JSON.stringify(memberValue)));
    assert.equal(out.subarray(0, Buffer.byteLength(head)).toString(), head, `the envelope, ${where}`);
    assert.ok(out.subarray(Buffer.byteLength(head), out.length - 1).equals(source.member), `the member's bytes exactly, ${where}`);
    assert.equal(out.at(-1), 0x7d);
    // The value read on the other side is the value sent (a `-0` stays -0: JSON.stringify would write 0).
    assert.deepStrictEqual(JSON.parse(out.toString()), envelope(memberValue), where);
  } else {
    assert.equal(out.toString(), slow, where);
  }
}

/**
 * One copy of `line` (with its newline) for each offset within it, written as one stream cut at
 * offset k inside copy k: every line spans two chunks (the cut at every place in it, inside every
 * character and escape), and shares them with the lines around it.
 */
function cutAtEveryOffset(line: Buffer): Buffer[] {
  const copy = Buffer.concat([line, Buffer.from('\n')]);
  const stream = Buffer.concat(Array.from({ length: copy.length }, () => copy));
  const chunks: Buffer[] = [];
  let from = 0;
  for (let k = 0; k < copy.length; k++) {
    const cut = k * copy.length + k;
    if (cut > from) chunks.push(stream.subarray(from, cut));
    from = cut;
  }
  chunks.push(stream.subarray(from));
  return chunks;
}

function oneByteAtATime(line: Buffer): Buffer[] {
  return [...Buffer.concat([line, Buffer.from('\n')])].map((byte) => Buffer.from([byte]));
}

/**
 * A stream transport reading `chunks` (each its own read) and another writing what it read in a
 * new envelope, as a chain's two sides do; resolves with the lines written.
 */
async function relay(chunks: Buffer[], count: number, envelope: (message: JsonObject, index: number) => JsonRpcMessage): Promise<Buffer[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  const reader = new StreamTransport(input, new PassThrough());
  const writer = new StreamTransport(new PassThrough(), output);
  const written = new Lines(output);
  let index = 0;
  let reads = 0;
  input.on('data', () => (reads += 1));
  reader.onmessage = (value) => writer.send(envelope(value as JsonObject, index++));
  reader.onmalformed = (error) => assert.fail(`malformed: ${error.message}`);
  await reader.start();
  for (const chunk of chunks) input.write(chunk);
  const lines = await written.until(count, 'the forwarded lines');
  assert.equal(reads, chunks.length, 'each chunk was a read of its own');
  return lines;
}

describe('lazy forwarding over stream transports: output for lines split anywhere', () => {
  const cases: [string, Built][] = [];
  for (const size of sizes) {
    cases.push([`a ${size}-byte result, JSON.stringify's layout`, resultLine(size, canonical)]);
    cases.push([`a ${size}-byte result, another layout`, resultLine(size, uncanonical, true)]);
  }

  for (const [what, source] of cases) {
    test(`${what}, split at every offset and fed one byte at a time: the member's bytes spliced in a new envelope (the eager output below the threshold)`, async () => {
      const envelope = (result: unknown, index: number): JsonObject => ({ jsonrpc: '2.0', id: `out-${index}-é`, result });
      const send = (message: JsonObject, index: number): JsonRpcMessage => envelope(message.result, index) as unknown as JsonRpcMessage;
      const everyOffset = await relay(cutAtEveryOffset(source.line), source.line.length + 1, send);
      everyOffset.forEach((out, k) => assertForwarded(out, source, (result) => envelope(result, k), `cut at ${k}`));
      const bytewise = await relay(oneByteAtATime(source.line), 1, send);
      assertForwarded(bytewise[0] as Buffer, source, (result) => envelope(result, 0), 'one byte at a time');
    });
  }

  for (const size of sizes) {
    test(`a ${size}-byte request in JSON.stringify's layout, split at every offset: byte-identical to the eager path (JSON.parse, then JSON.stringify)`, async () => {
      const source = requestLine(size, canonical);
      const envelope = (params: unknown, index: number): JsonObject => ({ jsonrpc: '2.0', id: index, method: 'tools/call', params });
      const send = (message: JsonObject, index: number): JsonRpcMessage => envelope(message.params, index) as unknown as JsonRpcMessage;
      const lines = await relay(cutAtEveryOffset(source.line), source.line.length + 1, send);
      const params = (JSON.parse(source.line.toString()) as JsonObject).params;
      lines.forEach((out, k) => {
        assert.equal(out.toString(), JSON.stringify(envelope(params, k)), `cut at ${k}`);
        assertForwarded(out, source, (value) => envelope(value, k), `cut at ${k}`);
      });
    });
  }
});

/** The scripted server's answer: a result of `size` bytes that names the request it answers. */
type Answer = (request: JsonObject, count: number) => { line: Buffer; chunks: Buffer[] } | undefined;

/**
 * A real chain (Session, chain, Peer) over streams on both sides: a client writing bytes into the
 * session's stream transport, and an upstream that is a Peer on a stream transport to a scripted
 * server, which writes what `answer` gives (in its chunks).
 */
async function chainOverStreams(answer: Answer) {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const server = new Lines(toServer);
  let calls = 0;
  server.onLine = (line) => {
    const message = JSON.parse(line.toString()) as JsonObject;
    if (message.method === 'initialize') {
      const result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '1' } };
      fromServer.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
    } else if (message.method === 'tools/call') {
      const reply = answer(message, calls++);
      for (const chunk of reply?.chunks ?? []) fromServer.write(chunk);
    }
  };
  const upstream: Upstream = {
    connect: (downstream) => {
      const peer = new Peer(new StreamTransport(fromServer, toServer), {
        request: (message, scope) => downstream.request(message, requestScope(scope.cancel, undefined)),
        notification: (message) => void downstream.notify(message),
        closed: () => undefined,
      }, { log: silentLogger, answerInvalid: false });
      void peer.start();
      return {
        request: (message, scope) => peer.request(message, scope),
        notify: (message) => {
          peer.notify(message);
          return Promise.resolve();
        },
        close: () => peer.close(),
      };
    },
  };
  const clientIn = new PassThrough();
  const clientOut = new PassThrough();
  const session = new Session(new StreamTransport(clientIn, clientOut), chain().to(upstream), { log: silentLogger });
  const client = new Lines(clientOut);
  await session.start();
  clientIn.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
  await client.until(1, 'the answer to initialize');
  clientIn.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  await server.until(2, 'initialize and notifications/initialized upstream');
  // What the server and the client received from now on.
  server.lines.length = 0;
  client.lines.length = 0;
  return { write: (chunk: Buffer) => clientIn.write(chunk), server, client, close: () => session.close() };
}

/** A fixed-width number, so that the size of what carries it does not depend on it. */
const fixed = (n: number): string => String(n).padStart(5, '0');
/** A member that carries `#n#` (fixed width) at the start of its filler. */
const numbered = (n: number, member: (fill: string) => string) => (fill: string): string => member(`#${fixed(n)}#${fill}`);

describe('lazy forwarding through a chain: requests up, results down, each split at every offset', () => {
  for (const size of sizes) {
    test(`${size}-byte requests and ${size}-byte results, each line cut at every offset (and with its neighbours in its chunks): byte-identical to the eager path, every answer routed to its request`, async () => {
      const count = requestLine(size, numbered(0, canonical), `c-${fixed(0)}`).line.length + 1;
      const requests = Array.from({ length: count }, (_, n) => requestLine(size, numbered(n, canonical), `c-${fixed(n)}`));
      const results: Built[] = [];
      const chainSide = await chainOverStreams((request, k) => {
        const n = Number(/#(\d{5})#/u.exec(JSON.stringify(request.params))?.[1]);
        const result = resultLine(size, numbered(n, canonical));
        const line = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":${result.member.toString()}}\n`);
        results[n] = result;
        // The k-th answer is cut at offset k (of its line).
        const cut = k % line.length;
        return { line, chunks: [line.subarray(0, cut), line.subarray(cut)].filter((chunk) => chunk.length > 0) };
      });
      try {
        // The n-th request cut at offset n, sharing its chunks with the requests around it.
        const stream = Buffer.concat(requests.flatMap((request) => [request.line, Buffer.from('\n')]));
        let from = 0;
        for (let n = 0; n < count; n++) {
          const cut = n * count + n;
          if (cut > from) chainSide.write(stream.subarray(from, cut));
          from = cut;
        }
        chainSide.write(stream.subarray(from));
        const upstreamLines = await chainSide.server.until(count, 'the requests forwarded upstream');
        const answers = await chainSide.client.until(count, 'the answers');
        upstreamLines.forEach((line, n) => {
          const sent = JSON.parse(line.toString()) as JsonObject;
          const params = (JSON.parse((requests[n] as Built).member.toString()) as JsonObject);
          assert.equal(line.toString(), JSON.stringify({ jsonrpc: '2.0', id: sent.id, method: 'tools/call', params }), `request ${n}`);
        });
        const ids = new Set<unknown>();
        for (const answer of answers) {
          const message = JSON.parse(answer.toString()) as JsonObject;
          const n = Number(String(message.id).slice(2));
          ids.add(message.id);
          const result = results[n] as Built;
          assert.equal(answer.toString(), JSON.stringify({ jsonrpc: '2.0', id: message.id, result: JSON.parse(result.member.toString()) as unknown }), `answer ${n}`);
          if (size >= RAW_THRESHOLD_BYTES) assert.ok(answer.includes(result.member), `answer ${n} carries the result's bytes`);
        }
        assert.equal(ids.size, count, 'one answer per request');
      } finally {
        await chainSide.close();
      }
    });
  }

  test('a request and a result in another layout, fed one byte at a time each way: the members go through as their bytes', async () => {
    for (const size of sizes) {
      const request = build(size, '{"params":', uncanonical, ',"method":"tools/call","id":"c-1","jsonrpc":"2.0"}');
      const result = resultLine(size, uncanonical);
      const chainSide = await chainOverStreams((message) => {
        const line = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${result.member.toString()}}\n`);
        return { line, chunks: oneByteAtATime(line.subarray(0, -1)) };
      });
      try {
        for (const chunk of oneByteAtATime(request.line)) chainSide.write(chunk);
        const [up] = await chainSide.server.until(1, 'the request forwarded upstream');
        const [down] = await chainSide.client.until(1, 'the answer');
        const upId = (JSON.parse((up as Buffer).toString()) as JsonObject).id;
        assertForwarded(up as Buffer, request, (params) => ({ jsonrpc: '2.0', id: upId, method: 'tools/call', params }), `request of ${size} bytes`);
        const sent = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(upId)},"result":${result.member.toString()}}`);
        assertForwarded(down as Buffer, { line: sent, member: result.member }, (value) => ({ jsonrpc: '2.0', id: 'c-1', result: value }), `result of ${size} bytes`);
      } finally {
        await chainSide.close();
      }
    }
  });
});

/** 50 KiB lines the eager path refuses, each followed by a valid message. */
const fifty = 'p'.repeat(50 * 1024);
const valid = `{"jsonrpc":"2.0","id":"next","result":{"text":"${'é😀'.repeat(700)}"}}`;
const malformed: [string, Buffer][] = [
  ['a stray control byte in a string', Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}\u0001${fifty.slice(9)}"}}`)],
  ['a string cut short', Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}`)],
  ['a trailing comma', Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}",}}`)],
  ['a trailing comma at the top', Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}"},}`)],
  ['invalid UTF-8 (0xff)', Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}`), Buffer.from([0xff]), Buffer.from('"}}')])],
  ['invalid UTF-8 (an encoded surrogate)', Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}`), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')])],
  ['invalid UTF-8 (an overlong slash)', Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}`), Buffer.from([0xc0, 0xaf]), Buffer.from('"}}')])],
  ['a character cut at the end of the line', Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}"}}`), Buffer.from([0xf0, 0x9f, 0x98])])],
  ['a BOM before malformed JSON', Buffer.from(`\ufeff{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}",}}`)],
  ['two values on one line', Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}"}} {"jsonrpc":"2.0","id":2,"result":{}}`)],
  ['two values without a space', Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}"}}{}`)],
  ['a bad escape', Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}\\x"}}`)],
  ['a short \\u escape', Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}\\u12"}}`)],
  ['a number with a leading zero', Buffer.from(`{"jsonrpc":"2.0","id":01,"result":{"text":"${fifty}"}}`)],
  ['a vertical tab between tokens', Buffer.from(`{"jsonrpc":"2.0","id":1,\u000b"result":{"text":"${fifty}"}}`)],
  ['a non-breaking space before the object', Buffer.from(`\u00a0{"jsonrpc":"2.0","id":1,"result":{"text":"${fifty}"}}`)],
];

/** What a LineReader reports for `bytes` (whole, or split at `cut`). */
function readAll(bytes: Buffer, lazyFrom: number, cut?: number) {
  const events: unknown[] = [];
  const reader = new LineReader({
    onValue: (value) => events.push(['value', value]),
    onMalformed: (error, line) => events.push(['malformed', error.code, error.message, line]),
  }, 1 << 20, lazyFrom);
  if (cut === undefined) reader.push(bytes);
  else {
    reader.push(bytes.subarray(0, cut));
    reader.push(bytes.subarray(cut));
  }
  return events;
}

describe('lazy forwarding: malformed mid-size input gets the same error as the eager path, and the next message still gets through', () => {
  for (const [what, line] of malformed) {
    test(`${what}: the same -32700 (code, message, line) from the lazy and the eager reader, then the next message; through the chain, the same error response`, async () => {
      const stream = Buffer.concat([line, Buffer.from('\n'), Buffer.from(valid), Buffer.from('\n')]);
      const eagerEvents = readAll(stream, Number.POSITIVE_INFINITY);
      assert.equal(eagerEvents.length, 2);
      assert.equal((eagerEvents[0] as unknown[])[0], 'malformed');
      for (const cut of [undefined, 1, 2, 3, line.length >> 1, line.length - 3, line.length - 1, line.length, line.length + 1, line.length + 5]) {
        assert.deepStrictEqual(readAll(stream, RAW_THRESHOLD_BYTES, cut), eagerEvents, `cut at ${String(cut)}`);
      }
      // Through a chain: the client is answered with the error, then its next request is answered.
      const chainSide = await chainOverStreams((request) => {
        const reply = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{"text":"${'ü'.repeat(2000)}"}}\n`);
        return { line: reply, chunks: [reply] };
      });
      try {
        chainSide.write(Buffer.concat([line, Buffer.from('\n')]));
        chainSide.write(Buffer.from(`{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"x","arguments":{"t":"${'ö'.repeat(1500)}"}}}\n`));
        const [error, answer] = await chainSide.client.until(2, 'the error and the answer');
        const [, code, message] = eagerEvents[0] as [string, number, string];
        assert.equal(error?.toString(), JSON.stringify({ jsonrpc: '2.0', id: null, error: new McpError(code, message).toJSON() }));
        assert.equal((JSON.parse(answer?.toString() ?? '') as JsonObject).id, 'after');
        assert.equal(chainSide.server.lines.length, 1, 'only the valid request went upstream');
      } finally {
        await chainSide.close();
      }
    });
  }

  test('a malformed mid-size line from the upstream is dropped (never reaches the client), and the answer after it is delivered', async () => {
    for (const [what, line] of malformed) {
      const chainSide = await chainOverStreams((request) => {
        const reply = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{"text":"${'ü'.repeat(2000)}"}}\n`);
        // A malformed line claiming the same id comes first.
        const bad = Buffer.from(line.toString('latin1').replace('"id":1,', `"id":${JSON.stringify(request.id)},`), 'latin1');
        return { line: reply, chunks: [bad, Buffer.from('\n'), reply] };
      });
      try {
        chainSide.write(Buffer.from(`{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"x"}}\n`));
        const [answer] = await chainSide.client.until(1, `the answer after ${what}`);
        assert.equal(answer?.toString(), JSON.stringify({ jsonrpc: '2.0', id: 'q', result: { text: 'ü'.repeat(2000) } }), what);
      } finally {
        await chainSide.close();
      }
    }
  });
});

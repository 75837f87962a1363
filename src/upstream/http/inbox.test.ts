import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, JsonRpcId, JsonRpcMessage } from '../../message/jsonrpc.js';
import { encodeMessage, RAW_THRESHOLD_BYTES } from '../../message/raw-json.js';
import type { Transport } from '../../transport/transport.js';
import { Inbox } from './inbox.js';
import { readResponseBytes } from './read-response-text.js';
import { readWithCursor, sseCursor } from './sse-cursor.js';

/** What an inbox handed on: messages (with the request they relate to) and parse errors. */
interface Received {
  readonly messages: { value: unknown; relatedTo: JsonRpcId | undefined }[];
  readonly malformed: { code: number; message: string; line: string | undefined }[];
}

function inbox(): { inbox: Inbox; received: Received } {
  const received: Received = { messages: [], malformed: [] };
  const transport: Transport = {
    start: () => Promise.resolve(),
    send: () => undefined,
    close: () => Promise.resolve(),
    onmessage: (value, relatedTo) => received.messages.push({ value, relatedTo }),
    onmalformed: (error, line) => received.malformed.push({ code: error.code, message: error.message, line }),
  };
  return { inbox: new Inbox(transport), received };
}

/**
 * A response body arriving in exactly these chunks: as bytes, or decoded as `setEncoding('utf8')`
 * does (for SSE) once asked to.
 */
function response(...chunks: Buffer[]): IncomingMessage {
  let decoder: StringDecoder | undefined;
  const fake = {
    setEncoding(encoding: BufferEncoding) {
      decoder = new StringDecoder(encoding);
      return fake;
    },
    destroy: () => fake,
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) {
        if (decoder === undefined) yield chunk;
        else {
          const text = decoder.write(chunk);
          if (text !== '') yield text;
        }
      }
    },
  };
  return fake as unknown as IncomingMessage;
}

function splitAt(bytes: Buffer, at: number): Buffer[] {
  return [bytes.subarray(0, at), bytes.subarray(at)];
}

/** Multi-byte characters (2, 3 and 4 bytes) and every kind of escape, raw and escaped alike. */
const TRICKY = 'é ü 中文 😀 \\u00e9 \\ud83d\\ude00 \\"quoted\\" \\\\ \\/ \\b\\f\\n\\r\\t';

/** A large tools/list result as a server might write it: whitespace between tokens. */
function resultText(size = RAW_THRESHOLD_BYTES): string {
  const tools: string[] = [];
  for (let i = 0; tools.join('').length < size; i++) {
    tools.push(`{"name":"tool_${i}", "description": "${TRICKY}", "inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}`);
  }
  return `{ "tools" : [${tools.join(', ')}], "nextCursor": "c-1" }`;
}

function answerText(result: string, id: JsonRpcId = 7): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
}

/** The inbox before it read large messages lazily: JSON.parse of the decoded text. */
function reference(text: string): { messages: unknown[] } | { malformed: { code: number; message: string; line: string } } {
  try {
    const value = JSON.parse(text) as unknown;
    return { messages: (Array.isArray(value) ? value : [value]).filter((item: unknown) => typeof item === 'object' && item !== null && !Array.isArray(item)) };
  } catch (error) {
    return { malformed: { code: ErrorCode.ParseError, message: `Parse error: ${(error as Error).message}`, line: text.slice(0, 200) } };
  }
}

function outcome(received: Received): { messages: unknown[] } | { malformed: { code: number; message: string; line: string | undefined } } {
  const [malformed] = received.malformed;
  return malformed === undefined ? { messages: received.messages.map(({ value }) => value) } : { malformed };
}

describe('Inbox: large messages are read lazily, and give what JSON.parse gives', () => {
  test('a large JSON body forwarded unchanged goes out as its own result bytes, however it was split', async () => {
    const result = resultText();
    const body = Buffer.from(answerText(result));
    const expected = JSON.parse(body.toString('utf8')) as unknown;
    for (let at = 0; at <= body.length; at++) {
      const { inbox: box, received } = inbox();
      const bytes = await readResponseBytes(response(...splitAt(body, at)), 1 << 20);
      assert.ok(bytes !== undefined);
      const [message] = box.receiveBytes(bytes);
      assert.equal(received.messages.length, 1);
      assert.equal(received.messages[0]?.value, message);
      const encoded = encodeMessage(message as unknown as JsonRpcMessage);
      assert.ok(typeof encoded !== 'string', `split at ${at}: spliced`);
      assert.ok(encoded.bytes.equals(Buffer.from(result)), `split at ${at}: the result bytes as they came`);
      assert.equal(encoded.head + encoded.bytes.toString('utf8') + encoded.tail, answerText(result), `split at ${at}: the whole answer`);
      if (at % 257 === 0) assert.deepEqual(message, expected, `split at ${at}`);
    }
  });

  test('large SSE data (text) forwarded unchanged goes out as its UTF-8 bytes, however the stream was split', async () => {
    const result = resultText();
    const stream = Buffer.from(`id: e-1\ndata: ${answerText(result, 'r-9')}\n\n`);
    for (let at = 0; at <= stream.length; at++) {
      const { inbox: box, received } = inbox();
      await readWithCursor(response(...splitAt(stream, at)), sseCursor(), (data) => box.receive(data, 'r-9'), 1 << 20);
      assert.equal(received.messages.length, 1, `split at ${at}`);
      const [{ value, relatedTo } = { value: undefined, relatedTo: undefined }] = received.messages;
      assert.equal(relatedTo, 'r-9');
      const encoded = encodeMessage(value as JsonRpcMessage);
      assert.ok(typeof encoded !== 'string', `split at ${at}: spliced`);
      assert.ok(encoded.bytes.equals(Buffer.from(result)), `split at ${at}: the result bytes`);
      if (at % 257 === 0) assert.deepEqual(value, JSON.parse(answerText(result, 'r-9')), `split at ${at}`);
    }
  });

  test('a middleware that reads the result sees exactly what JSON.parse gives; one that changes it gets its change sent', () => {
    const text = answerText(resultText());
    const expected = JSON.parse(text) as { result: { tools: JsonObject[]; nextCursor?: string } };
    for (const receive of [(box: Inbox) => box.receive(text), (box: Inbox) => box.receiveBytes(Buffer.from(text))]) {
      const [message] = receive(inbox().inbox) as unknown as { result: { tools: JsonObject[]; nextCursor?: string } }[];
      assert.ok(message !== undefined);
      assert.equal(Object.getPrototypeOf(message.result), Object.prototype);
      assert.deepEqual(Object.keys(message.result), ['tools', 'nextCursor']);
      assert.deepEqual(message.result.tools, expected.result.tools);
      assert.deepEqual(message, expected);
      assert.equal(JSON.stringify(message), JSON.stringify(expected));

      message.result.tools = message.result.tools.filter((tool) => tool.name !== 'tool_0');
      delete message.result.nextCursor;
      const changed = { ...expected, result: { tools: expected.result.tools.filter((tool) => tool.name !== 'tool_0') } };
      assert.equal(encodeMessage(message as unknown as JsonRpcMessage), JSON.stringify(changed));
    }
  });

  test('__proto__ keys stay own members, and pollute nothing', () => {
    const text = `{"jsonrpc":"2.0","__proto__":{"top":1},"id":1,"result":{"__proto__":{"polluted":true},"content":[{"type":"text","text":"${'x'.repeat(RAW_THRESHOLD_BYTES)}","__proto__":{"deep":1}}]}}`;
    for (const receive of [(box: Inbox) => box.receive(text), (box: Inbox) => box.receiveBytes(Buffer.from(text))]) {
      const [message] = receive(inbox().inbox) as unknown as { result: { content: object[] } }[];
      assert.ok(message !== undefined);
      assert.deepEqual(message, JSON.parse(text));
      assert.ok(Object.hasOwn(message, '__proto__'));
      assert.ok(Object.hasOwn(message.result, '__proto__'));
      assert.ok(Object.hasOwn(message.result.content[0] ?? {}, '__proto__'));
      assert.equal(Object.getPrototypeOf(message.result), Object.prototype);
      assert.equal(({} as { polluted?: unknown }).polluted, undefined);
    }
  });

  test('large texts that are not one JSON object are read as before: batches, lone values, padding', () => {
    const answer = answerText(resultText());
    for (const text of [`[${answer}, 1, ${answerText('{"a":1}', 8)}]`, ` \r\n\t${answer} \n`, JSON.stringify('x'.repeat(RAW_THRESHOLD_BYTES))]) {
      for (const receive of [(box: Inbox) => box.receive(text), (box: Inbox) => box.receiveBytes(Buffer.from(text))]) {
        const { inbox: box, received } = inbox();
        receive(box);
        assert.deepEqual(outcome(received), reference(text), text.slice(0, 40));
      }
    }
  });

  test('a JSON body that is not UTF-8 is decoded as before (replacement characters), not refused', () => {
    const text = answerText(resultText());
    const body = Buffer.concat([Buffer.from(text.slice(0, 120)), Buffer.from([0xff, 0xed, 0xa0, 0x80]), Buffer.from(text.slice(120))]);
    const { inbox: box, received } = inbox();
    box.receiveBytes(body);
    assert.deepEqual(outcome(received), reference(body.toString('utf8')));
  });

  test('malformed large messages get the same parse error as before, and as the same fault in a small one', () => {
    const good = answerText(resultText());
    const faults: [string, (text: string) => string][] = [
      ['truncated', (t) => t.slice(0, -1)],
      ['trailing garbage', (t) => `${t}x`],
      ['two values', (t) => t + t],
      ['a trailing comma', (t) => t.replace('"required":["q"]', '"required":["q"],')],
      ['a raw control character in a string', (t) => t.replace('tool_0', 'tool\u0001_0')],
      ['an unknown escape', (t) => t.replace('tool_0', 'tool\\x_0')],
      ['a short \\u escape', (t) => t.replace('tool_0', 'tool\\u12_0')],
      ['a leading zero', (t) => t.replace('"id":7', '"id":07')],
      ['NaN', (t) => t.replace('"id":7', '"id":NaN')],
      ['single quotes', (t) => t.replace('"tool_0"', "'tool_0'")],
      ['an unquoted key', (t) => t.replace('"nextCursor"', 'nextCursor')],
      ['an unterminated string', (t) => t.replace(/\}\}$/u, ', "tail": "open}}')],
      ['a byte order mark', (t) => `\ufeff${t}`],
    ];
    const small = answerText('{ "tools" : [{"name":"tool_0", "inputSchema":{"type":"object","required":["q"]}}], "nextCursor": "c-1" }');
    for (const [fault, make] of faults) {
      const large = make(good);
      assert.ok(large.length >= RAW_THRESHOLD_BYTES);
      const before = reference(large);
      assert.ok('malformed' in before, `${fault}: malformed`);
      for (const receive of [(box: Inbox) => box.receive(large), (box: Inbox) => box.receiveBytes(Buffer.from(large))]) {
        const { inbox: box, received } = inbox();
        assert.deepEqual(receive(box), []);
        assert.deepEqual(outcome(received), before, fault);
      }
      // The same fault in a small message (below the lazy path) is refused the same way.
      const tiny = make(small);
      assert.ok(tiny.length < RAW_THRESHOLD_BYTES);
      const { inbox: box, received } = inbox();
      box.receive(tiny);
      assert.deepEqual(outcome(received), reference(tiny), `${fault}, small`);
      assert.ok(received.malformed.length === 1);
    }
  });

  test('a large answer to the transport\'s own request is kept by the inbox, and resolves it', async () => {
    const { inbox: box, received } = inbox();
    const sent: JsonRpcId[] = [];
    const pending = box.request({ method: 'initialize', params: {} }, (request) => sent.push(request.id), 10_000);
    const [id] = sent;
    assert.ok(id !== undefined);
    const result = resultText();
    box.receiveBytes(Buffer.from(answerText(result, id)));
    assert.deepEqual(await pending, JSON.parse(result));
    assert.equal(received.messages.length, 0);
  });

  test('a large error answer to the transport\'s own request rejects it with its code and message', async () => {
    const { inbox: box } = inbox();
    const sent: JsonRpcId[] = [];
    const pending = box.request({ method: 'initialize', params: {} }, (request) => sent.push(request.id), 10_000);
    const data = 'é'.repeat(RAW_THRESHOLD_BYTES);
    box.receive(JSON.stringify({ jsonrpc: '2.0', id: sent[0], error: { code: -32001, message: 'no', data } }));
    await assert.rejects(pending, (error: unknown) => error instanceof McpError && error.code === -32001 && error.message === 'no');
  });
});

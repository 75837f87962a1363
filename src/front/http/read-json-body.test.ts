import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../errors/error-code.js';
import { HttpError } from '../../errors/http-error.js';
import type { JsonObject, JsonRpcMessage } from '../../message/jsonrpc.js';
import { encodeMessage, RAW_THRESHOLD_BYTES, serializeMessage } from '../../message/raw-json.js';
import { readJsonBody } from './read-json-body.js';

/** A request body arriving in exactly these chunks, with these headers. */
function request(chunks: readonly Buffer[], headers: Record<string, string> = {}): IncomingMessage {
  return Object.assign(Readable.from(chunks, { objectMode: false }), { headers }) as unknown as IncomingMessage;
}

/** The body split in two at byte `at` (in the middle of a character for some offsets). */
function splitAt(body: Buffer, at: number): Buffer[] {
  return [body.subarray(0, at), body.subarray(at)];
}

/** Multi-byte characters (2, 3 and 4 bytes) and every kind of escape, raw and escaped alike. */
const TRICKY = 'é ü 中文 😀 \\u00e9 \\ud83d\\ude00 \\"quoted\\" \\\\ \\/ \\b\\f\\n\\r\\t';

/** The `params` of a large tools/call, written as a client might: whitespace between tokens. */
function paramsText(size = RAW_THRESHOLD_BYTES): string {
  const lines: string[] = [];
  for (let i = 0; lines.join('').length < size; i++) lines.push(`"line ${i}: ${TRICKY}"`);
  return `{ "name" : "write_file", "arguments": {"path":"/tmp/é.txt", "lines": [${lines.join(', ')}], "n": -1.5e3, "ok": true, "none": null } }`;
}

function callText(params: string): string {
  return `{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":${params}}`;
}

/** What the front did before bodies were read lazily: decode, JSON.parse; the same refusals. */
function reference(body: Buffer): { value: unknown } | { status: number; code: number; message: string } {
  if (!isUtf8(body)) return { status: 400, code: ErrorCode.ParseError, message: 'Parse error: the body is not valid UTF-8' };
  try {
    return { value: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    return { status: 400, code: ErrorCode.ParseError, message: 'Parse error: the body is not valid JSON' };
  }
}

async function outcome(chunks: readonly Buffer[], maxBytes = 1 << 20): Promise<{ value: unknown } | { status: number; code: number; message: string }> {
  try {
    return { value: await readJsonBody(request(chunks), maxBytes) };
  } catch (error) {
    assert.ok(error instanceof HttpError, String(error));
    return { status: error.status, code: error.code, message: error.message };
  }
}

describe('readJsonBody: a large body is read lazily, and gives what JSON.parse gives', () => {
  test('a large request forwarded unchanged goes out as its own params bytes, however the body was split', async () => {
    const params = paramsText();
    const body = Buffer.from(callText(params));
    assert.ok(body.length >= RAW_THRESHOLD_BYTES);
    const expected = JSON.parse(body.toString('utf8')) as unknown;
    for (let at = 0; at <= body.length; at++) {
      const value = await readJsonBody(request(splitAt(body, at)), 1 << 20);
      const encoded = encodeMessage(value as JsonRpcMessage);
      assert.ok(typeof encoded !== 'string', `split at ${at}: spliced`);
      assert.ok(encoded.bytes.equals(Buffer.from(params)), `split at ${at}: the params bytes as they came`);
      assert.equal(encoded.head + encoded.bytes.toString('utf8') + encoded.tail, callText(params), `split at ${at}: the whole request`);
      if (at % 257 === 0) assert.deepEqual(value, expected, `split at ${at}`);
    }
  });

  test('a middleware that reads the request sees exactly what JSON.parse gives', async () => {
    const body = Buffer.from(callText(paramsText()));
    const expected = JSON.parse(body.toString('utf8')) as { params: { arguments: JsonObject } };
    const value = (await readJsonBody(request([body]), 1 << 20)) as { params: { name: string; arguments: JsonObject } };
    assert.equal(Object.getPrototypeOf(value.params), Object.prototype);
    assert.deepEqual(Object.keys(value.params), Object.keys(expected.params));
    assert.equal(value.params.name, 'write_file');
    assert.deepEqual(value.params.arguments, expected.params.arguments);
    assert.deepEqual(value, expected);
    assert.equal(JSON.stringify(value), JSON.stringify(expected));
    // Read, not changed: still its own bytes.
    assert.equal(typeof encodeMessage(value as unknown as JsonRpcMessage), 'object');
  });

  test('a middleware that replaces a member (or the params) gets its change sent, not the old bytes', async () => {
    const body = Buffer.from(callText(paramsText()));
    const parse = (): { params: JsonObject } => JSON.parse(body.toString('utf8')) as { params: JsonObject };
    const read = async (): Promise<{ params: JsonObject }> => (await readJsonBody(request([body]), 1 << 20)) as { params: JsonObject };

    const assigned = await read();
    assigned.params.arguments = { path: '/elsewhere' };
    const expectAssigned = parse();
    expectAssigned.params.arguments = { path: '/elsewhere' };
    assert.equal(encodeMessage(assigned as unknown as JsonRpcMessage), JSON.stringify(expectAssigned));

    const replaced = await read();
    const message = { ...replaced, params: { ...replaced.params, name: 'read_file' } };
    const expectReplaced = parse();
    expectReplaced.params.name = 'read_file';
    assert.equal(serializeMessage(message as unknown as JsonRpcMessage), JSON.stringify(expectReplaced));

    const added = await read();
    added.params._meta = { progressToken: 1 };
    const expectAdded = parse();
    expectAdded.params._meta = { progressToken: 1 };
    assert.equal(encodeMessage(added as unknown as JsonRpcMessage), JSON.stringify(expectAdded));

    const deleted = await read();
    delete deleted.params.arguments;
    const expectDeleted = parse();
    delete expectDeleted.params.arguments;
    assert.equal(encodeMessage(deleted as unknown as JsonRpcMessage), JSON.stringify(expectDeleted));
  });

  test('__proto__ keys stay own members, at every level, and pollute nothing', async () => {
    const pad = 'x'.repeat(RAW_THRESHOLD_BYTES);
    const body = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"tools/call","__proto__":{"top":1},"params":{"__proto__":{"polluted":true},"name":"x","arguments":{"__proto__":{"deep":1},"pad":"${pad}"}}}`);
    const expected = JSON.parse(body.toString('utf8')) as unknown;
    const value = (await readJsonBody(request([body]), 1 << 20)) as { params: { arguments: object } };
    assert.deepEqual(value, expected);
    assert.ok(Object.hasOwn(value, '__proto__'));
    assert.ok(Object.hasOwn(value.params, '__proto__'));
    assert.ok(Object.hasOwn(value.params.arguments, '__proto__'));
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.equal(Object.getPrototypeOf(value.params), Object.prototype);
    assert.equal(({} as { polluted?: unknown }).polluted, undefined);
    assert.equal(JSON.stringify(value), JSON.stringify(expected));
  });

  test('duplicate keys: the last wins, as with JSON.parse, and the last one\'s bytes go out', async () => {
    const first = `{"name":"first","pad":"${'a'.repeat(RAW_THRESHOLD_BYTES)}"}`;
    const last = `{"name":"last","name":"really last","pad":"${'b'.repeat(RAW_THRESHOLD_BYTES)}"}`;
    const body = Buffer.from(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":${first},"params":${last}}`);
    const value = await readJsonBody(request([body]), 1 << 20);
    assert.deepEqual(value, JSON.parse(body.toString('utf8')));
    const encoded = encodeMessage(value as JsonRpcMessage);
    assert.ok(typeof encoded !== 'string');
    assert.equal(encoded.bytes.toString('utf8'), last);
  });

  test('large bodies that are not one JSON object are read as before: batches and lone values', async () => {
    const message = callText(paramsText());
    for (const text of [`[${message},${message}]`, ` \r\n\t${message} \n`, JSON.stringify('x'.repeat(RAW_THRESHOLD_BYTES)), `[${'1,'.repeat(RAW_THRESHOLD_BYTES)}2]`]) {
      const body = Buffer.from(text);
      assert.deepEqual(await outcome([body]), reference(body), text.slice(0, 40));
    }
  });

  test('malformed large bodies get the same refusal as before, and as the same fault in a small body', async () => {
    const good = callText(paramsText());
    const faults: [string, (text: string) => Buffer][] = [
      ['truncated', (t) => Buffer.from(t.slice(0, -1))],
      ['trailing garbage', (t) => Buffer.from(`${t}x`)],
      ['two values', (t) => Buffer.from(t + t)],
      ['a trailing comma', (t) => Buffer.from(t.replace('"none": null', '"none": null,'))],
      ['a raw control character in a string', (t) => Buffer.from(t.replace('write_file', 'write\u0001file'))],
      ['a raw tab in a string', (t) => Buffer.from(t.replace('write_file', 'write\tfile'))],
      ['an unknown escape', (t) => Buffer.from(t.replace('write_file', 'write\\xfile'))],
      ['a short \\u escape', (t) => Buffer.from(t.replace('write_file', 'write\\u12file'))],
      ['a leading zero', (t) => Buffer.from(t.replace('-1.5e3', '01'))],
      ['a bare exponent', (t) => Buffer.from(t.replace('-1.5e3', '1e'))],
      ['NaN', (t) => Buffer.from(t.replace('-1.5e3', 'NaN'))],
      ['single quotes', (t) => Buffer.from(t.replace('"write_file"', "'write_file'"))],
      ['an unquoted key', (t) => Buffer.from(t.replace('"name"', 'name'))],
      ['an unterminated string', (t) => Buffer.from(t.replace(/\}\}$/u, ', "tail": "open}}'))],
      ['a missing colon', (t) => Buffer.from(t.replace('"name" :', '"name"'))],
      ['a byte order mark', (t) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t)])],
      ['a NUL byte between tokens', (t) => Buffer.from(t.replace('"ok": true', '"ok":\u0000true'))],
      ['invalid UTF-8 in a string', (t) => Buffer.concat([Buffer.from(t.slice(0, 80)), Buffer.from([0xff]), Buffer.from(t.slice(80))])],
      ['an encoded surrogate', (t) => Buffer.concat([Buffer.from(t.slice(0, 80)), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(t.slice(80))])],
      ['a truncated character at the end', (t) => Buffer.concat([Buffer.from(t), Buffer.from([0xe4, 0xb8])])],
    ];
    const small = '{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{ "name" : "write_file", "arguments": {"n": -1.5e3, "ok": true, "none": null } }}';
    for (const [fault, make] of faults) {
      const large = make(good);
      assert.ok(large.length >= RAW_THRESHOLD_BYTES);
      const before = reference(large);
      assert.ok(!('value' in before), `${fault}: malformed`);
      assert.deepEqual(await outcome([large]), before, fault);
      assert.deepEqual(await outcome(splitAt(large, large.length >> 1)), before, `${fault}, split`);
      // The same fault in a small body (below the lazy path) is refused the same way.
      const tiny = make(small);
      assert.ok(tiny.length < RAW_THRESHOLD_BYTES);
      assert.deepEqual(await outcome([tiny]), before, `${fault}, small`);
    }
  });

  test('the size limit still holds for large bodies: 413, announced or not', async () => {
    const body = Buffer.from(callText(paramsText()));
    const refused = { status: 413, code: ErrorCode.ConnectionClosed, message: `Payload Too Large: the body exceeds ${body.length - 1} bytes` };
    assert.deepEqual(await outcome(splitAt(body, 100), body.length - 1), refused);
    await assert.rejects(readJsonBody(request([body], { 'content-length': String(body.length) }), body.length - 1), (error: unknown) => error instanceof HttpError && error.status === 413);
    assert.deepEqual(await outcome([body], body.length), { value: JSON.parse(body.toString('utf8')) as unknown });
  });
});

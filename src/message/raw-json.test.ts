import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { McpError } from '../errors/mcp-error.js';
import type { JsonObject, JsonRpcMessage } from './jsonrpc.js';
import { encodeMessage, rawTextOf, rememberRawMember, serializeMessage, type SplicedMessage } from './raw-json.js';

/** What `encodeMessage` splices: head + bytes + tail, or undefined when it serialized a string. */
function splicedMessage(message: JsonRpcMessage): SplicedMessage | undefined {
  const encoded = encodeMessage(message);
  return typeof encoded === 'string' ? undefined : encoded;
}

function parsed(line: string): JsonObject {
  const message = JSON.parse(line) as JsonObject;
  rememberRawMember(message, line);
  return message;
}

describe('raw JSON forwarding', () => {
  const body = '{"content":[{"type":"text","text":"a \\"quoted\\" \\u00e9 value"}],  "isError" : false}';

  test('remembers the exact text of a result, whether it comes first or last', () => {
    for (const line of [
      `{"jsonrpc":"2.0","id":7,"result":${body}}`,
      `{"id":7,"jsonrpc":"2.0","result":${body}}`,
      `{"result":${body},"jsonrpc":"2.0","id":7}`,
    ]) {
      const message = parsed(line);
      assert.equal(rawTextOf(message.result as object), body, line);
    }
  });

  test('remembers the params of requests and notifications', () => {
    const params = '{"name":"echo","arguments":{"text":"x"}}';
    assert.equal(rawTextOf(parsed(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":${params}}`).params as object), params);
    assert.equal(rawTextOf(parsed(`{"jsonrpc":"2.0","method":"notifications/message","params":${params}}`).params as object), params);
  });

  test('forgets nothing it cannot prove: other layouts are left to JSON.stringify', () => {
    assert.equal(rawTextOf(parsed(`{ "jsonrpc": "2.0", "id": 7, "result": ${body} }`).result as object), undefined);
    assert.equal(rawTextOf(parsed(`{"jsonrpc":"2.0","result":${body},"id":7}`).result as object), undefined);
  });

  test('remembers nothing when the member is written twice or another member follows it (the text would carry what JSON.parse dropped)', () => {
    for (const line of [
      `{"jsonrpc":"2.0","id":7,"result":{"hidden":1},"result":${body}}`,
      `{"result":{"hidden":1},"result":${body},"jsonrpc":"2.0","id":7}`,
      `{"jsonrpc":"2.0","id":7,"result":${body},"id":7}`,
      `{"jsonrpc":"2.0","id":7,"result":${body} ,\n "id" : 7}`,
      `{"jsonrpc":"2.0","id":7,"result":${body},"\u0069d":7}`,
      `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"hidden"},"params":{"name":"shown"}}`,
    ]) {
      const message = parsed(line);
      const member = (message.result ?? message.params) as object;
      assert.equal(rawTextOf(member), undefined, line);
      assert.deepEqual(JSON.parse(serializeMessage(message as unknown as JsonRpcMessage)), message, line);
    }
    // A nested key of the same name, or a \u escape, in a single member is still remembered.
    const nested = '{"result":{"id":"\\u00e9"},"content":[]}';
    assert.equal(rawTextOf(parsed(`{"jsonrpc":"2.0","id":7,"result":${nested}}`).result as object), nested);
  });

  test('a forwarded result keeps its text under the new id, and means the same', () => {
    const upstream = parsed(`{"jsonrpc":"2.0","id":7,"result":${body}}`);
    const out: JsonRpcMessage = { jsonrpc: '2.0', id: 'client-id', result: upstream.result as JsonObject };
    const line = serializeMessage(out);
    assert.equal(line, `{"jsonrpc":"2.0","id":"client-id","result":${body}}`);
    assert.deepEqual(JSON.parse(line), out);
  });

  test('a replaced object (a middleware returned a new one) is serialized afresh', () => {
    const upstream = parsed(`{"jsonrpc":"2.0","id":7,"result":${body}}`);
    const changed = { ...(upstream.result as JsonObject), isError: true };
    assert.deepEqual(JSON.parse(serializeMessage({ jsonrpc: '2.0', id: 1, result: changed })), { jsonrpc: '2.0', id: 1, result: changed });
  });

  test('given the line\'s bytes, a forwarded member goes out as those bytes, spliced between a new head and tail', () => {
    for (const [line, id] of [
      [`{"jsonrpc":"2.0","id":"é-7","result":${body}}`, 'ü'],
      [`{"result":${body},"jsonrpc":"2.0","id":"é-7"}`, 3],
    ] as const) {
      const bytes = Buffer.from(line);
      const message = JSON.parse(line) as JsonObject;
      rememberRawMember(message, line, bytes);
      const out: JsonRpcMessage = { jsonrpc: '2.0', id, result: message.result as JsonObject };
      const spliced = splicedMessage(out);
      assert.ok(spliced, line);
      assert.equal(spliced.bytes.toString('utf8'), body);
      assert.equal(spliced.head + spliced.bytes.toString('utf8') + spliced.tail, serializeMessage(out));
    }
  });

  test('a member that is most of what was read is a view of it; a small one in a big chunk is copied, so it does not keep the chunk alive', () => {
    const large = `{"content":[{"type":"text","text":"${'x'.repeat(64 * 1024)}"}]}`;
    const alone = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${large}}`);
    const message = JSON.parse(alone.toString()) as JsonObject;
    rememberRawMember(message, alone.toString(), alone);
    assert.equal(splicedMessage({ jsonrpc: '2.0', id: 2, result: message.result as JsonObject })?.bytes.buffer, alone.buffer, 'a view, not a copy');

    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const line = `{"jsonrpc":"2.0","id":1,"result":${body}}`;
    chunk.write(line);
    const view = chunk.subarray(0, Buffer.byteLength(line));
    const small = JSON.parse(line) as JsonObject;
    rememberRawMember(small, line, view);
    const spliced = splicedMessage({ jsonrpc: '2.0', id: 2, result: small.result as JsonObject });
    assert.notEqual(spliced?.bytes.buffer, chunk.buffer, 'a copy');
    assert.equal(spliced?.bytes.toString('utf8'), body);
  });

  test('without the bytes, or for a replaced object, nothing is spliced', () => {
    const message = parsed(`{"jsonrpc":"2.0","id":7,"result":${body}}`);
    assert.equal(splicedMessage({ jsonrpc: '2.0', id: 1, result: message.result as JsonObject }), undefined);
    // ...and the text alone is still spliced into the string.
    assert.equal(encodeMessage({ jsonrpc: '2.0', id: 1, result: message.result as JsonObject }), `{"jsonrpc":"2.0","id":1,"result":${body}}`);
    assert.equal(splicedMessage({ jsonrpc: '2.0', id: 1, result: { ...(message.result as JsonObject) } }), undefined);
  });

  test('a forwarded request keeps its params text under the new id', () => {
    const params = '{"name":"echo","arguments":{"text":"x"}}';
    const request = parsed(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":${params}}`);
    const line = serializeMessage({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: request.params as JsonObject });
    assert.equal(line, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":${params}}`);
  });
});

describe('serializing what JSON.stringify cannot (nested too deeply for its recursion)', () => {
  const deep = (): JsonObject => ({ deep: JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown });

  test('a response becomes an error response for the same id', () => {
    const expected = '{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Internal error: the answer is nested too deeply to forward"}}';
    assert.equal(serializeMessage({ jsonrpc: '2.0', id: 4, result: deep() }), expected);
    assert.equal(encodeMessage({ jsonrpc: '2.0', id: 4, result: deep() }), expected);
  });

  test('a request or notification is refused with -32600: the sender gets the error, nothing reaches the wire', () => {
    for (const message of [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: deep() }, { jsonrpc: '2.0', method: 'notifications/message', params: deep() }] as const) {
      assert.throws(() => serializeMessage(message), (error: unknown) => error instanceof McpError && error.code === -32600 && /nested too deeply/.test(error.message));
    }
  });

  test('in a batch, only the answer that cannot be written is replaced', () => {
    const line = serializeMessage([{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', id: 2, result: deep() }]);
    assert.deepEqual(JSON.parse(line), [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error: the answer is nested too deeply to forward' } },
    ]);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { McpError } from '../errors/mcp-error.js';
import { LineReader } from './line-reader.js';

function collect(maxBytes?: number): { reader: LineReader; values: unknown[]; errors: McpError[] } {
  const values: unknown[] = [];
  const errors: McpError[] = [];
  const reader = new LineReader({ onValue: (v) => values.push(v), onMalformed: (e) => errors.push(e) }, maxBytes);
  return { reader, values, errors };
}

describe('LineReader', () => {
  const messages = [{ a: 'é—😀' }, { b: [1, 2, 3] }, { c: 'x'.repeat(100) }];
  const bytes = Buffer.from(messages.map((m) => JSON.stringify(m)).join('\n') + '\n');

  test('delivers each message once, in order, however the bytes are split (every offset, incl. inside UTF-8 characters)', () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      const { reader, values, errors } = collect();
      reader.push(bytes.subarray(0, cut));
      reader.push(bytes.subarray(cut));
      assert.deepEqual(values, messages, `split at ${cut}`);
      assert.equal(errors.length, 0);
    }
  });

  test('delivers messages fed one byte at a time', () => {
    const { reader, values } = collect();
    for (const byte of bytes) reader.push(Buffer.from([byte]));
    assert.deepEqual(values, messages);
  });

  test('accepts CRLF line endings and skips blank lines', () => {
    const { reader, values, errors } = collect();
    reader.push(Buffer.from('{"x":1}\r\n\r\n\n  \n{"y":2}\r\n'));
    assert.deepEqual(values, [{ x: 1 }, { y: 2 }]);
    assert.equal(errors.length, 0);
  });

  test('answers invalid JSON with -32700 and goes on', () => {
    const { reader, values, errors } = collect();
    reader.push(Buffer.from('{not json}\n{"ok":true}\n'));
    assert.deepEqual(errors.map((e) => e.code), [-32700]);
    assert.deepEqual(values, [{ ok: true }]);
  });

  test('answers invalid UTF-8 with -32700, never U+FFFD', () => {
    const { reader, values, errors } = collect();
    reader.push(Buffer.concat([Buffer.from('{"s":"'), Buffer.from([0xff, 0xc3, 0x28]), Buffer.from('"}\n{"ok":1}\n')]));
    assert.deepEqual(errors.map((e) => [e.code, e.message]), [[-32700, 'Parse error: invalid UTF-8']]);
    assert.deepEqual(values, [{ ok: 1 }]);
  });

  test('refuses a line over the limit with -32600, buffers no more than the limit, and resyncs at the next newline', () => {
    const { reader, values, errors } = collect(1024);
    reader.push(Buffer.from('{"before":1}\n'));
    for (let i = 0; i < 100; i++) {
      reader.push(Buffer.alloc(500, 0x61));
      assert.ok(reader.buffered <= 1024);
    }
    reader.push(Buffer.from('tail\n{"after":2}\n'));
    assert.deepEqual(values, [{ before: 1 }, { after: 2 }]);
    assert.deepEqual(errors.map((e) => e.code), [-32600]);
  });

  test('refuses an oversized line that arrives in a single chunk with its newline', () => {
    const { reader, values, errors } = collect(10);
    reader.push(Buffer.from('{"much":"too long"}\n{"a":1}\n'));
    assert.deepEqual(values, [{ a: 1 }]);
    assert.equal(errors.length, 1);
  });
});

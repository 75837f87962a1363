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

describe('LineReader: lines read lazily (lazyFromBytes) deliver what the eager reader delivers', () => {
  const LAZY_FROM = 2048;

  /** Everything a reader reports for `chunks`: values (with whether they came with their text) and errors. */
  function events(chunks: Buffer[], lazyFrom: number, maxBytes = 1 << 20): unknown[] {
    const seen: unknown[] = [];
    const reader = new LineReader({
      onValue: (value, _text, bytes) => seen.push(['value', value, bytes.toString('latin1')]),
      onMalformed: (error, line) => seen.push(['malformed', error.code, error.message, line]),
    }, maxBytes, lazyFrom);
    for (const chunk of chunks) reader.push(chunk);
    return seen;
  }

  const long = 'é😀\\"'.repeat(700);
  const lines: [string, string | Buffer][] = [
    ['an object', `{"jsonrpc":"2.0","id":1,"result":{"text":"${long}"}}`],
    ['an object in CRLF', `{"jsonrpc":"2.0","id":1,"result":{"text":"${long}"}}\r`],
    ['an object after whitespace', `  \t {"jsonrpc":"2.0","method":"m","params":{"text":"${long}"}}  `],
    ['a batch', `[{"jsonrpc":"2.0","id":1,"result":{"text":"${long}"}},{"jsonrpc":"2.0","method":"m"}]`],
    ['a lone string', `"${long}"`],
    ['a BOM before an object', `\ufeff{"jsonrpc":"2.0","id":1,"result":{"text":"${long}"}}`],
    ['a BOM before a batch', `\ufeff[{"jsonrpc":"2.0","id":1,"result":{"text":"${long}"}}]`],
    ['a line of spaces', ' '.repeat(3000)],
    ['a line of tabs and a CR', `${'\t'.repeat(3000)}\r`],
    ['a line of non-breaking spaces (blank to trim, not to JSON)', '\u00a0'.repeat(1500)],
    ['a line of BOMs', '\ufeff'.repeat(1000)],
    ['an object with a lone BOM inside a string', `{"a":"\ufeff${long}"}`],
    ['an object with escapes of every kind', `{"s":"\\u00e9\\ud800\\/\\b\\f\\n\\r\\t${long}"}`],
  ];

  test('the same values (and bytes), and the same errors, for lines of every kind at and above the threshold, whole or split at several places', () => {
    for (const [what, line] of lines) {
      const bytes = Buffer.concat([Buffer.from(line), Buffer.from('\n{"next":true}\n')]);
      const eager = events([bytes], Number.POSITIVE_INFINITY);
      for (const cut of [0, 1, 3, 4, 2047, 2048, 2049, bytes.length - 16, bytes.length - 1]) {
        assert.deepStrictEqual(events([bytes.subarray(0, cut), bytes.subarray(cut)], LAZY_FROM), eager, `${what}, cut at ${cut}`);
      }
      assert.deepStrictEqual(eager.at(-1), ['value', { next: true }, '{"next":true}'], what);
    }
  });

  test('a line over the size limit is refused with the same -32600, read lazily or not', () => {
    const bytes = Buffer.from(`{"a":"${'x'.repeat(5000)}"}\n{"b":1}\n`);
    const eager = events([bytes], Number.POSITIVE_INFINITY, 4096);
    assert.deepStrictEqual(eager.map((event) => (event as unknown[])[1]), [-32600, { b: 1 }]);
    assert.deepStrictEqual(events([bytes], LAZY_FROM, 4096), eager);
    assert.deepStrictEqual(events([...bytes].map((byte) => Buffer.from([byte])), LAZY_FROM, 4096), eager);
  });

  test('a line just below the threshold comes with its text, one at it without (read lazily)', () => {
    const texts: (string | undefined)[] = [];
    const reader = new LineReader({ onValue: (_value, text) => texts.push(text), onMalformed: () => assert.fail('malformed') }, 1 << 20, LAZY_FROM);
    const below = `{"a":"${'x'.repeat(LAZY_FROM - 9)}"}`;
    const at = `{"a":"${'x'.repeat(LAZY_FROM - 8)}"}`;
    assert.deepEqual([Buffer.byteLength(below), Buffer.byteLength(at)], [LAZY_FROM - 1, LAZY_FROM]);
    reader.push(Buffer.from(`${below}\n${at}\r\n`));
    assert.deepEqual(texts, [below, undefined]);
  });
});

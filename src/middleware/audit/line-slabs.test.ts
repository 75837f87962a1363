import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LineSlabs, type Slab } from './line-slabs.js';

/** The lines of slabs, read back through their ends. */
function linesOf(slabs: readonly Slab[]): string[] {
  const lines: string[] = [];
  for (const { bytes, ends } of slabs) {
    let start = 0;
    for (const end of ends) {
      lines.push(bytes.subarray(start, end).toString('utf8'));
      start = end;
    }
    assert.equal(start, bytes.length, 'a slab holds nothing past its last line');
  }
  return lines;
}

describe('LineSlabs', () => {
  test('lines come back in order, each with its newline, multi-byte characters whole', () => {
    const slabs = new LineSlabs();
    const lines = ['{"a":1}', 'héllo ✓ 𝄞', '', '{"b":"\\u2028"}'];
    for (const line of lines) slabs.push(line);
    assert.equal(slabs.count, 4);
    assert.deepEqual(linesOf(slabs.take()), lines.map((line) => `${line}\n`));
    assert.equal(slabs.count, 0);
    assert.deepEqual(slabs.take(), []);
  });

  test('many lines fill several slabs; a line larger than a slab gets one of its own', () => {
    const slabs = new LineSlabs();
    const lines = Array.from({ length: 5000 }, (_, n) => JSON.stringify({ n, pad: 'x'.repeat(n % 97) }));
    lines.splice(2500, 0, 'y'.repeat(200_000));
    for (const line of lines) slabs.push(line);
    const taken = slabs.take();
    assert.ok(taken.length > 3, `${taken.length} slabs`);
    assert.deepEqual(linesOf(taken), lines.map((line) => `${line}\n`));
  });
});

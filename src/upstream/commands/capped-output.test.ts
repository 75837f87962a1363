import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CappedOutput, completeUtf8Length } from './capped-output.js';

describe('CappedOutput', () => {
  test('under the cap: everything, not truncated', () => {
    const out = new CappedOutput(10);
    out.push(Buffer.from('abc'));
    out.push(Buffer.from('def'));
    assert.equal(out.text(), 'abcdef');
    assert.equal(out.truncated, false);
    assert.equal(out.totalBytes, 6);
  });

  test('over the cap: the first bytes kept, all counted', () => {
    const out = new CappedOutput(4);
    out.push(Buffer.from('abc'));
    out.push(Buffer.from('defgh'));
    assert.equal(out.text(), 'abcd');
    assert.equal(out.truncated, true);
    assert.equal(out.totalBytes, 8);
  });

  test('a cut never splits a multi-byte character', () => {
    for (const [text, cap, kept] of [['éééé', 5, 'éé'], ['😀😀', 7, '😀'], ['a😀', 2, 'a'], ['a😀', 4, 'a'], ['a😀', 5, 'a😀'], ['€€', 4, '€']] as const) {
      const out = new CappedOutput(cap);
      out.push(Buffer.from(text));
      assert.equal(out.text(), kept, `${text} cut at ${cap}`);
    }
  });

  test('invalid UTF-8 is replaced, not thrown', () => {
    const out = new CappedOutput(10);
    out.push(Buffer.from([0x61, 0xff, 0x62]));
    assert.equal(out.text(), 'a\uFFFDb');
  });

  test('completeUtf8Length keeps complete input whole', () => {
    assert.equal(completeUtf8Length(Buffer.from('aé😀')), 7);
    assert.equal(completeUtf8Length(Buffer.from('😀').subarray(0, 3)), 0);
    assert.equal(completeUtf8Length(new Uint8Array()), 0);
  });
});

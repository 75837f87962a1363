import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { unifiedDiff } from './unified-diff.js';

describe('unifiedDiff', () => {
  test('equal texts: no diff', () => {
    assert.equal(unifiedDiff('a\nb\n', 'a\nb\n', 'x', 'y'), '');
  });

  test('a changed line: removal before addition, with the context around it, as diff -u writes it', () => {
    const from = ['1', '2', '3', '4', '5', '6', '7', '8', '9'].join('\n');
    const to = ['1', '2', '3', '4', 'five', '6', '7', '8', '9'].join('\n');
    assert.equal(unifiedDiff(from, to, 'pinned', 'pending'), '--- pinned\n+++ pending\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n');
  });

  test('changes far apart are separate hunks; lines added at the end and a text that was empty', () => {
    const from = Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n');
    const to = from.replace('l1\n', 'L1\n').concat('\nl20');
    assert.equal(
      unifiedDiff(from, to, 'a', 'b'),
      '--- a\n+++ b\n@@ -1,5 +1,5 @@\n l0\n-l1\n+L1\n l2\n l3\n l4\n@@ -18,3 +18,4 @@\n l17\n l18\n l19\n+l20\n',
    );
    assert.equal(unifiedDiff('', 'x\n', 'a', 'b'), '--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n');
  });
});

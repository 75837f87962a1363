import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { watchConfig } from './watch-config.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-watch-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Counts the calls of onChange; `next()` resolves at the next one (10 s safety net). */
function changes(): { onChange: () => void; next: () => Promise<void>; count: () => number } {
  let count = 0;
  let waiting: (() => void) | undefined;
  return {
    onChange: () => {
      count += 1;
      waiting?.();
    },
    next: () =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no change was reported within 10 s')), 10_000);
        waiting = () => {
          clearTimeout(timer);
          waiting = undefined;
          resolve();
        };
      }),
    count: () => count,
  };
}

describe('watchConfig', () => {
  test('a file written in place, then replaced by a rename (as editors save), is reported each time, once per burst', async () => {
    const file = join(dir, 'a.json');
    writeFileSync(file, '{}');
    const seen = changes();
    const watcher = watchConfig([file], seen.onChange, { debounceMs: 50 });
    try {
      let next = seen.next();
      writeFileSync(file, '{"a":1}');
      writeFileSync(file, '{"a":2}');
      await next;
      assert.equal(seen.count(), 1, 'two writes in a row are one change');

      next = seen.next();
      writeFileSync(join(dir, '.a.json.tmp'), '{"a":3}');
      renameSync(join(dir, '.a.json.tmp'), file);
      await next;
      assert.equal(seen.count(), 2);

      next = seen.next();
      writeFileSync(file, '{"a":4}');
      await next;
      assert.equal(seen.count(), 3, 'the file is still watched after it was replaced');
    } finally {
      watcher.close();
    }
  });

  test('other files of the directory are not reported, and nothing is after close', async () => {
    const file = join(dir, 'b.json');
    writeFileSync(file, '{}');
    const seen = changes();
    const watcher = watchConfig([file], seen.onChange, { debounceMs: 20 });
    const other = changes();
    const witness = watchConfig([join(dir, 'other.json')], other.onChange, { debounceMs: 20 });
    try {
      const next = other.next();
      writeFileSync(join(dir, 'other.json'), '{}');
      await next; // the witness, watching the same directory, has seen it and debounced it
      assert.equal(seen.count(), 0);
      watcher.close();
      const again = other.next();
      writeFileSync(file, '{"b":1}');
      writeFileSync(join(dir, 'other.json'), '{"x":1}');
      await again;
      assert.equal(seen.count(), 0);
    } finally {
      watcher.close();
      witness.close();
    }
  });
});

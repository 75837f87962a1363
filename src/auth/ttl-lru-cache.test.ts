import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TtlLruCache } from './ttl-lru-cache.js';

describe('TtlLruCache', () => {
  test('an entry is served until its time, then gone', () => {
    let now = 1000;
    const cache = new TtlLruCache<string>(10, () => now);
    cache.set('a', 'A', 1500);
    assert.equal(cache.get('a'), 'A');
    now = 1500;
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.size, 0);
  });

  test('an entry already expired is not kept', () => {
    const cache = new TtlLruCache<string>(10, () => 2000);
    cache.set('a', 'A', 1000);
    assert.equal(cache.size, 0);
  });

  test('past the bound, the least recently used entry goes first', () => {
    const cache = new TtlLruCache<number>(2, () => 0);
    cache.set('a', 1, 100);
    cache.set('b', 2, 100);
    assert.equal(cache.get('a'), 1);
    cache.set('c', 3, 100);
    assert.equal(cache.get('b'), undefined);
    assert.equal(cache.get('a'), 1);
    assert.equal(cache.get('c'), 3);
    assert.equal(cache.size, 2);
  });

  test('the bound must be a positive integer', () => {
    assert.throws(() => new TtlLruCache(0), RangeError);
  });
});

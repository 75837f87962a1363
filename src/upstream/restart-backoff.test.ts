import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jitteredDelay } from './restart-backoff.js';

const backoff = { initialDelayMs: 250, factor: 2, maxDelayMs: 30_000 };

describe('restart backoff with full jitter', () => {
  test('the delay is a draw in [0, initial × factor^attempt]', () => {
    assert.equal(jitteredDelay(backoff, 0, () => 0), 0);
    assert.equal(jitteredDelay(backoff, 0, () => 0.5), 125);
    assert.equal(jitteredDelay(backoff, 3, () => 0.999_999), 1999);
  });

  test('no delay exceeds the ceiling, however many crashes in a row', () => {
    for (const attempt of [10, 20, 100, 10_000]) {
      assert.equal(jitteredDelay(backoff, attempt, () => 0.999_999), 29_999);
      assert.ok(jitteredDelay(backoff, attempt) <= 30_000);
    }
  });

  test('every delay of many attempts with Math.random lies within [0, ceiling]', () => {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const delay = jitteredDelay(backoff, attempt % 40);
      assert.ok(delay >= 0 && delay <= Math.min(250 * 2 ** (attempt % 40), 30_000), String(delay));
    }
  });

  test('a random source out of range is clamped', () => {
    assert.equal(jitteredDelay(backoff, 0, () => -1), 0);
    assert.equal(jitteredDelay(backoff, 0, () => 7), 250);
  });
});

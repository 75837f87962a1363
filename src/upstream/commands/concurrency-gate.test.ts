import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConcurrencyGate } from './concurrency-gate.js';

describe('ConcurrencyGate', () => {
  test('at most `limit` turns at once; the others get theirs in order as turns are given back', async () => {
    const gate = new ConcurrencyGate(2);
    const signal = new AbortController().signal;
    const order: string[] = [];
    const first = await gate.acquire(signal);
    const second = await gate.acquire(signal);
    const third = gate.acquire(signal).then((release) => (order.push('third'), release));
    const fourth = gate.acquire(signal).then((release) => (order.push('fourth'), release));
    await Promise.resolve();
    assert.deepEqual(order, []);
    first?.();
    first?.(); // twice is once
    (await third)?.();
    second?.();
    (await fourth)?.();
    assert.deepEqual(order, ['third', 'fourth']);
  });

  test('a wait whose signal aborts ends with no turn and leaves the queue', async () => {
    const gate = new ConcurrencyGate(1);
    const held = await gate.acquire(new AbortController().signal);
    const controller = new AbortController();
    const waiting = gate.acquire(controller.signal);
    controller.abort();
    assert.equal(await waiting, undefined);
    assert.equal(await gate.acquire(AbortSignal.abort()), undefined);
    held?.();
    const next = await gate.acquire(new AbortController().signal);
    assert.equal(typeof next, 'function');
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CircuitBreaker } from './circuit-breaker.js';

function breaker(): { b: CircuitBreaker; clock: { t: number } } {
  const clock = { t: 1000 };
  const b = new CircuitBreaker({ failureThreshold: 3, openMs: 100, factor: 2, maxOpenMs: 300 }, () => clock.t);
  return { b, clock };
}

describe('circuit breaker', () => {
  test('closed, it lets calls through; a success clears the count of failures in a row', () => {
    const { b } = breaker();
    b.failed('timeout');
    b.failed('timeout');
    b.succeeded();
    b.failed('timeout');
    b.failed('timeout');
    assert.equal(b.state, 'closed');
    assert.deepEqual(b.admit(), { admitted: true, probe: false });
  });

  test('N failures in a row open it: calls are refused with the count, the last cause and when it is tried again', () => {
    const { b, clock } = breaker();
    for (const cause of ['a', 'b', 'exited (code 1)']) b.failed(cause);
    assert.equal(b.state, 'open');
    clock.t += 40;
    assert.deepEqual(b.admit(), { admitted: false, failures: 3, lastFailure: 'exited (code 1)', retryInMs: 60 });
  });

  test('once open time has passed, exactly one call probes (half-open); the others are still refused', () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.failed('x');
    clock.t += 100;
    assert.equal(b.state, 'half-open');
    assert.deepEqual(b.admit(), { admitted: true, probe: true });
    const refused = b.admit();
    assert.equal(refused.admitted, false);
  });

  test('a probe that succeeds closes it', () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.failed('x');
    clock.t += 100;
    b.admit();
    b.succeeded(true);
    assert.equal(b.state, 'closed');
    assert.equal(b.failures, 0);
    assert.deepEqual(b.admit(), { admitted: true, probe: false });
  });

  test('a probe that fails opens it again for longer, up to the ceiling', () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.failed('x');
    const waits: number[] = [];
    for (let round = 0; round < 4; round++) {
      const refused = b.admit();
      assert.equal(refused.admitted, false);
      if (!refused.admitted) waits.push(refused.retryInMs);
      clock.t += waits.at(-1) ?? 0;
      assert.deepEqual(b.admit(), { admitted: true, probe: true });
      b.failed('still down', true);
    }
    assert.deepEqual(waits, [100, 200, 300, 300]);
    assert.equal(b.failures, 7);
  });

  test('a call sent before it opened that ends while it is open changes nothing', () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.failed('x');
    b.succeeded();
    b.failed('late');
    assert.equal(b.state, 'open');
    clock.t += 100;
    assert.equal(b.state, 'half-open');
  });

  test('a probe released without an answer lets the next call probe', () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.failed('x');
    clock.t += 100;
    b.admit();
    b.released(true);
    assert.deepEqual(b.admit(), { admitted: true, probe: true });
  });

  test('reset closes it and clears the backoff', () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.failed('x');
    b.reset();
    assert.equal(b.state, 'closed');
    for (let i = 0; i < 3; i++) b.failed('x');
    const refused = b.admit();
    assert.ok(!refused.admitted && refused.retryInMs === 100);
    void clock;
  });
});

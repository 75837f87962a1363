import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DeadlineWheel, type TimerHandle, type WheelClock } from './deadline-wheel.js';

interface FakeTimer extends TimerHandle {
  at: number;
  callback: () => void;
  refed: boolean;
  done: boolean;
}

/** A clock and timers of the test's own: time passes by `advance`, a timer fires when told. */
class FakeClock implements WheelClock {
  time = 1000;
  trustTimer = false;
  armed = 0;
  disarmed = 0;
  #timers: FakeTimer[] = [];

  setTimeout(callback: () => void, ms: number): TimerHandle {
    this.armed++;
    const timer: FakeTimer = {
      at: this.time + ms,
      callback,
      refed: true,
      done: false,
      ref: () => (timer.refed = true),
      unref: () => (timer.refed = false),
    };
    this.#timers.push(timer);
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    this.disarmed++;
    (handle as FakeTimer).done = true;
  }

  now(): number {
    return this.time;
  }

  /** The timers armed and neither fired nor cleared. */
  live(): FakeTimer[] {
    return this.#timers.filter((timer) => !timer.done);
  }

  /** Moves the time on by `ms`, firing each timer at its time, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const next = this.live().sort((a, b) => a.at - b.at)[0];
      if (next === undefined || next.at > end) break;
      this.time = Math.max(this.time, next.at);
      next.done = true;
      next.callback();
    }
    this.time = end;
  }

  /** Fires the armed timer now, whatever its time (as Node's may, a little before `now()` reaches it). */
  fireEarly(): void {
    const [timer] = this.live();
    assert.ok(timer, 'a timer is armed');
    timer.done = true;
    timer.callback();
  }
}

function setup(): { clock: FakeClock; wheel: DeadlineWheel; calls: string[]; at: (name: string, delay: number) => ReturnType<DeadlineWheel['schedule']> } {
  const clock = new FakeClock();
  const wheel = new DeadlineWheel(clock);
  const calls: string[] = [];
  const record = (name: string): void => void calls.push(`${name}@${clock.time}`);
  return { clock, wheel, calls, at: (name, delay) => wheel.schedule(wheel.now(), delay, record, name) };
}

describe('DeadlineWheel', () => {
  test('many entries share one timer: scheduling and cancelling them arms and clears none', () => {
    const { clock, wheel, at } = setup();
    const entries = Array.from({ length: 1000 }, (_, i) => at(`e${i}`, 60_000));
    assert.equal(clock.armed, 1);
    for (const entry of entries) wheel.cancel(entry);
    for (let i = 0; i < 1000; i++) wheel.cancel(at(`f${i}`, 60_000));
    assert.deepEqual([clock.armed, clock.disarmed, wheel.pending], [1, 0, 0]);
  });

  test('calls each entry at its time, never before, in due order (ties in the order scheduled)', () => {
    const { clock, calls, at } = setup();
    at('c', 30);
    at('a', 10);
    at('b', 20);
    at('a2', 10);
    clock.advance(9);
    assert.deepEqual(calls, []);
    clock.advance(1);
    assert.deepEqual(calls, ['a@1010', 'a2@1010']);
    clock.advance(19);
    assert.deepEqual(calls, ['a@1010', 'a2@1010', 'b@1020']);
    clock.advance(1);
    assert.deepEqual(calls, ['a@1010', 'a2@1010', 'b@1020', 'c@1030']);
  });

  test('an entry due before the armed timer re-arms it; a later one does not', () => {
    const { clock, calls, at } = setup();
    at('late', 100);
    at('later', 200);
    assert.equal(clock.armed, 1);
    at('early', 5);
    assert.deepEqual([clock.armed, clock.disarmed], [2, 1]);
    clock.advance(5);
    assert.deepEqual(calls, ['early@1005']);
    clock.advance(195);
    assert.deepEqual(calls, ['early@1005', 'late@1100', 'later@1200']);
  });

  test('a timer that fires before the clock shows the due time calls nothing, and is armed for the rest', () => {
    const { clock, calls, at } = setup();
    at('x', 50);
    clock.time += 49;
    clock.fireEarly();
    assert.deepEqual(calls, []);
    assert.deepEqual(clock.live().map((timer) => timer.at), [1050]);
    clock.advance(1);
    assert.deepEqual(calls, ['x@1050']);
  });

  test('a trusted timer (a fake setTimeout beside a real clock) proves its time has passed', () => {
    const { clock, wheel, calls, at } = setup();
    clock.trustTimer = true;
    at('x', 50);
    at('y', 80);
    clock.fireEarly();
    assert.deepEqual(calls, ['x@1000']);
    assert.equal(wheel.now(), 1050, 'the wheel\'s time moved on with the timer');
    clock.fireEarly();
    assert.deepEqual(calls, ['x@1000', 'y@1000']);
  });

  test('a cancelled entry is never called; cancelling twice, or after the call, changes nothing', () => {
    const { clock, wheel, calls, at } = setup();
    const a = at('a', 10);
    const b = at('b', 10);
    const c = at('c', 20);
    wheel.cancel(a);
    wheel.cancel(a);
    assert.equal(wheel.pending, 2);
    clock.advance(10);
    assert.deepEqual(calls, ['b@1010']);
    wheel.cancel(b);
    assert.equal(wheel.pending, 1);
    clock.advance(10);
    assert.deepEqual(calls, ['b@1010', 'c@1020']);
    wheel.cancel(c);
    assert.deepEqual([wheel.pending, wheel.held], [0, 0]);
  });

  test('the timer keeps the process alive exactly while an entry is live', () => {
    const { clock, wheel, at } = setup();
    assert.equal(wheel.timer, 'none');
    const a = at('a', 100);
    const b = at('b', 100);
    assert.equal(wheel.timer, 'ref');
    wheel.cancel(a);
    assert.equal(wheel.timer, 'ref');
    wheel.cancel(b);
    assert.equal(wheel.timer, 'unref');
    assert.equal(clock.live()[0]?.refed, false);
    const c = at('c', 100);
    assert.deepEqual([wheel.timer, clock.live()[0]?.refed, clock.armed], ['ref', true, 1], 'the same timer, ref\'d again');
    wheel.cancel(c);
    clock.advance(100);
    assert.equal(wheel.timer, 'none', 'it fired with nothing live: not armed again');
    at('d', 10);
    clock.advance(10);
    assert.equal(wheel.timer, 'none');
    at('e', 10);
    at('f', 20);
    clock.advance(10);
    assert.equal(wheel.timer, 'ref', 'armed again for the live one left');
  });

  test('a callback may cancel another due entry (it is not called) or schedule a new one', () => {
    const clock = new FakeClock();
    const wheel = new DeadlineWheel(clock);
    const calls: string[] = [];
    const later = { entry: wheel.schedule(wheel.now(), 10, () => calls.push('b'), undefined) };
    wheel.schedule(wheel.now(), 5, () => {
      calls.push('a');
      wheel.cancel(later.entry);
      wheel.schedule(wheel.now(), 1, () => calls.push('c'), undefined);
    }, undefined);
    // Both due at once: a runs first, and cancels b before its turn.
    clock.advance(10);
    assert.deepEqual(calls, ['a', 'c']);
    assert.deepEqual([wheel.pending, wheel.held], [0, 0]);
  });

  test('a callback that throws is reported as an uncaught exception of its own, and the others still run', (t) => {
    const { clock, calls, at, wheel } = setup();
    const deferredThrows: Array<() => void> = [];
    t.mock.method(process, 'nextTick', (callback: () => void) => void deferredThrows.push(callback));
    wheel.schedule(wheel.now(), 10, () => {
      throw new Error('boom');
    }, undefined);
    at('after', 10);
    clock.advance(10);
    assert.deepEqual(calls, ['after@1010']);
    assert.equal(deferredThrows.length, 1);
    assert.throws(() => deferredThrows[0]?.(), /boom/);
  });

  test('an endless delay arms the longest timer Node allows, and is never called', () => {
    const { clock, calls, at } = setup();
    at('never', Infinity);
    assert.deepEqual(clock.live().map((timer) => timer.at - clock.time), [0x7fff_ffff]);
    clock.advance(0x7fff_ffff);
    assert.deepEqual(calls, []);
    assert.equal(clock.live().length, 1, 'armed again');
  });

  test('a NaN or negative delay is due at once', () => {
    const { clock, calls, at } = setup();
    at('nan', NaN);
    at('negative', -5);
    clock.advance(1);
    assert.deepEqual(calls, ['nan@1001', 'negative@1001']);
  });

  test('cancelled entries do not pile up: a million scheduled and cancelled beside long-lived ones', () => {
    const { clock, wheel, calls, at } = setup();
    const longLived = Array.from({ length: 10 }, (_, i) => at(`long${i}`, 600_000));
    let most = 0;
    const inFlight: Array<ReturnType<typeof at>> = [];
    for (let i = 0; i < 1_000_000; i++) {
      inFlight.push(at('short', 60_000));
      // Three in flight at a time, answered in an order that is not the order of their deadlines.
      if (inFlight.length === 3) wheel.cancel(inFlight.splice(i % 3, 1)[0] as ReturnType<typeof at>);
      if (wheel.held > most) most = wheel.held;
    }
    assert.ok(most <= 2 * 12 + 64 + 1, `at most ${most} entries held`);
    for (const entry of inFlight) wheel.cancel(entry);
    assert.equal(wheel.pending, 10);
    clock.advance(600_000);
    assert.equal(calls.length, 10);
    assert.deepEqual([wheel.pending, wheel.held, wheel.timer], [0, 0, 'none']);
    assert.ok(longLived.every((entry) => entry.callback === undefined));
  });

  test('with one entry at a time, a million cycles hold at most one', () => {
    const { wheel, at } = setup();
    for (let i = 0; i < 1_000_000; i++) {
      wheel.cancel(at('x', 60_000));
      assert.ok(wheel.held === 0);
    }
  });
});

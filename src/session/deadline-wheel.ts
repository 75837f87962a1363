import { AsyncResource } from 'node:async_hooks';

/** What the wheel needs of a timer handle: Node's `Timeout`, or a fake timer's. */
export interface TimerHandle {
  ref(): unknown;
  unref(): unknown;
}

/** The timers and the clock a {@link DeadlineWheel} runs on. */
export interface WheelClock {
  /** Arms a one-shot timer (Node's `setTimeout`, or a fake one). */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Disarms it. */
  clearTimeout(handle: TimerHandle): void;
  /** The time, in ms, on the clock the timer counts. */
  now(): number;
  /**
   * Whether a firing timer proves that its delay has passed even when `now()` does not show it:
   * true for a fake `setTimeout` beside a real clock (or the reverse), whose time passes only when
   * a test says so. Node's own timer is never trusted: it may fire a little before `now()` reaches
   * its time (the event loop's cached time lags), and a deadline must never fire early.
   */
  trustTimer: boolean;
}

/** One scheduled call, `callback(arg)`; `callback` is gone once it was cancelled or made. */
export class WheelEntry {
  readonly due: number;
  readonly seq: number;
  callback: ((arg: unknown) => void) | undefined;
  readonly arg: unknown;

  constructor(due: number, seq: number, callback: (arg: unknown) => void, arg: unknown) {
    this.due = due;
    this.seq = seq;
    this.callback = callback;
    this.arg = arg;
  }
}

/** The callback of an entry that is due and about to be called (until then, it can be cancelled). */
const firing = (): void => undefined;

/** Node's limit: a longer delay would fire after 1 ms instead. */
const MAX_TIMER_MS = 0x7fff_ffff;
/** Cancelled entries beyond twice the live ones (plus this) are swept out at once. */
const COMPACT_SLACK = 64;

/**
 * Many deadlines, one timer: entries kept in a min-heap by due time (ties in order of
 * scheduling), with a single timer armed for the earliest. Deadlines of one timeout value arrive
 * in due order, so scheduling one is a push and a single comparison; cancelling one only marks
 * it (dead entries are dropped when they reach the top, all at once when none is left alive, or
 * swept when they outnumber the live ones), and the timer is left as it is: it fires at its time,
 * calls what is due and is armed again for the earliest live entry. The timer keeps the process
 * alive (is ref'd) exactly while at least one entry is live.
 */
export class DeadlineWheel {
  readonly #clock: WheelClock;
  #heap: WheelEntry[] = [];
  #live = 0;
  #seq = 0;
  #timer: TimerHandle | undefined;
  /** The due time of the entry the timer was armed for. */
  #armedFor = Infinity;
  /** When the timer fires, on the clock (armed at + its delay). */
  #timerAt = Infinity;
  #refed = false;
  /** With a trusted timer: the time its last firing proved to have passed. */
  #floor = -Infinity;

  constructor(clock: WheelClock) {
    this.#clock = clock;
  }

  /** The wheel's time, in ms: never behind what a trusted timer proved. */
  now(): number {
    const clock = this.#clock.now();
    return this.#clock.trustTimer && this.#floor > clock ? this.#floor : clock;
  }

  /** Live entries (scheduled, neither cancelled nor called). */
  get pending(): number {
    return this.#live;
  }

  /** Entries held, live or cancelled but not yet dropped: the wheel's memory. */
  get held(): number {
    return this.#heap.length;
  }

  /** Whether a timer is armed, and whether it keeps the process alive. */
  get timer(): 'none' | 'ref' | 'unref' {
    if (this.#timer === undefined) return 'none';
    return this.#refed ? 'ref' : 'unref';
  }

  /**
   * Calls `callback(arg)` once `delayMs` (NaN or less than 0: 0) has passed since `now` (the
   * wheel's {@link now}, read by the caller), unless the entry is cancelled first. (One callback
   * shared by many entries, each with its own `arg`, saves a closure per entry.)
   */
  schedule<T>(now: number, delayMs: number, callback: (arg: T) => void, arg: T): WheelEntry {
    const due = now + (delayMs > 0 ? delayMs : 0);
    // The entry calls it with this very `arg`, so it is called with a T.
    const entry = new WheelEntry(due, this.#seq++, callback as (arg: unknown) => void, arg);
    this.#push(entry);
    if (this.#live++ === 0 && this.#timer !== undefined && !this.#refed) {
      this.#timer.ref();
      this.#refed = true;
    }
    if (this.#timer === undefined || due < this.#armedFor) this.#arm(now, due);
    return entry;
  }

  /** Cancels an entry: its callback is never called. Does nothing if it was cancelled or called. */
  cancel(entry: WheelEntry): void {
    const callback = entry.callback;
    if (callback === undefined) return;
    entry.callback = undefined;
    // Due, about to be called: no longer counted, nor held.
    if (callback === firing) return;
    if (--this.#live === 0) {
      // Nothing left alive: drop every entry, and let the process exit if it has nothing else to do.
      this.#dropAll();
      if (this.#refed) {
        this.#timer?.unref();
        this.#refed = false;
      }
    } else if (this.#heap.length > 2 * this.#live + COMPACT_SLACK) {
      this.#compact();
    }
  }

  #arm(now: number, due: number): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    const delay = Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(due - now)));
    this.#timer = this.#clock.setTimeout(this.#fire, delay);
    this.#refed = true;
    this.#armedFor = due;
    this.#timerAt = now + delay;
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#refed = false;
    this.#armedFor = Infinity;
    if (this.#clock.trustTimer && this.#timerAt > this.#floor) this.#floor = this.#timerAt;
    const now = this.now();
    const heap = this.#heap;
    const due: WheelEntry[] = [];
    const callbacks: Array<(arg: unknown) => void> = [];
    while (heap.length > 0 && (heap[0] as WheelEntry).due <= now) {
      const entry = this.#pop();
      if (entry.callback === undefined) continue;
      due.push(entry);
      callbacks.push(entry.callback);
      entry.callback = firing;
      this.#live--;
    }
    if (this.#live === 0) this.#dropAll();
    else {
      while ((heap[0] as WheelEntry).callback === undefined) this.#pop();
      this.#arm(now, (heap[0] as WheelEntry).due);
    }
    // Called once the wheel is whole again: a callback may schedule or cancel. One that throws
    // is reported as its own timer's would be (an uncaught exception), and the others still run.
    for (let i = 0; i < due.length; i++) {
      const entry = due[i] as WheelEntry;
      // Not when a callback called before it cancelled it.
      if (entry.callback !== firing) continue;
      entry.callback = undefined;
      try {
        (callbacks[i] as (arg: unknown) => void)(entry.arg);
      } catch (error) {
        process.nextTick(() => {
          throw error;
        });
      }
    }
  };

  #dropAll(): void {
    const heap = this.#heap;
    // Usually one entry (one request at a time): popping is cheaper than truncating.
    if (heap.length > 8) this.#heap = [];
    else while (heap.length > 0) heap.pop();
  }

  #compact(): void {
    const heap = this.#heap.filter((entry) => entry.callback !== undefined);
    this.#heap = heap;
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) this.#siftDown(i);
  }

  #push(entry: WheelEntry): void {
    const heap = this.#heap;
    let i = heap.length;
    heap.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = heap[parent] as WheelEntry;
      if (!before(entry, above)) break;
      heap[i] = above;
      i = parent;
    }
    heap[i] = entry;
  }

  #pop(): WheelEntry {
    const heap = this.#heap;
    const top = heap[0] as WheelEntry;
    const last = heap.pop() as WheelEntry;
    if (heap.length > 0) {
      heap[0] = last;
      this.#siftDown(0);
    }
    return top;
  }

  #siftDown(start: number): void {
    const heap = this.#heap;
    const n = heap.length;
    const entry = heap[start] as WheelEntry;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && before(heap[right] as WheelEntry, heap[child] as WheelEntry)) child = right;
      const below = heap[child] as WheelEntry;
      if (!before(below, entry)) break;
      heap[i] = below;
      i = child;
    }
    heap[i] = entry;
  }
}

function before(a: WheelEntry, b: WheelEntry): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}

/**
 * The wheel's Node timer is armed in this (empty) async context: a deadline's expiry runs in no
 * request's context, rather than in that of whichever request happened to arm the timer.
 */
const rootContext = new AsyncResource('DeadlineWheel');
const native = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, Date: globalThis.Date };
let nativeWheel: DeadlineWheel | undefined;
/** Wheels on fake timers (a test's `mock.timers`), by fake `setTimeout`, then by `Date`. */
const fakeWheels = new WeakMap<object, WeakMap<object, DeadlineWheel>>();

/**
 * The wheel for deadlines started now: one per process on Node's timers, timed by the monotonic
 * `performance.now()`. While a test fakes `setTimeout` or `Date` (node:test's `mock.timers`,
 * installed on `globalThis`), deadlines started meanwhile go to a wheel of their own on those
 * fakes, timed by the fake `Date` if there is one: they fire when the test's time says so, as a
 * `setTimeout` of their own would; deadlines already running stay on the real wheel.
 */
export function currentWheel(): DeadlineWheel {
  const setTimer = globalThis.setTimeout;
  const DateNow = globalThis.Date;
  if (setTimer === native.setTimeout && DateNow === native.Date) {
    return (nativeWheel ??= new DeadlineWheel({
      setTimeout: (callback, ms) => rootContext.runInAsyncScope(() => native.setTimeout(callback, ms)),
      clearTimeout: (handle) => native.clearTimeout(handle as NodeJS.Timeout),
      now: () => performance.now(),
      trustTimer: false,
    }));
  }
  let byDate = fakeWheels.get(setTimer);
  if (byDate === undefined) fakeWheels.set(setTimer, (byDate = new WeakMap()));
  let wheel = byDate.get(DateNow);
  if (wheel === undefined) {
    const clearTimer = globalThis.clearTimeout;
    wheel = new DeadlineWheel({
      setTimeout: (callback, ms) => setTimer(callback, ms),
      clearTimeout: (handle) => clearTimer(handle as NodeJS.Timeout),
      now: DateNow === native.Date ? () => performance.now() : () => DateNow.now(),
      trustTimer: true,
    });
    byDate.set(DateNow, wheel);
  }
  return wheel;
}

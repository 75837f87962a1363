import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { McpError } from '../errors/mcp-error.js';
import { withDeadline } from '../testing/with-deadline.js';
import { Deadline } from './deadline.js';
import { currentWheel } from './deadline-wheel.js';

/** A deadline whose expiries are recorded. */
function watched(timeoutMs: number, maxMs = timeoutMs): { deadline: Deadline; expired: McpError[] } {
  const expired: McpError[] = [];
  return { deadline: new Deadline(timeoutMs, maxMs, (error) => expired.push(error)), expired };
}

/** Node's ref'd timers: what keeps the process alive. */
const refTimers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('Deadline (on the test\'s clock)', () => {
  test('expires once, at its timeout and not a ms before, with -32001 "Request timed out" naming the timeout', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const { expired } = watched(40, 1000);
    t.mock.timers.tick(39);
    assert.equal(expired.length, 0);
    t.mock.timers.tick(1);
    t.mock.timers.tick(1000);
    assert.equal(expired.length, 1);
    assert.deepEqual({ ...expired[0]?.toJSON() }, { code: -32001, message: 'Request timed out', data: { timeout: 40 } });
  });

  test('a cleared deadline never expires; extend() after clear() does nothing', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const { deadline, expired } = watched(40);
    t.mock.timers.tick(39);
    deadline.clear();
    deadline.extend();
    deadline.clear();
    t.mock.timers.tick(1000);
    assert.equal(expired.length, 0);
  });

  test('extend() restarts the countdown, but never past the maximum from the start', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const { deadline, expired } = watched(40, 100);
    t.mock.timers.tick(30);
    deadline.extend();
    t.mock.timers.tick(39);
    assert.equal(expired.length, 0, 'at 69: extended at 30 to 70');
    t.mock.timers.tick(1);
    assert.equal(expired.length, 1, 'at 70');
    const capped = watched(40, 100);
    for (let at = 30; at <= 90; at += 30) {
      t.mock.timers.tick(30);
      capped.deadline.extend();
    }
    t.mock.timers.tick(9);
    assert.equal(capped.expired.length, 0, '99 ms after its start');
    t.mock.timers.tick(1);
    assert.equal(capped.expired.length, 1, 'at its maximum, 100 ms after its start, though extended 10 ms ago');
  });

  test('a maximum below the timeout is the timeout', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const { deadline, expired } = watched(40, 10);
    t.mock.timers.tick(30);
    deadline.extend();
    t.mock.timers.tick(9);
    assert.equal(expired.length, 0);
    t.mock.timers.tick(1);
    assert.equal(expired.length, 1);
  });

  test('extend() or clear() after it expired does nothing', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const { deadline, expired } = watched(10, 1000);
    t.mock.timers.tick(10);
    deadline.extend();
    deadline.clear();
    t.mock.timers.tick(1000);
    assert.equal(expired.length, 1);
  });

  test('an expiry that clears or extends another deadline due at the same time stops it', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const later: Deadline[] = [];
    const first = new Deadline(10, 1000, () => later[0]?.clear());
    const second = watched(10, 1000);
    const third = new Deadline(10, 1000, () => later[1]?.extend());
    const fourth = watched(10, 1000);
    later.push(second.deadline, fourth.deadline);
    void first;
    void third;
    t.mock.timers.tick(10);
    assert.deepEqual([second.expired.length, fourth.expired.length], [0, 0]);
    t.mock.timers.tick(10);
    assert.deepEqual([second.expired.length, fourth.expired.length], [0, 1], 'the extended one, 10 ms later');
  });

  test('with setTimeout faked and the real Date, a deadline expires when the test\'s timer says so', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { expired } = watched(60_000);
    t.mock.timers.tick(59_999);
    assert.equal(expired.length, 0);
    t.mock.timers.tick(1);
    assert.equal(expired.length, 1);
  });
});

describe('Deadline (on the real clock)', () => {
  test('expires no earlier than its timeout', async () => {
    const started = performance.now();
    const expired = await withDeadline(new Promise<number>((resolve) => new Deadline(25, 25, () => resolve(performance.now()))), { what: 'the deadline to expire' });
    assert.ok(expired - started >= 25, `expired after ${expired - started} ms`);
  });

  test('an expiry runs in no request\'s async context, not in that of the request that armed the shared timer', async () => {
    const context = new AsyncLocalStorage<string>();
    const seen = await withDeadline(
      new Promise<Array<string | undefined>>((resolve) => {
        const stores: Array<string | undefined> = [];
        const expire = (): void => void (stores.push(context.getStore()) === 2 && resolve(stores));
        context.run('request 1', () => new Deadline(10, 10, expire));
        context.run('request 2', () => new Deadline(10, 10, expire));
      }),
      { what: 'both deadlines to expire' },
    );
    assert.deepEqual(seen, [undefined, undefined]);
  });

  test('pending deadlines keep the process alive with one timer between them; none pending, none', (t) => {
    const before = refTimers();
    const deadlines = Array.from({ length: 100 }, () => new Deadline(60_000, 600_000, () => assert.fail('expired')));
    t.after(() => deadlines.forEach((deadline) => deadline.clear()));
    assert.equal(refTimers(), before + 1, 'one timer for a hundred deadlines');
    for (const deadline of deadlines.slice(1)) deadline.clear();
    assert.equal(refTimers(), before + 1, 'one pending');
    deadlines[0]?.clear();
    assert.equal(refTimers(), before, 'none pending: nothing keeps the process alive');
    const again = new Deadline(60_000, 600_000, () => assert.fail('expired'));
    deadlines.push(again);
    assert.equal(refTimers(), before + 1);
    again.clear();
    assert.equal(refTimers(), before);
  });

  test('a million deadlines started and cleared leave the wheel small', (t) => {
    const wheel = currentWheel();
    const pending = Array.from({ length: 10 }, () => new Deadline(600_000, 600_000, () => assert.fail('expired')));
    // Even when an assertion fails: a pending deadline would keep this file's process alive.
    t.after(() => pending.forEach((deadline) => deadline.clear()));
    let most = 0;
    for (let i = 0; i < 1_000_000; i++) {
      const deadline = new Deadline(60_000, 600_000, () => assert.fail('expired'));
      if (i % 2 === 0) deadline.extend();
      deadline.clear();
      if (wheel.held > most) most = wheel.held;
    }
    assert.equal(wheel.pending, 10);
    assert.ok(most <= 2 * 11 + 64 + 1, `at most ${most} entries held`);
    for (const deadline of pending) deadline.clear();
    assert.deepEqual([wheel.pending, wheel.held], [0, 0]);
  });

  /** Runs `code` (an ES module that may import `DEADLINE`, this directory's deadline.ts) in a child process. */
  async function child(code: string): Promise<{ code: number | null; out: string }> {
    const url = new URL('./deadline.ts', import.meta.url).href;
    const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code.replace('DEADLINE', url)], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const exited = new Promise<number | null>((resolve) => proc.on('close', resolve));
    try {
      return { code: await withDeadline(exited, { what: 'the child process to exit' }), out };
    } finally {
      proc.kill();
    }
  }

  test('a process whose deadlines were all cleared exits; one with a deadline pending waits for it', async () => {
    const cleared = await child(`
      import { Deadline } from 'DEADLINE';
      const deadlines = [new Deadline(600000, 600000, () => console.log('expired')), new Deadline(60000, 600000, () => console.log('expired'))];
      deadlines[1].extend();
      for (const deadline of deadlines) deadline.clear();
      console.log('cleared');
    `);
    assert.deepEqual(cleared, { code: 0, out: 'cleared\n' });
    const pending = await child(`
      import { Deadline } from 'DEADLINE';
      new Deadline(60000, 600000, () => console.log('cleared one expired')).clear();
      new Deadline(50, 50, (error) => console.log('expired', error.code));
    `);
    assert.deepEqual(pending, { code: 0, out: 'expired -32001\n' });
  });
});

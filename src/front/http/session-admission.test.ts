import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import { HttpError } from '../../errors/http-error.js';
import { SessionAdmission } from './session-admission.js';

/** A response stand-in: over once it emits `close`. */
function response(): EventEmitter & { closed: boolean; end(): void } {
  const res = Object.assign(new EventEmitter(), {
    closed: false,
    end(): void {
      res.closed = true;
      res.emit('close');
    },
  });
  return res;
}

function refusal(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof HttpError, `an HttpError, not ${String(error)}`);
    return error;
  }
  assert.fail('admitted, where a refusal was expected');
}

async function refusalOf(promise: Promise<unknown>): Promise<HttpError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof HttpError, `an HttpError, not ${String(error)}`);
    return error;
  }
  assert.fail('admitted, where a refusal was expected');
}

/** Whether `promise` has settled by the time the microtasks queued now have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => (done = true), () => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('SessionAdmission: the limit on sessions starting at once', () => {
  test('admit: up to maxStarting starts, then 503 with Retry-After: 1 at once', () => {
    const admission = new SessionAdmission({ maxStarting: 2 });
    admission.admit();
    admission.admit();
    assert.equal(admission.starting, 2);
    const error = refusal(() => admission.admit());
    assert.equal(error.status, 503);
    assert.equal(error.headers['retry-after'], '1');
    assert.deepEqual(JSON.parse(error.body()), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Service Unavailable: 2 sessions are starting; try again shortly' },
    });
    assert.equal(admission.starting, 2, 'a refusal takes no place');
    assert.equal(admission.refused, 1);
  });

  test('an ended start frees its place, once however often it is ended', () => {
    const admission = new SessionAdmission({ maxStarting: 1 });
    const end = admission.admit();
    refusal(() => admission.admit());
    end();
    end();
    assert.equal(admission.starting, 0);
    admission.admit();
    assert.equal(admission.starting, 1);
    refusal(() => admission.admit());
  });

  test('Retry-After says what it is given', () => {
    const admission = new SessionAdmission({ maxStarting: 1, retryAfterSeconds: 3 });
    admission.admit();
    assert.equal(refusal(() => admission.admit()).headers['retry-after'], '3');
  });

  test('admitFor: the start lasts until its response is over, whichever way it ends', async () => {
    const admission = new SessionAdmission({ maxStarting: 2, maxWaiting: 0 });
    const answered = response();
    const vanished = response();
    assert.equal(await admission.admitFor(answered), true);
    assert.equal(await admission.admitFor(vanished), true);
    assert.equal((await refusalOf(admission.admitFor(response()))).status, 503);
    answered.end();
    assert.equal(admission.starting, 1);
    vanished.emit('close');
    assert.equal(admission.starting, 0);
    assert.equal(answered.listenerCount('close') + vanished.listenerCount('close'), 0, 'nothing left listening');
  });

  test('admitFor: a response already over takes no place and starts nothing', async () => {
    const admission = new SessionAdmission({ maxStarting: 1 });
    const gone = response();
    gone.end();
    assert.equal(await admission.admitFor(gone), false);
    assert.equal(admission.starting, 0);
    assert.equal(await admission.admitFor(response()), true);
    assert.equal(admission.starting, 1);
  });

  test('admitFor: beyond maxStarting a start waits its turn, in arrival order, and takes the place an ended start frees', async () => {
    const admission = new SessionAdmission({ maxStarting: 1 });
    const first = response();
    await admission.admitFor(first);
    const second = response();
    const third = response();
    const secondIn = admission.admitFor(second);
    const thirdIn = admission.admitFor(third);
    assert.equal(admission.waiting, 2);
    assert.equal(await settled(secondIn), false, 'the second waits while the first starts');
    first.end();
    assert.equal(await secondIn, true);
    assert.equal(await settled(thirdIn), false, 'the third waits for the second');
    assert.equal(admission.starting, 1);
    second.end();
    assert.equal(await thirdIn, true);
    third.end();
    assert.equal(admission.starting, 0);
    assert.equal(admission.waiting, 0);
  });

  test('admitFor: a full line is refused at once with 503; a wait longer than maxWaitMs is refused with 503', async () => {
    const admission = new SessionAdmission({ maxStarting: 1, maxWaiting: 1, maxWaitMs: 20 });
    await admission.admitFor(response());
    const waiting = admission.admitFor(response());
    const full = await refusalOf(admission.admitFor(response()));
    assert.equal(full.status, 503);
    assert.match(full.message, /1 sessions are starting and 1 wait/);
    const late = await refusalOf(waiting);
    assert.equal(late.status, 503);
    assert.equal(late.headers['retry-after'], '1');
    assert.match(late.message, /within 20 ms/);
    assert.equal(admission.waiting, 0);
    assert.equal(admission.starting, 1, 'the refused waiter took no place');
    assert.equal(admission.refused, 2);
  });

  test('admitFor: a client that leaves while waiting gives up its turn, and resolves false', async () => {
    const admission = new SessionAdmission({ maxStarting: 1 });
    const first = response();
    await admission.admitFor(first);
    const leaver = response();
    const left = admission.admitFor(leaver);
    const next = response();
    const nextIn = admission.admitFor(next);
    leaver.end();
    assert.equal(await left, false);
    assert.equal(admission.waiting, 1);
    first.end();
    assert.equal(await nextIn, true, 'the place went to the one still waiting');
    assert.equal(leaver.listenerCount('close'), 0, 'nothing left listening on the gone response');
  });

  test('limits that are not whole numbers (or below their least) are refused at construction', () => {
    for (const maxStarting of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => new SessionAdmission({ maxStarting }), RangeError, String(maxStarting));
    }
    assert.throws(() => new SessionAdmission({ maxStarting: 1, retryAfterSeconds: -1 }), RangeError);
    assert.throws(() => new SessionAdmission({ maxStarting: 1, maxWaiting: -1 }), RangeError);
    assert.throws(() => new SessionAdmission({ maxStarting: 1, maxWaitMs: 1.5 }), RangeError);
  });
});

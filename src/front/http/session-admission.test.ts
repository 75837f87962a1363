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

describe('SessionAdmission: the limit on sessions starting at once', () => {
  test('admits up to maxStarting starts, then refuses with 503 and Retry-After: 1', () => {
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

  test('admitFor: the start lasts until its response is over, whichever way it ends', () => {
    const admission = new SessionAdmission({ maxStarting: 2 });
    const answered = response();
    const vanished = response();
    admission.admitFor(answered);
    admission.admitFor(vanished);
    assert.equal(refusal(() => admission.admitFor(response())).status, 503);
    answered.end();
    assert.equal(admission.starting, 1);
    vanished.emit('close');
    assert.equal(admission.starting, 0);
    assert.equal(answered.listenerCount('close') + vanished.listenerCount('close'), 0, 'nothing left listening');
  });

  test('admitFor: a response already over takes no place (its close event will not come again)', () => {
    const admission = new SessionAdmission({ maxStarting: 1 });
    const gone = response();
    gone.end();
    admission.admitFor(gone);
    assert.equal(admission.starting, 0);
    admission.admitFor(response());
    assert.equal(admission.starting, 1);
  });

  test('a limit that is not a whole number of at least 1 is refused at construction', () => {
    for (const maxStarting of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => new SessionAdmission({ maxStarting }), RangeError, String(maxStarting));
    }
    assert.throws(() => new SessionAdmission({ maxStarting: 1, retryAfterSeconds: -1 }), RangeError);
  });
});

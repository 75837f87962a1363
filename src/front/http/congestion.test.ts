import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import { Congestion } from './congestion.js';

/** A connection stand-in: `write` answers what the test says; 'drain' and 'close' as emitted. */
function connection(room: boolean): ServerResponse & EventEmitter {
  const res = new EventEmitter() as ServerResponse & EventEmitter;
  Object.assign(res, { write: () => room });
  return res;
}

describe('Congestion: flow control of one HTTP session', () => {
  test('a full connection holds the session back until it drains', () => {
    const reports: boolean[] = [];
    const congestion = new Congestion((congested) => reports.push(congested));
    const res = connection(false);
    congestion.write(res, 'x');
    congestion.write(res, 'y');
    assert.deepEqual(reports, [true]);
    res.emit('drain');
    assert.deepEqual(reports, [true, false]);
    assert.equal(res.listenerCount('drain') + res.listenerCount('close'), 0, 'nothing left listening');
  });

  test('a client that vanishes while held back releases the hold, and nothing keeps its connection', () => {
    const reports: boolean[] = [];
    const congestion = new Congestion((congested) => reports.push(congested));
    const res = connection(false);
    congestion.full(res);
    res.emit('close');
    assert.deepEqual(reports, [true, false]);
    assert.equal(res.listenerCount('drain') + res.listenerCount('close'), 0);
    res.emit('drain');
    assert.deepEqual(reports, [true, false], 'a late drain changes nothing');
  });

  test('held back while any connection is full; released when the last one drains or closes', () => {
    const reports: boolean[] = [];
    const congestion = new Congestion((congested) => reports.push(congested));
    const a = connection(false);
    const b = connection(false);
    congestion.full(a);
    congestion.full(b);
    a.emit('close');
    assert.deepEqual(reports, [true]);
    b.emit('drain');
    assert.deepEqual(reports, [true, false]);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { quietDownstream, StatusTerminal, testSession } from '../../core/_test/status-terminal.js';
import type { UpstreamStatus } from '../../core/upstream-status.js';
import { shared } from './shared.js';

describe('shared upstream: status', () => {
  test("every session sees the one connection's events; a session that ended is told no more", async () => {
    const terminal = new StatusTerminal();
    const upstream = shared(terminal);
    const a = upstream.connect(quietDownstream, testSession('a'));
    const b = upstream.connect(quietDownstream, testSession('b'));
    assert.equal(terminal.connects, 1);
    const seenA: UpstreamStatus[] = [];
    const seenB: UpstreamStatus[] = [];
    a.onStatus?.((event) => seenA.push(event));
    b.onStatus?.((event) => seenB.push(event));

    terminal.status.down('exited (code 1)');
    terminal.status.up(true);
    await b.close();
    terminal.status.down('exited (code 2)');

    assert.deepEqual(seenA, [
      { state: 'down', reason: 'exited (code 1)' },
      { state: 'up', restarted: true },
      { state: 'down', reason: 'exited (code 2)' },
    ]);
    assert.deepEqual(seenB, [{ state: 'down', reason: 'exited (code 1)' }, { state: 'up', restarted: true }]);
    await upstream.close();
  });
});

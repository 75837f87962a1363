import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { quietDownstream, StatusTerminal, testSession } from '../core/_test/status-terminal.js';
import type { UpstreamStatus } from '../core/upstream-status.js';
import { local } from '../upstream/local.js';
import { chain } from './chain.js';
import type { Middleware } from './middleware.js';

const passOn: Middleware = (_ctx, next) => next();

describe('Chain: upstream status', () => {
  test("a chain's connection tells its terminal's events unchanged, in order, through nested chains, until unsubscribed", () => {
    const terminal = new StatusTerminal();
    const connection = chain(passOn).to(chain(passOn).to(terminal)).connect(quietDownstream, testSession());
    assert.ok(connection.onStatus);
    const seen: UpstreamStatus[] = [];
    const stop = connection.onStatus((event) => seen.push(event));
    terminal.status.down('exited (code 3)');
    terminal.status.up(true);
    stop();
    terminal.status.down('exited (code 4)');
    assert.deepEqual(seen, [{ state: 'down', reason: 'exited (code 3)' }, { state: 'up', restarted: true }]);
  });

  test('over a terminal that never goes down (local), listening is allowed and tells nothing', () => {
    const connection = chain().to(local({})).connect(quietDownstream, testSession());
    const seen: UpstreamStatus[] = [];
    const stop = connection.onStatus?.((event) => seen.push(event));
    assert.equal(typeof stop, 'function');
    stop?.();
    assert.deepEqual(seen, []);
  });
});

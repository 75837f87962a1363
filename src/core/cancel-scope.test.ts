import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CancelScope, onAbort } from './cancel-scope.js';

describe('onAbort', () => {
  test('a CancelScope: the callback runs once on abort, with the reason; unsubscribing stops it', () => {
    const scope = new CancelScope();
    const seen: unknown[] = [];
    onAbort(scope, (reason) => seen.push(reason));
    const off = onAbort(scope, () => seen.push('unsubscribed'));
    off();
    scope.abort('stop');
    scope.abort('again');
    assert.deepEqual(seen, ['stop']);
  });

  test('an AbortSignal: the callback runs on abort; at once when it is aborted already', () => {
    const controller = new AbortController();
    const seen: unknown[] = [];
    onAbort(controller.signal, (reason) => seen.push(reason));
    controller.abort('stop');
    onAbort(controller.signal, (reason) => seen.push(`late ${String(reason)}`));
    assert.deepEqual(seen, ['stop', 'late stop']);
  });

  test("a scope made by a second copy of this module (a chain file importing mcp-chain's sources) is a CancelScope too", () => {
    // The same shape, another class: what `instanceof` would reject.
    class OtherCopyScope {
      readonly callbacks: Array<(reason: unknown) => void> = [];
      readonly aborted = false;
      readonly reason = undefined;
      get signal(): AbortSignal {
        throw new Error('the signal is not needed');
      }
      onAbort(callback: (reason: unknown) => void): () => void {
        this.callbacks.push(callback);
        return () => undefined;
      }
    }
    const scope = new OtherCopyScope();
    const seen: unknown[] = [];
    onAbort(scope as unknown as CancelScope, (reason) => seen.push(reason));
    for (const callback of scope.callbacks) callback('stop');
    assert.deepEqual(seen, ['stop']);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CancelScope } from '../core/cancel-scope.js';
import type { Downstream } from '../core/downstream.js';
import { requestScope } from '../core/request-scope.js';
import type { SessionInfo } from '../core/session-info.js';
import { CancelledError } from '../errors/cancelled-error.js';
import { McpError } from '../errors/mcp-error.js';
import { silentLogger } from '../log/stderr-logger.js';
import type { Reply } from '../message/jsonrpc.js';
import { createContext, type Context } from './context.js';
import { watchOutcome, type Outcome } from './watch-outcome.js';

const session: SessionInfo = { id: 's', protocolVersion: '2025-11-25', clientInfo: undefined, clientCapabilities: undefined, log: silentLogger };
const downstream: Downstream = { request: () => Promise.resolve({}), notify: () => Promise.resolve() };

function call(cancel = new CancelScope()): Context {
  return createContext({ message: { method: 'tools/call', params: { name: 't' } }, kind: 'request', direction: 'toUpstream', session, downstream, scope: requestScope(cancel, undefined) });
}

/** Every report, in order. */
function reports(): { seen: Array<[Outcome, unknown]>; report: (outcome: Outcome, error?: unknown) => void } {
  const seen: Array<[Outcome, unknown]> = [];
  return { seen, report: (outcome, error) => void seen.push([outcome, error]) };
}

describe('watchOutcome', () => {
  test('a reply is ok, a tool result with isError is isError; the reply is passed on', async () => {
    for (const [reply, outcome] of [[{ content: [] }, 'ok'], [{ content: [], isError: true }, 'isError']] as const) {
      const { seen, report } = reports();
      assert.deepEqual(await watchOutcome(call(), () => Promise.resolve(reply), report), reply);
      assert.deepEqual(seen, [[outcome, undefined]]);
    }
  });

  test('an error is reported with the error, and rethrown', async () => {
    const { seen, report } = reports();
    const failure = new McpError(-32602, 'Invalid params');
    await assert.rejects(watchOutcome(call(), () => Promise.reject(failure), report), failure);
    assert.deepEqual(seen, [['error', failure]]);
  });

  test("a client's cancel is reported at once as cancelled (the upstream may never answer); a later answer is not reported again", async () => {
    const cancel = new CancelScope();
    const { seen, report } = reports();
    let answer: (reply: Reply) => void = () => undefined;
    const pending = watchOutcome(call(cancel), () => new Promise<Reply>((resolve) => (answer = resolve)), report);
    cancel.abort(new CancelledError('the client cancelled'));
    assert.deepEqual(seen.map(([outcome]) => outcome), ['cancelled']);
    answer({ content: [] });
    await pending;
    assert.equal(seen.length, 1);
  });

  test('any other abort (a deadline, a session that ended) is an error with its reason', async () => {
    const cancel = new CancelScope();
    const { seen, report } = reports();
    const deadline = new McpError(-32001, 'Request timed out');
    const pending = watchOutcome(call(cancel), () => new Promise<Reply>((_resolve, reject) => cancel.onAbort(reject)), report);
    cancel.abort(deadline);
    await assert.rejects(pending, deadline);
    assert.deepEqual(seen, [['error', deadline]]);
  });
});

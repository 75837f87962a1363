import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { ChainError } from '../../errors/chain-error.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Result } from '../../message/jsonrpc.js';
import { harness } from '../../testing/harness.js';
import { scripted } from '../_test/scripted.js';
import { backoffDelay } from './backoff.js';
import { retry, type RetryCodeOptions, type RetryOptions } from './index.js';

const ok: Result = { content: [{ type: 'text', text: 'ok' }] };

/**
 * An upstream whose tools/call fails with each of `failures` in turn (an McpError, or a result),
 * then answers `ok`; `calls()` counts the calls that reached it.
 */
function flaky(failures: ReadonlyArray<McpError | Result>) {
  let n = 0;
  const upstream = scripted({
    'tools/call': () => {
      const failure = failures[n++];
      if (failure instanceof McpError) throw failure;
      return failure ?? ok;
    },
    'tools/list': () => ({
      tools: [
        { name: 'hinted', inputSchema: { type: 'object' }, annotations: { idempotentHint: true } },
        { name: 'plain', inputSchema: { type: 'object' }, annotations: { idempotentHint: false } },
      ],
    }),
  });
  return { upstream, calls: () => upstream.received.filter((m) => m.method === 'tools/call').length };
}

const closed = (): McpError => new McpError(-32000, 'Connection closed');
const timedOut = (): McpError => new McpError(-32001, 'Request timed out');

/** Deterministic backoff: random() is 0.5, waits are recorded and end at once. */
function clock(): { delays: number[]; options: RetryCodeOptions } {
  const delays: number[] = [];
  return { delays, options: { random: () => 0.5, sleep: (ms) => (delays.push(ms), Promise.resolve()) } };
}

async function callOnce(options: RetryOptions & RetryCodeOptions, failures: ReadonlyArray<McpError | Result>, name = 'search') {
  const { upstream, calls } = flaky(failures);
  const h = await harness(chain(retry(options)).to(upstream));
  try {
    const response = await h.call('tools/call', { name, arguments: {} });
    return { response, calls: calls() };
  } finally {
    await h.close();
  }
}

describe('retry', () => {
  test('nothing is retried by default', async () => {
    const { response, calls } = await callOnce({}, [closed()]);
    assert.deepEqual(response.error, { code: -32000, message: 'Connection closed' });
    assert.equal(calls, 1);
  });

  test('a tool configured safe is retried on -32000 and -32001, with exponential backoff and full jitter', async () => {
    const { delays, options } = clock();
    const { response, calls } = await callOnce({ tools: ['sea*'], maxAttempts: 4, initialDelayMs: 100, ...options }, [closed(), timedOut(), closed()]);
    assert.deepEqual(response.result, ok);
    assert.equal(calls, 4);
    assert.deepEqual(delays, [50, 100, 200]);
  });

  test('after maxAttempts the last failure reaches the client', async () => {
    const { options } = clock();
    const { response, calls } = await callOnce({ tools: ['search'], maxAttempts: 2, ...options }, [closed(), timedOut(), closed()]);
    assert.deepEqual(response.error, { code: -32001, message: 'Request timed out' });
    assert.equal(calls, 2);
  });

  test('other errors, and failures not listed in `on`, are not retried', async () => {
    const { options } = clock();
    assert.equal((await callOnce({ tools: ['search'], ...options }, [new McpError(-32602, 'Unknown tool: search')])).calls, 1);
    assert.equal((await callOnce({ tools: ['search'], on: ['timeout'], ...options }, [closed()])).calls, 1);
    assert.equal((await callOnce({ tools: ['search'], on: ['connectionClosed'], ...options }, [timedOut()])).calls, 1);
  });

  test("isError results are retried only when `on` lists 'isError'", async () => {
    const { options } = clock();
    const failed: Result = { content: [{ type: 'text', text: 'busy' }], isError: true };
    const plain = await callOnce({ tools: ['search'], ...options }, [failed]);
    assert.deepEqual([plain.response.result, plain.calls], [failed, 1]);
    const opted = await callOnce({ tools: ['search'], on: ['isError'], ...options }, [failed, failed]);
    assert.deepEqual([opted.response.result, opted.calls], [ok, 3]);
    const exhausted = await callOnce({ tools: ['search'], on: ['isError'], maxAttempts: 2, ...options }, [failed, failed]);
    assert.deepEqual([exhausted.response.result, exhausted.calls], [failed, 2]);
  });

  test('idempotentHint (opted in): tools marked so in the session\'s tools/list are retried, until list_changed', async () => {
    const { options } = clock();
    const { upstream, calls } = flaky([closed(), closed(), closed(), ok, closed()]);
    const h = await harness(chain(retry({ idempotentHint: true, ...options })).to(upstream));
    assert.equal((await h.call('tools/call', { name: 'hinted' })).error !== undefined, true);
    assert.equal(calls(), 1, 'not retried before the list was seen');
    await h.request('tools/list');
    assert.deepEqual((await h.call('tools/call', { name: 'hinted' })).result, ok);
    assert.equal(calls(), 4);
    const changed = h.notification('notifications/tools/list_changed');
    await upstream.notify('notifications/tools/list_changed');
    await changed;
    await h.call('tools/call', { name: 'hinted' });
    assert.equal(calls(), 5, 'forgotten after list_changed');
    await h.close();
  });

  test('idempotentHint is ignored unless opted in, and a tool without the hint is never retried', async () => {
    const { options } = clock();
    const { upstream, calls } = flaky([closed(), closed()]);
    const h = await harness(chain(retry({ ...options })).to(upstream));
    await h.request('tools/list');
    await h.call('tools/call', { name: 'hinted' });
    assert.equal(calls(), 1);
    await h.close();
    const other = flaky([closed(), closed()]);
    const h2 = await harness(chain(retry({ idempotentHint: true, ...options })).to(other.upstream));
    await h2.request('tools/list');
    await h2.call('tools/call', { name: 'plain' });
    assert.equal(other.calls(), 1);
    await h2.close();
  });

  test('a call the client cancels during the wait is not tried again', async () => {
    let waiting!: () => void;
    const asleep = new Promise<void>((resolve) => (waiting = resolve));
    let woken!: () => void;
    const aborted = new Promise<void>((resolve) => (woken = resolve));
    const sleep = (_ms: number, signal: AbortSignal): Promise<void> =>
      new Promise<void>((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          reject(signal.reason);
          woken();
        });
        waiting();
      });
    const { upstream, calls } = flaky([closed(), closed()]);
    const h = await harness(chain(retry({ tools: ['search'], sleep })).to(upstream));
    h.send({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'search' } });
    await asleep;
    h.notify('notifications/cancelled', { requestId: 'c1' });
    await aborted;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(calls(), 1);
    await h.close();
  });

  test('other methods pass through untouched', async () => {
    const { upstream } = flaky([]);
    const h = await harness(chain(retry({ tools: ['*'] })).to(upstream));
    const { tools } = await h.request('tools/list');
    assert.equal(tools.length, 2);
    await h.close();
  });

  test('backoff: the ceiling doubles from initialDelayMs up to maxDelayMs; the wait is random() × ceiling', () => {
    const options = { initialDelayMs: 100, maxDelayMs: 1000, multiplier: 2 };
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, { ...options, random: () => 0.999 })), [99, 199, 399, 799, 999, 999]);
    assert.equal(backoffDelay(3, { ...options, random: () => 0 }), 0);
  });

  test('options out of range are CONFIG errors', () => {
    assert.throws(() => retry({ maxAttempts: 0 }), (error: unknown) => error instanceof ChainError && /retry\.maxAttempts: expected a whole number of at least 1, found 0/.test(error.message));
    assert.throws(() => retry({ initialDelayMs: -1 }), /retry\.initialDelayMs: expected a number of at least 0, found -1/);
  });
});

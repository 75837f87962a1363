import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../chain/chain.js';
import type { ListToolsResult } from '../spec/2025-11-25.js';
import { local } from '../upstream/local.js';
import { harness } from './harness.js';
import { MessageWaiters } from './message-waiters.js';

const server = local({
  name: 'harness-test',
  tools: [{ name: 'echo', description: 'says it back', handler: (args) => ({ content: [{ type: 'text', text: String(args.text) }] }) }],
});

describe('harness: typed requests', () => {
  test('a method of the spec takes its params and resolves to its result type; others take and give plain objects', async () => {
    const h = await harness(chain().to(server));
    const list = await h.request('tools/list');
    const typed: ListToolsResult = list;
    assert.deepEqual(typed.tools.map((tool) => tool.description), ['says it back']);
    const called = await h.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual(called.content.map((block) => block.type), ['text']);
    await assert.rejects(h.request('custom/thing', { any: 'shape' }), /Method not found/);
    if (process.env.NEVER_SET_HARNESS_TYPE_CHECKS) {
      // Type checks only (never run): each line must fail `tsc`, or the directive itself fails.
      // @ts-expect-error tools/call requires params with a name
      await h.request('tools/call');
      // @ts-expect-error a tool's arguments are an object
      await h.request('tools/call', { name: 'echo', arguments: 'text' });
      // @ts-expect-error a tool's name is a string
      const name: number | undefined = (await h.request('tools/list')).tools[0]?.name;
      assert.ok(name);
    }
    await h.close();
  });
});

describe('harness: many requests in flight', () => {
  test('64 requests at once are answered, without a listener-leak warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    const h = await harness(local({ tools: [{ name: 'echo', handler: () => ({ content: [] }) }] }));
    try {
      const answers = await Promise.all(Array.from({ length: 64 }, () => h.request('tools/call', { name: 'echo', arguments: {} })));
      assert.equal(answers.length, 64);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings.map((w) => w.name), []);
    } finally {
      process.off('warning', onWarning);
      await h.close();
    }
  });
});

describe('harness: every wait has a deadline', () => {
  test('a response that never comes fails naming the method and id, and what was received', async () => {
    // It ends when told to (the session cancels it on close), or its 10-minute deadline would outlive the test.
    const hang = local({ tools: [{ name: 'hang', handler: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ content: [] }))) }] });
    const h = await harness(chain().to(hang), { waitTimeoutMs: 50, timeouts: { request: 600_000 } });
    await assert.rejects(
      h.call('tools/call', { name: 'hang' }, 'the-id'),
      /^Error: waited 50 ms for the response to tools\/call \(id "the-id"\); 1 message\(s\) received, the last \{"jsonrpc":"2.0","id":"h1","result":\{"protocolVersion"/,
    );
    await h.close();
  });

  test('next(), waitFor(), notification() and flowChange() fail with what they waited for; a per-call timeout overrides the default', async () => {
    const h = await harness(chain().to(server));
    await assert.rejects(h.next(42, { timeoutMs: 20 }), /waited 20 ms for a response with id 42/);
    await assert.rejects(h.notification('notifications/tools/list_changed', { timeoutMs: 20 }), /waited 20 ms for a notifications\/tools\/list_changed notification/);
    await assert.rejects(h.waitFor((m) => m.method === 'x/never', { timeoutMs: 20 }), /waited 20 ms for a message matching .*m\.method ?=== ?["']x\/never["']/);
    await assert.rejects(h.waitFor(() => false, { timeoutMs: 20, what: 'the answer to everything' }), /waited 20 ms for the answer to everything/);
    await assert.rejects(h.flowChange({ timeoutMs: 20 }), /waited 20 ms for the chain to stop or resume reading/);
    // A response that does come still reaches a later waiter for its id: the timed-out one left nothing behind.
    assert.deepEqual((await h.call('tools/list', undefined, 42)).id, 42);
    await h.close();
  });

  test('a wait that is satisfied, or expires, clears its timer and its listener', async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const waiters = new MessageWaiters(60_000);
    const seen = waiters.waitFor((m) => m.n === 2);
    assert.equal(timers(), before + 1);
    waiters.deliver({ n: 1 });
    assert.equal(waiters.pending, 1);
    waiters.deliver({ n: 2 });
    assert.deepEqual(await seen, { n: 2 });
    assert.equal(waiters.pending, 0);
    assert.equal(timers(), before);
    await assert.rejects(waiters.waitFor(() => true, { timeoutMs: 1 }));
    assert.equal(waiters.pending, 0);
    assert.equal(timers(), before);
  });

  test('a wait nobody awaits stops holding the process once the harness closes', async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const h = await harness(chain().to(server), { waitTimeoutMs: 30 });
    const before = timers();
    void h.next('never');
    void h.notification('notifications/never');
    assert.equal(timers(), before + 2);
    await h.close();
    assert.equal(timers(), before);
  });

  test('a wait that expires unawaited is no unhandled rejection (which would fail this file)', async () => {
    const waiters = new MessageWaiters();
    void waiters.waitFor(() => false, { timeoutMs: 1 });
    await assert.rejects(waiters.waitFor(() => false, { timeoutMs: 20 }), /waited 20 ms/);
  });
});

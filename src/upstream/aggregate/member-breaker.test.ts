import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import { harness, type Harness } from '../../testing/harness.js';
import { ScriptedMember, tool } from './_test/scripted-member.js';
import { aggregate } from './aggregate.js';

const open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

/** A member that is up and answers `tools/call` with what `next` gives, counting the calls it got. */
function flaky(next: () => Error | undefined): ScriptedMember & { calls: () => number } {
  const member = new ScriptedMember({ tools: {} }, {
    'tools/list': () => ({ tools: [tool('work')] }),
    'tools/call': () => {
      const error = next();
      if (error) throw error;
      return { content: [{ type: 'text', text: 'done' }] };
    },
  });
  return Object.assign(member, { calls: () => member.received.filter((m) => m.method === 'tools/call').length });
}

const broken = (): McpError => new McpError(ErrorCode.ConnectionClosed, 'Upstream flaky answered HTTP 502', { status: 502 });

async function start(member: ScriptedMember, clock: { t: number }): Promise<Harness> {
  const gateway = aggregate(
    [{ name: 'flaky', upstream: member }, { name: 'steady', upstream: new ScriptedMember({ tools: {} }, { 'tools/list': () => ({ tools: [] }) }) }],
    { retry: { initialDelayMs: 5, maxDelayMs: 20 }, breaker: { failureThreshold: 3, openMs: 1000, factor: 2, maxOpenMs: 4000, now: () => clock.t } },
  );
  const h = await harness(gateway);
  open.push(h);
  h.notify('notifications/initialized');
  return h;
}

const call = (h: Harness): Promise<unknown> => h.request('tools/call', { name: 'flaky__work', arguments: {} });

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: unknown; data?: unknown }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error);
    return error;
  }
  assert.fail('expected an error');
}

describe('aggregate: the circuit breaker of a member that is up but keeps failing', () => {
  test('N failures open it: calls fail fast naming the member; after the open time one probe closes it again; no list_changed', async () => {
    const clock = { t: 0 };
    let failuresLeft = 3;
    const member = flaky(() => (failuresLeft-- > 0 ? broken() : undefined));
    const h = await start(member, clock);
    for (let i = 0; i < 3; i++) assert.equal((await rejection(call(h))).code, ErrorCode.ConnectionClosed);
    assert.equal(member.calls(), 3);

    clock.t = 400;
    const fast = await rejection(call(h));
    assert.equal(fast.code, ErrorCode.ConnectionClosed);
    assert.equal(fast.message, 'Server "flaky" is unavailable: circuit open after 3 failures (last: Upstream flaky answered HTTP 502)');
    assert.deepEqual(fast.data, { server: 'flaky', reason: 'circuit open after 3 failures (last: Upstream flaky answered HTTP 502)', retryInMs: 600 });
    assert.equal(member.calls(), 3, 'an open circuit does not reach the member');

    clock.t = 1000; // half-open: the next call probes, and the member has recovered
    assert.deepEqual(await call(h), { content: [{ type: 'text', text: 'done' }] });
    assert.deepEqual(await call(h), { content: [{ type: 'text', text: 'done' }] });
    assert.equal(member.calls(), 5);

    // The member never went down: its tools stay listed, and the client heard no list_changed.
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['flaky__work']);
    assert.deepEqual(h.notifications('notifications/tools/list_changed'), []);
  });

  test('a probe that fails opens it again for longer, up to the ceiling', async () => {
    const clock = { t: 0 };
    const member = flaky(() => new McpError(ErrorCode.RequestTimeout, 'Upstream flaky did not answer in time'));
    const h = await start(member, clock);
    for (let i = 0; i < 3; i++) await rejection(call(h));
    const waits: unknown[] = [];
    for (let round = 0; round < 4; round++) {
      const { retryInMs } = (await rejection(call(h))).data as { retryInMs: number };
      waits.push(retryInMs);
      clock.t += retryInMs;
      assert.equal((await rejection(call(h))).code, ErrorCode.RequestTimeout, 'the probe reaches the member');
    }
    assert.deepEqual(waits, [1000, 2000, 4000, 4000]);
    assert.equal(member.calls(), 7);
    assert.match((await rejection(call(h))).message, /circuit open after 7 failures \(last: Upstream flaky did not answer in time\)/);
  });

  test("errors the server itself answers (-32602, HTTP 4xx) and tool results with isError are not the member's failures", async () => {
    const clock = { t: 0 };
    const answers = [
      new McpError(ErrorCode.InvalidParams, 'bad arguments'),
      new McpError(ErrorCode.ConnectionClosed, 'Upstream flaky answered HTTP 404', { status: 404 }),
      new McpError(ErrorCode.InvalidParams, 'bad arguments'),
      new McpError(ErrorCode.InternalError, 'it broke inside'),
    ];
    let i = 0;
    const member = flaky(() => undefined);
    member.on('tools/call', () => {
      const error = answers[i++ % answers.length];
      if (i % 5 === 0) return { content: [{ type: 'text', text: 'failed' }], isError: true };
      throw error;
    });
    const h = await start(member, clock);
    for (let n = 0; n < 10; n++) await call(h).catch(() => undefined);
    assert.equal(member.calls(), 10, 'every call reached the member');
  });

  test('failures interrupted by an answer never open it', async () => {
    const clock = { t: 0 };
    let n = 0;
    const member = flaky(() => (n++ % 3 === 2 ? undefined : broken()));
    const h = await start(member, clock);
    for (let k = 0; k < 9; k++) await call(h).catch(() => undefined);
    assert.equal(member.calls(), 9);
  });

  test('a member that goes down and comes back starts with its circuit closed', async () => {
    const clock = { t: 0 };
    let failing = true;
    const member = flaky(() => (failing ? broken() : undefined));
    const h = await start(member, clock);
    for (let k = 0; k < 3; k++) await rejection(call(h));
    assert.match((await rejection(call(h))).message, /circuit open/);
    member.down();
    await h.notification('notifications/tools/list_changed');
    failing = false;
    member.up();
    await h.waitFor((m) => m.method === 'notifications/tools/list_changed' && h.notifications('notifications/tools/list_changed').length === 2);
    assert.deepEqual(await call(h), { content: [{ type: 'text', text: 'done' }] });
  });
});

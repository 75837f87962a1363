import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { ChainError } from '../../errors/chain-error.js';
import { harness } from '../../testing/harness.js';
import { local, type LocalTool } from '../../upstream/local.js';
import { timeout, type TimeoutMiddlewareOptions } from './index.js';

/** A tool that answers only when its call is aborted (it never finishes by itself). */
const hanging = (name: string): LocalTool => ({
  name,
  handler: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ content: [] }), { once: true })),
});
const server = local({
  tools: [hanging('slow'), hanging('github__search'), hanging('github__slow_report'), { name: 'quick', handler: () => ({ content: [{ type: 'text', text: 'done' }] }) }],
});

async function errorOf(options: TimeoutMiddlewareOptions, name: string): Promise<unknown> {
  const h = await harness(chain(timeout(options)).to(server));
  try {
    return (await h.call('tools/call', { name, arguments: {} })).error;
  } finally {
    await h.close();
  }
}

describe('timeout', () => {
  test('a call over its deadline gets -32001 naming the tool and the limit', async () => {
    assert.deepEqual(await errorOf({ ms: 20 }, 'slow'), {
      code: -32001,
      message: 'Tool "slow" did not answer within 20 ms (the gateway\'s limit)',
      data: { tool: 'slow', timeout: 20 },
    });
  });

  test('a call within its deadline is answered as usual', async () => {
    const h = await harness(chain(timeout({ ms: 5000 })).to(server));
    assert.deepEqual(await h.request('tools/call', { name: 'quick' }), { content: [{ type: 'text', text: 'done' }] });
    await h.close();
  });

  test('a tool glob wins over its server, which wins over ms', async () => {
    const options: TimeoutMiddlewareOptions = { ms: 40, servers: { github: 30 }, tools: { '*_report': 20 } };
    assert.match(JSON.stringify(await errorOf(options, 'github__slow_report')), /within 20 ms/);
    assert.match(JSON.stringify(await errorOf(options, 'github__search')), /within 30 ms/);
    assert.match(JSON.stringify(await errorOf(options, 'slow')), /within 40 ms/);
    assert.match(JSON.stringify(await errorOf({ servers: { git: 10 }, separator: 'hub__' }, 'github__search')), /within 10 ms/);
  });

  test('a tool no rule covers has no deadline of its own', async () => {
    const h = await harness(chain(timeout({ tools: { other: 10 } })).to(server));
    assert.deepEqual(await h.request('tools/call', { name: 'quick' }), { content: [{ type: 'text', text: 'done' }] });
    await h.close();
  });

  test('when the deadline passes, the upstream is told to cancel', async () => {
    let aborted = false;
    const watched = local({
      tools: [{ name: 'slow', handler: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => ((aborted = true), resolve({ content: [] })), { once: true })) }],
    });
    const h = await harness(chain(timeout({ ms: 20 })).to(watched));
    await h.call('tools/call', { name: 'slow' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(aborted, true);
    await h.close();
  });

  test('deadlines that are not positive whole numbers of ms, or no deadline at all, are CONFIG errors', () => {
    assert.throws(() => timeout({}), (error: unknown) => error instanceof ChainError && /timeout: set ms, tools or servers/.test(error.message));
    assert.throws(() => timeout({ ms: 0 }), /timeout\.ms: expected a whole number of ms of at least 1, found 0/);
    assert.throws(() => timeout({ servers: { a: 1.5 } }), /timeout\.servers\["a"\]/);
  });
});

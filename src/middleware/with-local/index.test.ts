import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { scripted } from '../_test/scripted.js';
import { withLocal } from './index.js';

const remote = () =>
  scripted({
    initialize: () => ({ protocolVersion: '2025-11-25', capabilities: { prompts: {} }, serverInfo: { name: 'remote', version: '1' } }),
    'tools/list': (params) =>
      params.cursor === 'page2'
        ? { tools: [{ name: 'remote_b', inputSchema: { type: 'object' } }, { name: 'clash', description: 'remote', inputSchema: { type: 'object' } }] }
        : { tools: [{ name: 'remote_a', inputSchema: { type: 'object' } }], nextCursor: 'page2' },
    'tools/call': (params) => ({ content: [{ type: 'text', text: `remote ran ${String(params.name)}` }] }),
  });

const extras = local({
  tools: [
    { name: 'whoami', description: 'local', handler: (_args, ctx) => ({ content: [{ type: 'text', text: `session ${ctx.session.id.length > 0}` }] }) },
    { name: 'clash', description: 'local', handler: () => ({ content: [{ type: 'text', text: 'local clash' }] }) },
    {
      name: 'slow',
      handler: async (_args, ctx) => {
        await ctx.progress(1, 2);
        await ctx.progress(2, 2);
        return { content: [{ type: 'text', text: 'done' }] };
      },
    },
    {
      name: 'confirm',
      handler: async (_args, ctx) => {
        const answer = await ctx.downstream.request({ method: 'elicitation/create', params: { message: 'sure?', requestedSchema: { type: 'object', properties: {} } } }, { signal: ctx.signal });
        return { content: [{ type: 'text', text: String(answer.action) }] };
      },
    },
  ],
});

describe('withLocal', () => {
  test('initialize announces the capabilities the local tools need, keeping the upstream ones', async () => {
    const h = await harness(chain(withLocal(extras)).to(remote()), { initialize: false });
    assert.deepEqual((await h.initialize()).capabilities, { prompts: {}, tools: {} });
    await h.close();
  });

  test('local tools are appended to the last page only, and replace an upstream tool of the same name', async () => {
    const h = await harness(chain(withLocal(extras)).to(remote()));
    const first = await h.request('tools/list');
    assert.deepEqual((first.tools as Array<{ name: string }>).map((t) => t.name), ['remote_a']);
    const last = await h.request('tools/list', { cursor: String(first.nextCursor) });
    const tools = last.tools as Array<{ name: string; description?: string }>;
    assert.deepEqual(tools.map((t) => t.name), ['remote_b', 'whoami', 'clash', 'slow', 'confirm']);
    assert.equal(tools.find((t) => t.name === 'clash')?.description, 'local');
    await h.close();
  });

  test('a local tool shadows an upstream namesake on every page, not only the last, and is listed once', async () => {
    const paging = scripted({
      initialize: () => ({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'remote', version: '1' } }),
      'tools/list': (params) =>
        params.cursor === 'page2'
          ? { tools: [{ name: 'remote_b', inputSchema: { type: 'object' } }] }
          : { tools: [{ name: 'clash', description: 'remote', inputSchema: { type: 'object' } }, { name: 'remote_a', inputSchema: { type: 'object' } }], nextCursor: 'page2' },
    });
    const h = await harness(chain(withLocal(extras)).to(paging));
    const first = await h.request('tools/list');
    assert.deepEqual((first.tools as Array<{ name: string }>).map((t) => t.name), ['remote_a']);
    assert.equal(first.nextCursor, 'page2');
    const last = await h.request('tools/list', { cursor: String(first.nextCursor) });
    const all = [...(first.tools as Array<{ name: string; description?: string }>), ...(last.tools as Array<{ name: string; description?: string }>)];
    assert.deepEqual(all.map((t) => t.name), ['remote_a', 'remote_b', 'whoami', 'clash', 'slow', 'confirm']);
    assert.equal(all.find((t) => t.name === 'clash')?.description, 'local');
    await h.close();
  });

  test('a page without a local namesake is passed on as it came', async () => {
    const page = { tools: [{ name: 'remote_a', inputSchema: { type: 'object' } }], nextCursor: 'page2' };
    const h = await harness(chain(withLocal(extras)).to(scripted({ 'tools/list': () => page })));
    assert.deepEqual(await h.request('tools/list'), page);
    await h.close();
  });

  test('calls to local tools are answered in process; others reach the upstream', async () => {
    const upstream = remote();
    const h = await harness(chain(withLocal(extras)).to(upstream));
    assert.deepEqual((await h.request('tools/call', { name: 'clash' })).content, [{ type: 'text', text: 'local clash' }]);
    assert.deepEqual((await h.request('tools/call', { name: 'remote_a' })).content, [{ type: 'text', text: 'remote ran remote_a' }]);
    assert.deepEqual(upstream.received.filter((m) => m.method === 'tools/call').map((m) => m.params?.name), ['remote_a']);
    await h.close();
  });

  test('a local tool reports progress to the caller, with the caller’s token', async () => {
    const h = await harness(chain(withLocal(extras)).to(remote()));
    await h.request('tools/call', { name: 'slow', _meta: { progressToken: 'mine' } });
    assert.deepEqual(h.notifications('notifications/progress').map((n) => n.params), [
      { progressToken: 'mine', progress: 1, total: 2 },
      { progressToken: 'mine', progress: 2, total: 2 },
    ]);
    await h.close();
  });

  test('a local tool can ask the client (elicitation) and use the answer', async () => {
    const h = await harness(chain(withLocal(extras)).to(remote()), { capabilities: { elicitation: {} } });
    h.handle('elicitation/create', () => ({ action: 'accept', content: {} }));
    assert.deepEqual((await h.request('tools/call', { name: 'confirm' })).content, [{ type: 'text', text: 'accept' }]);
    await h.close();
  });
});

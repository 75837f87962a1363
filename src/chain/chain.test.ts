import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scripted } from '../middleware/_test/scripted.js';
import { harness } from '../testing/harness.js';
import { chain } from './chain.js';
import type { Middleware } from './middleware.js';
import { on } from './on.js';
import { mapList } from './map-list.js';
import { when } from './when.js';

/** Records `name:direction:method` for every message it sees. */
function tracer(name: string, trace: string[]): Middleware {
  return async (ctx, next) => {
    trace.push(`${name}:${ctx.direction}:${ctx.method}`);
    return next();
  };
}

const server = () =>
  scripted({
    'tools/list': () => ({ tools: [{ name: 'a', description: 'A', inputSchema: { type: 'object' } }, { name: 'b', inputSchema: { type: 'object' } }] }),
    'tools/call': (params) => ({ content: [{ type: 'text', text: String(params.name) }] }),
  });

describe('Chain', () => {
  test('client→server traffic runs the middleware in order; server→client traffic runs them in reverse', async () => {
    const trace: string[] = [];
    const upstream = server();
    const h = await harness(chain(tracer('one', trace), tracer('two', trace)).to(upstream));
    trace.length = 0;
    await h.request('tools/list');
    const notified = h.notification('notifications/tools/list_changed');
    await upstream.notify('notifications/tools/list_changed');
    await notified;
    h.handle('roots/list', () => ({ roots: [] }));
    await upstream.ask('roots/list');
    assert.deepEqual(trace, [
      'one:toUpstream:tools/list',
      'two:toUpstream:tools/list',
      'two:toDownstream:notifications/tools/list_changed',
      'one:toDownstream:notifications/tools/list_changed',
      'two:toDownstream:roots/list',
      'one:toDownstream:roots/list',
    ]);
    await h.close();
  });

  test('notifications from the client reach the upstream through the middleware', async () => {
    const trace: string[] = [];
    const upstream = server();
    const h = await harness(chain(tracer('one', trace)).to(upstream));
    h.notify('notifications/roots/list_changed');
    await h.request('ping');
    await h.request('tools/list');
    assert.ok(trace.includes('one:toUpstream:notifications/roots/list_changed'));
    assert.ok(upstream.received.some((m) => m.method === 'notifications/roots/list_changed'));
    await h.close();
  });

  test('a chain is an upstream: chains nest, and the outer middleware wrap the inner ones', async () => {
    const trace: string[] = [];
    const inner = chain(tracer('inner', trace)).to(server());
    const h = await harness(chain(tracer('outer', trace)).to(inner));
    trace.length = 0;
    await h.request('tools/call', { name: 'a' });
    assert.deepEqual(trace, ['outer:toUpstream:tools/call', 'inner:toUpstream:tools/call']);
    await h.close();
  });

  test('on() runs only for its method, with typed params and result', async () => {
    const h = await harness(
      chain(
        on('tools/call', async (ctx, next) => {
          const result = await next({ method: 'tools/call', params: { ...ctx.message.params, name: 'b' } });
          return { ...result, content: [...result.content, { type: 'text', text: 'via on()' }] };
        }),
      ).to(server()),
    );
    assert.deepEqual((await h.request('tools/call', { name: 'a' })).content, [
      { type: 'text', text: 'b' },
      { type: 'text', text: 'via on()' },
    ]);
    assert.equal(((await h.request('tools/list')).tools as unknown[]).length, 2);
    await h.close();
  });

  test('mapList() maps and drops list items, keeping the rest of the page', async () => {
    const h = await harness(chain(mapList('tools', (tool) => (tool.name === 'b' ? undefined : { ...tool, description: `[x] ${tool.description ?? ''}` }))).to(server()));
    assert.deepEqual(await h.request('tools/list'), { tools: [{ name: 'a', description: '[x] A', inputSchema: { type: 'object' } }] });
    await h.close();
  });

  test('when() applies a middleware only where the predicate holds', async () => {
    const refuse: Middleware = async () => ({ content: [{ type: 'text', text: 'intercepted' }] });
    const h = await harness(chain(when((ctx) => ctx.message.params?.name === 'b', refuse)).to(server()));
    assert.deepEqual((await h.request('tools/call', { name: 'a' })).content, [{ type: 'text', text: 'a' }]);
    assert.deepEqual((await h.request('tools/call', { name: 'b' })).content, [{ type: 'text', text: 'intercepted' }]);
    await h.close();
  });

  test('a chain without an upstream, or changed after connecting, says so', async () => {
    await assert.rejects(harness(chain()), /the chain has no upstream/);
    const built = chain().to(server());
    const h = await harness(built);
    assert.throws(() => built.use(async (_c, next) => next()), /use\(\) after the chain was connected/);
    await h.close();
  });

  test('close() closes the middleware that hold resources, then the upstream', async () => {
    const closed: string[] = [];
    const holder = Object.assign((async (_c, next) => next()) as Middleware, { close: async () => void closed.push('middleware') });
    const upstream = Object.assign(server(), { close: async () => void closed.push('upstream') });
    await chain(holder).to(upstream).close();
    assert.deepEqual(closed, ['middleware', 'upstream']);
  });

  test("async (ctx, next) => { await next(); } forwards: the client gets the upstream's answer, not -32603", async () => {
    const h = await harness(chain(async (_ctx, next) => {
      await next();
    }).to(server()));
    assert.equal(((await h.request('tools/list')).tools as unknown[]).length, 2);
    assert.deepEqual((await h.request('tools/call', { name: 'b' })).content, [{ type: 'text', text: 'b' }]);
    await h.close();
  });

});

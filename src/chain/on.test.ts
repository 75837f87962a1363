import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scripted } from '../middleware/_test/scripted.js';
import { harness } from '../testing/harness.js';
import { chain } from './chain.js';
import { on } from './on.js';

const server = () =>
  scripted({
    'tools/list': () => ({ tools: [{ name: 'a', inputSchema: { type: 'object' } }] }),
    'prompts/list': () => ({ prompts: [] }),
    'tools/call': (params) => ({ content: [{ type: 'text', text: String(params.name) }] }),
  });

describe('on()', () => {
  test('a list of methods: the handler runs for each of them and for nothing else', async () => {
    const seen: string[] = [];
    const h = await harness(
      chain(
        on(['tools/list', 'prompts/list'], async (ctx, next) => {
          seen.push(ctx.method);
          return next();
        }),
      ).to(server()),
    );
    await h.request('tools/list');
    await h.request('prompts/list');
    await h.request('tools/call', { name: 'a' });
    assert.deepEqual(seen, ['tools/list', 'prompts/list']);
    await h.close();
  });

  test("a pattern ('notifications/*') matches every method it covers, in both directions", async () => {
    const seen: string[] = [];
    const upstream = server();
    const h = await harness(
      chain(
        on('notifications/*', async (ctx, next) => {
          seen.push(`${ctx.direction}:${ctx.method}`);
          return next();
        }),
      ).to(upstream),
    );
    const changed = h.notification('notifications/tools/list_changed');
    await upstream.notify('notifications/tools/list_changed');
    await changed;
    h.notify('notifications/roots/list_changed');
    await h.request('tools/list');
    assert.deepEqual(seen, [
      'toUpstream:notifications/initialized',
      'toDownstream:notifications/tools/list_changed',
      'toUpstream:notifications/roots/list_changed',
    ]);
    await h.close();
  });

  test('params and results are typed from the specification', async () => {
    const h = await harness(
      chain(
        on('tools/call', async (ctx, next) => {
          const name: string | undefined = ctx.message.params?.name;
          const result = await next();
          return { ...result, content: [...result.content, { type: 'text', text: `called ${name ?? '?'}` }] };
        }),
      ).to(server()),
    );
    assert.deepEqual((await h.request('tools/call', { name: 'a' })).content, [
      { type: 'text', text: 'a' },
      { type: 'text', text: 'called a' },
    ]);
    await h.close();
  });

  test('on(ping) and on(notifications/cancelled) are refused, since no middleware ever sees them', () => {
    // @ts-expect-error every hop answers ping itself
    assert.throws(() => on('ping', async (_ctx, next) => next()), /on\('ping'\) would never run/);
    // @ts-expect-error a cancellation reaches middleware as ctx.signal
    assert.throws(() => on('notifications/cancelled', async (_ctx, next) => next()), /ctx\.signal/);
    // @ts-expect-error also inside a list
    assert.throws(() => on(['tools/list', 'ping'], async (_ctx, next) => next()), /on\('ping'\)/);
    assert.throws(() => on([], async (_ctx, next) => next()), /at least one method/);
  });

  test('methods outside the specification and mixed lists take an untyped middleware', async () => {
    const seen: string[] = [];
    const h = await harness(
      chain(
        on(['x-acme/status', 'tools/list'], async (ctx, next) => {
          seen.push(ctx.method);
          return ctx.method === 'x-acme/status' ? { ok: true } : next();
        }),
      ).to(server()),
    );
    assert.deepEqual(await h.request('x-acme/status'), { ok: true });
    await h.request('tools/list');
    assert.deepEqual(seen, ['x-acme/status', 'tools/list']);
    await h.close();
  });
});

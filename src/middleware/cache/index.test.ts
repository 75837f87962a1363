import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import type { Middleware } from '../../chain/middleware.js';
import { ChainError } from '../../errors/chain-error.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { scripted, type Handler } from '../_test/scripted.js';
import { cache, type CacheCodeOptions, type CacheOptions } from './index.js';

/** A clock the test moves by hand. */
function clock(): { now: () => number; advance(ms: number): void } {
  let time = 1_000_000;
  return { now: () => time, advance: (ms) => void (time += ms) };
}

/** An upstream that answers every read with a counter, so a repeated answer shows it came from memory. */
function counting(extra: Record<string, Handler> = {}): ReturnType<typeof scripted> & { count(method: string): number } {
  let n = 0;
  const upstream = scripted({
    'tools/list': (params) => ({ tools: [{ name: `t${++n}`, inputSchema: { type: 'object' } }], ...(params.cursor === undefined ? { nextCursor: 'p2' } : {}) }),
    'prompts/list': () => ({ prompts: [{ name: `p${++n}` }] }),
    'resources/list': () => ({ resources: [{ uri: `file:///r${++n}`, name: 'r' }] }),
    'resources/templates/list': () => ({ resourceTemplates: [{ uriTemplate: `file:///{x}/${++n}`, name: 't' }] }),
    'resources/read': (params) => ({ contents: [{ uri: String(params.uri), text: `read ${++n}` }] }),
    'tools/call': (params) => ({ content: [{ type: 'text', text: `${String(params.name)} ${++n}` }] }),
    ...extra,
  });
  return Object.assign(upstream, { count: (method: string) => upstream.received.filter((m) => m.method === method).length });
}

/** Records `ctx.state.cache` of every request, as a middleware in front of the cache sees it. */
function observer(seen: unknown[]): Middleware {
  return async (ctx, next) => {
    const reply = await next();
    if (ctx.kind === 'request' && ctx.direction === 'toUpstream' && ctx.method !== 'initialize') seen.push(ctx.state.cache);
    return reply;
  };
}

async function setup(options: CacheOptions & CacheCodeOptions, extra: Record<string, Handler> = {}) {
  const upstream = counting(extra);
  const mw = cache(options);
  const seen: unknown[] = [];
  const h = await harness(chain().use(observer(seen)).use(mw).to(upstream));
  return { upstream, mw, seen, h };
}

const textOf = (result: JsonObject): unknown => (result.content as JsonObject[])[0]?.text;

describe('cache', () => {
  test('list pages are answered from memory, each page by its cursor; ctx.state.cache says hit or miss', async () => {
    const { upstream, mw, seen, h } = await setup({});
    const first = await h.request('tools/list');
    assert.deepEqual(await h.request('tools/list'), first);
    const second = await h.request('tools/list', { cursor: 'p2' });
    assert.notDeepEqual(second, first);
    assert.deepEqual(await h.request('tools/list', { cursor: 'p2' }), second);
    for (const method of ['prompts/list', 'resources/list', 'resources/templates/list'] as const) {
      assert.deepEqual(await h.request(method), await h.request(method));
      assert.equal(upstream.count(method), 1);
    }
    assert.equal(upstream.count('tools/list'), 2);
    assert.deepEqual(seen, ['miss', 'hit', 'miss', 'hit', 'miss', 'hit', 'miss', 'hit', 'miss', 'hit']);
    assert.deepEqual(mw.stats(), { hits: 5, misses: 5, coalesced: 0, evictions: 0, invalidations: 0, entries: 5, bytes: mw.stats().bytes });
    assert.ok(mw.stats().bytes > 0);
    await h.close();
  });

  test('entries expire after the time to live of their kind; 0 never caches that kind', async () => {
    const time = clock();
    const { upstream, h } = await setup({ now: time.now, ttlMs: { lists: 1000, resources: 0, tools: 5000 }, tools: ['echo'] });
    await h.request('tools/list');
    time.advance(999);
    await h.request('tools/list');
    assert.equal(upstream.count('tools/list'), 1);
    time.advance(1);
    await h.request('tools/list');
    assert.equal(upstream.count('tools/list'), 2);

    await h.request('resources/read', { uri: 'file:///a' });
    await h.request('resources/read', { uri: 'file:///a' });
    assert.equal(upstream.count('resources/read'), 2);

    await h.request('tools/call', { name: 'echo', arguments: {} });
    time.advance(4999);
    await h.request('tools/call', { name: 'echo', arguments: {} });
    assert.equal(upstream.count('tools/call'), 1);
    time.advance(1);
    await h.request('tools/call', { name: 'echo', arguments: {} });
    assert.equal(upstream.count('tools/call'), 2);
    await h.close();
  });

  test('resources/read is kept by uri; resources/updated drops that uri only', async () => {
    const { upstream, mw, h } = await setup({});
    const a = await h.request('resources/read', { uri: 'file:///a' });
    const b = await h.request('resources/read', { uri: 'file:///b' });
    assert.deepEqual(await h.request('resources/read', { uri: 'file:///a' }), a);
    assert.equal(upstream.count('resources/read'), 2);

    await upstream.notify('notifications/resources/updated', { uri: 'file:///a' });
    await h.notification('notifications/resources/updated');
    assert.notDeepEqual(await h.request('resources/read', { uri: 'file:///a' }), a);
    assert.deepEqual(await h.request('resources/read', { uri: 'file:///b' }), b);
    assert.equal(upstream.count('resources/read'), 3);
    assert.equal(mw.stats().invalidations, 1);
    await h.close();
  });

  test('resources/updated drops every cached spelling of its uri, and only those', async () => {
    const { upstream, mw, h } = await setup({});
    const spellings = ['file:///docs/a', 'FILE:///docs/./a', 'file://localhost/docs/%61', 'file:///docs/x/..%2Fa'];
    for (const uri of [...spellings, 'file:///docs/b']) await h.request('resources/read', { uri });
    assert.equal(upstream.count('resources/read'), 5);

    await upstream.notify('notifications/resources/updated', { uri: 'file:///docs/a' });
    await h.notification('notifications/resources/updated');
    assert.equal(mw.stats().invalidations, spellings.length);
    for (const uri of [...spellings, 'file:///docs/b']) await h.request('resources/read', { uri });
    assert.equal(upstream.count('resources/read'), 5 + spellings.length);
    await h.close();
  });

  test('list_changed drops the pages of that list (resources: resources and templates), and passes on to the client', async () => {
    const { upstream, h } = await setup({});
    const lists = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'] as const;
    for (const method of lists) await h.request(method);
    await h.request('tools/list', { cursor: 'p2' });
    await h.request('resources/read', { uri: 'file:///a' });

    await upstream.notify('notifications/tools/list_changed');
    await h.notification('notifications/tools/list_changed');
    for (const method of lists) await h.request(method);
    await h.request('tools/list', { cursor: 'p2' });
    assert.deepEqual(lists.map((m) => upstream.count(m)), [4, 1, 1, 1], 'both pages of tools/list asked again');

    await upstream.notify('notifications/resources/list_changed');
    await h.notification('notifications/resources/list_changed');
    for (const method of lists) await h.request(method);
    await h.request('resources/read', { uri: 'file:///a' });
    assert.deepEqual(lists.map((m) => upstream.count(m)), [4, 1, 2, 2]);
    assert.equal(upstream.count('resources/read'), 1);

    await upstream.notify('notifications/prompts/list_changed');
    await h.notification('notifications/prompts/list_changed');
    await h.request('prompts/list');
    assert.equal(upstream.count('prompts/list'), 2);
    await h.close();
  });

  test('tools/call is cached only for the tools named (globs), keyed by name and canonical arguments', async () => {
    const { upstream, seen, h } = await setup({ tools: ['search_*'] });
    const first = await h.request('tools/call', { name: 'search_docs', arguments: { q: 'x', opts: { a: 1, b: [1, { c: 2, d: 3 }] } } });
    const again = await h.request('tools/call', { name: 'search_docs', arguments: { opts: { b: [1, { d: 3, c: 2 }], a: 1 }, q: 'x' } });
    assert.deepEqual(again, first);
    assert.equal(upstream.count('tools/call'), 1);

    await h.request('tools/call', { name: 'search_docs', arguments: { q: 'y' } });
    await h.request('tools/call', { name: 'search_docs' });
    await h.request('tools/call', { name: 'search_docs', arguments: {} });
    assert.equal(upstream.count('tools/call'), 3, 'other arguments miss; no arguments is {}');

    seen.length = 0;
    assert.notEqual(textOf(await h.request('tools/call', { name: 'write' })), textOf(await h.request('tools/call', { name: 'write' })));
    assert.deepEqual(seen, [undefined, undefined], 'a tool that is not cacheable has no ctx.state.cache');
    await h.close();
  });

  test('errors and isError results are never kept', async () => {
    let fail = true;
    const { upstream, mw, h } = await setup({ tools: ['*'] }, {
      'tools/call': (params) => {
        if (params.name === 'broken') {
          if (fail) throw new McpError(ErrorCode.InternalError, 'upstream failed');
          return { content: [{ type: 'text', text: 'fixed' }] };
        }
        return { content: [{ type: 'text', text: 'no' }], isError: true };
      },
      'resources/read': () => {
        throw new McpError(ErrorCode.ResourceNotFound, 'Resource not found: file:///gone');
      },
    });
    const error = await h.call('tools/call', { name: 'broken', arguments: {} });
    assert.deepEqual(error.error, { code: ErrorCode.InternalError, message: 'upstream failed' });
    fail = false;
    assert.equal(textOf(await h.request('tools/call', { name: 'broken', arguments: {} })), 'fixed');
    assert.equal((await h.request('tools/call', { name: 'failing' })).isError, true);
    assert.equal((await h.request('tools/call', { name: 'failing' })).isError, true);
    assert.equal(upstream.count('tools/call'), 4);
    for (let i = 0; i < 2; i++) assert.equal((await h.call('resources/read', { uri: 'file:///gone' })).error !== undefined, true);
    assert.equal(upstream.count('resources/read'), 2);
    assert.equal(mw.stats().entries, 1);
    await h.close();
  });

  test('readOnly: true caches the tools the session was shown with readOnlyHint, until tools/list_changed', async () => {
    const tools = [
      { name: 'read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      { name: 'write', inputSchema: { type: 'object' }, annotations: { readOnlyHint: false } },
    ];
    const extra = { 'tools/list': () => ({ tools }) };
    const off = await setup({}, extra);
    await off.h.request('tools/list');
    await off.h.request('tools/call', { name: 'read' });
    await off.h.request('tools/call', { name: 'read' });
    assert.equal(off.upstream.count('tools/call'), 2, 'readOnlyHint alone is not enough');
    await off.h.close();

    const on = await setup({ readOnly: true, ttlMs: { lists: 0 } }, extra);
    await on.h.request('tools/call', { name: 'read' });
    await on.h.request('tools/call', { name: 'read' });
    assert.equal(on.upstream.count('tools/call'), 2, 'not known to be read-only before tools/list');
    await on.h.request('tools/list');
    for (const name of ['read', 'read', 'write', 'write']) await on.h.request('tools/call', { name });
    assert.equal(on.upstream.count('tools/call'), 5);
    await on.upstream.notify('notifications/tools/list_changed');
    await on.h.notification('notifications/tools/list_changed');
    await on.h.request('tools/call', { name: 'read', arguments: { other: true } });
    await on.h.request('tools/call', { name: 'read', arguments: { other: true } });
    assert.equal(on.upstream.count('tools/call'), 7, 'forgotten after list_changed');
    await on.h.close();
  });

  test('entries belong to the session, or the identity, unless shared', async () => {
    const upstream = counting();
    const perSession = chain().use(cache({})).to(upstream);
    const [a, b] = [await harness(perSession), await harness(perSession)];
    await a.request('tools/list');
    await b.request('tools/list');
    await a.request('tools/list');
    assert.equal(upstream.count('tools/list'), 2);
    await Promise.all([a.close(), b.close()]);

    const byIdentity = chain().use(cache({})).to(upstream);
    const alice = { id: 'alice', method: 'bearer' };
    const [a1, a2, bob] = [
      await harness(byIdentity, { identity: alice }),
      await harness(byIdentity, { identity: alice }),
      await harness(byIdentity, { identity: { id: 'bob', method: 'bearer' } }),
    ];
    await a1.request('prompts/list');
    await a2.request('prompts/list');
    await bob.request('prompts/list');
    assert.equal(upstream.count('prompts/list'), 2);
    await Promise.all([a1.close(), a2.close(), bob.close()]);

    const sharedChain = chain().use(cache({ shared: true })).to(upstream);
    const [c, d] = [await harness(sharedChain, { identity: alice }), await harness(sharedChain)];
    await c.request('resources/list');
    await d.request('resources/list');
    assert.equal(upstream.count('resources/list'), 1);
    await Promise.all([c.close(), d.close()]);
  });

  test('bounded in entries and bytes: the least recently used goes first; an entry larger than the bound is not kept', async () => {
    const { upstream, mw, h } = await setup({ maxEntries: 2 });
    const read = (uri: string) => h.request('resources/read', { uri });
    await read('file:///a');
    await read('file:///b');
    await read('file:///a'); // a is now the most recently used
    await read('file:///c'); // evicts b
    assert.equal(upstream.count('resources/read'), 3);
    await read('file:///a');
    await read('file:///b');
    assert.equal(upstream.count('resources/read'), 4);
    assert.equal(mw.stats().evictions, 2);
    assert.equal(mw.stats().entries, 2);
    await h.close();

    const big = 'x'.repeat(1000);
    const sized = await setup({ maxBytes: 2500 }, { 'resources/read': (params) => ({ contents: [{ uri: String(params.uri), text: params.uri === 'file:///huge' ? big.repeat(3) : big }] }) });
    for (const uri of ['file:///a', 'file:///b', 'file:///c']) await sized.h.request('resources/read', { uri });
    assert.equal(sized.mw.stats().entries, 2);
    assert.equal(sized.mw.stats().evictions, 1);
    assert.ok(sized.mw.stats().bytes <= 2500);
    await sized.h.request('resources/read', { uri: 'file:///huge' });
    await sized.h.request('resources/read', { uri: 'file:///huge' });
    assert.equal(sized.upstream.count('resources/read'), 5);
    assert.equal(sized.mw.stats().entries, 2, 'the huge one did not push the others out');
    await sized.h.close();
  });

  test('answers from memory are frozen, and the in-process server keeps its own objects', async () => {
    const tools = [{ name: 'x', description: 'x', handler: () => ({ content: [{ type: 'text' as const, text: 'x' }] }) }];
    const server = local({ tools });
    const mw = cache({ tools: ['x'] });
    const results: JsonObject[] = [];
    const grab: Middleware = async (ctx, next) => {
      const reply = await next();
      if (ctx.method === 'tools/call' && reply !== undefined) results.push(reply);
      return reply;
    };
    const h = await harness(chain().use(grab).use(mw).to(server));
    await h.request('tools/call', { name: 'x' });
    await h.request('tools/call', { name: 'x' });
    const [miss, hit] = results;
    assert.ok(miss !== undefined && hit !== undefined);
    assert.equal(Object.isFrozen(miss), false, 'the upstream answer is passed on as it is');
    assert.ok(Object.isFrozen(hit) && Object.isFrozen(hit.content) && Object.isFrozen((hit.content as JsonObject[])[0]));
    assert.throws(() => {
      (hit as Record<string, unknown>).isError = true;
    }, TypeError);
    assert.equal(Object.isFrozen(tools[0]), false);
    assert.deepEqual(await h.request('tools/call', { name: 'x' }), { content: [{ type: 'text', text: 'x' }] });
    await h.close();
  });

  test('single flight: identical requests on their way share one upstream call; a failure sends the others on their own', async () => {
    const gates: Array<(result: JsonObject | Error) => void> = [];
    const { upstream, mw, seen, h } = await setup({ tools: ['slow'] }, {
      'tools/call': () =>
        new Promise<JsonObject>((resolve, reject) => {
          gates.push((result) => (result instanceof Error ? reject(result) : resolve(result)));
        }),
    });
    const one = h.request('tools/call', { name: 'slow', arguments: { n: 1 } });
    const two = h.request('tools/call', { name: 'slow', arguments: { n: 1 } });
    await waitUntil(() => gates.length === 1 && mw.stats().misses === 1 && seen.length === 0 && upstream.count('tools/call') === 1);
    gates[0]?.({ content: [{ type: 'text', text: 'once' }] });
    assert.deepEqual(await Promise.all([one, two].map(async (p) => textOf(await p))), ['once', 'once']);
    assert.equal(upstream.count('tools/call'), 1);
    assert.equal(mw.stats().coalesced, 1);
    assert.deepEqual(seen.sort(), ['hit', 'miss']);

    const three = h.call('tools/call', { name: 'slow', arguments: { n: 2 } });
    const four = h.request('tools/call', { name: 'slow', arguments: { n: 2 } });
    await waitUntil(() => gates.length === 2);
    await new Promise<void>((resolve) => setImmediate(resolve));
    gates[1]?.(new McpError(ErrorCode.InternalError, 'first failed'));
    assert.deepEqual((await three).error, { code: ErrorCode.InternalError, message: 'first failed' });
    await waitUntil(() => gates.length === 3);
    gates[2]?.({ content: [{ type: 'text', text: 'own' }] });
    assert.equal(textOf(await four), 'own');
    await h.close();
  });

  test('singleFlight: false sends identical requests upstream each', async () => {
    const gates: Array<() => void> = [];
    const { upstream, h } = await setup({ tools: ['slow'], singleFlight: false }, {
      'tools/call': () => new Promise<JsonObject>((resolve) => gates.push(() => resolve({ content: [] }))),
    });
    const both = [h.request('tools/call', { name: 'slow' }), h.request('tools/call', { name: 'slow' })];
    await waitUntil(() => gates.length === 2);
    gates.forEach((open) => open());
    await Promise.all(both);
    assert.equal(upstream.count('tools/call'), 2);
    await h.close();
  });

  test('an answer still on its way when its list changes is not kept', async () => {
    const gates: Array<() => void> = [];
    const { upstream, h } = await setup({}, {
      'prompts/list': () => new Promise<JsonObject>((resolve) => gates.push(() => resolve({ prompts: [] }))),
    });
    const pending = h.request('prompts/list');
    await waitUntil(() => gates.length === 1);
    await upstream.notify('notifications/prompts/list_changed');
    await h.notification('notifications/prompts/list_changed');
    gates[0]?.();
    await pending;
    const again = h.request('prompts/list');
    await waitUntil(() => gates.length === 2);
    gates[1]?.();
    await again;
    assert.equal(upstream.count('prompts/list'), 2);
    await h.close();
  });

  test('other methods and server→client requests pass straight through; clear() empties it', async () => {
    const { upstream, mw, h } = await setup({}, { 'prompts/get': () => ({ messages: [] }) });
    await h.request('prompts/get', { name: 'p' });
    await h.request('prompts/get', { name: 'p' });
    assert.equal(upstream.count('prompts/get'), 2);
    h.handle('roots/list', () => ({ roots: [] }));
    assert.deepEqual(await upstream.ask('roots/list'), { roots: [] });
    await h.request('tools/list');
    mw.clear();
    await h.request('tools/list');
    assert.equal(upstream.count('tools/list'), 2);
    assert.equal(mw.stats().entries, 1);
    await h.close();
  });

  test('options out of range are refused when the cache is made', () => {
    assert.throws(() => cache({ ttlMs: { lists: -1 } }), (error: unknown) => error instanceof ChainError && /ttlMs\.lists/.test(error.message));
    assert.throws(() => cache({ maxEntries: 1.5 }), (error: unknown) => error instanceof ChainError && /maxEntries/.test(error.message));
    assert.throws(() => cache({ maxBytes: Number.NaN }), ChainError);
  });
});

/** Waits (bounded) until `condition` holds, checking after each turn of the event loop. */
async function waitUntil(condition: () => boolean, turns = 1000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  throw new Error('condition not met');
}

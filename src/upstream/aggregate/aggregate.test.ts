import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { ErrorCode } from '../../errors/error-code.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness, type Harness } from '../../testing/harness.js';
import { local } from '../local.js';
import { ScriptedMember, tool } from './_test/scripted-member.js';
import { aggregate, type Aggregate } from './aggregate.js';
import type { AggregateMember, AggregateOptions } from './aggregate-options.js';

const open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

async function start(members: AggregateMember[], options: AggregateOptions = {}): Promise<{ h: Harness; gateway: Aggregate }> {
  const gateway = aggregate(members, { retry: { initialDelayMs: 5, maxDelayMs: 20 }, ...options });
  const h = await harness(gateway, { capabilities: { sampling: {} } });
  open.push(h);
  h.notify('notifications/initialized');
  return { h, gateway };
}

function echo(name: string): ScriptedMember {
  return new ScriptedMember({ tools: {} }, {
    'tools/list': () => ({ tools: [tool('echo'), tool('add')] }),
    'tools/call': (params) => ({ content: [{ type: 'text', text: `${name}:${String(params.name)}:${JSON.stringify(params.arguments ?? {})}` }] }),
  });
}

async function expectError(promise: Promise<unknown>, code: number, pattern?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof Error, 'an error');
    const { code: got, message } = error as Error & { code?: unknown };
    assert.equal(got, code, message);
    if (pattern) assert.match(message, pattern);
    return true;
  });
}

function texts(result: JsonObject): string[] {
  return (result.content as { text: string }[]).map((c) => c.text);
}

describe('aggregate: names', () => {
  test('tools of several servers are listed as <server>__<name>, in member order, and calls reach the right server under its own name', async () => {
    const { h } = await start([
      { name: 'alpha', upstream: echo('alpha') },
      { name: 'beta.io', upstream: echo('beta') },
    ]);
    const { tools } = await h.request('tools/list');
    assert.deepEqual(tools.map((t) => t.name), ['alpha__echo', 'alpha__add', 'beta_io__echo', 'beta_io__add']);
    assert.equal(tools[0]?.description, 'the echo tool');
    const result = await h.request('tools/call', { name: 'beta_io__add', arguments: { a: 1 } });
    assert.deepEqual(texts(result), ['beta:add:{"a":1}']);
  });

  test('a call by a generated name works before any tools/list (the aggregate lists first)', async () => {
    const { h } = await start([
      { name: 'alpha', upstream: echo('alpha') },
      { name: 'beta', upstream: echo('beta') },
    ]);
    assert.deepEqual(texts(await h.request('tools/call', { name: 'alpha__echo', arguments: {} })), ['alpha:echo:{}']);
  });

  test('calls that arrive together before any list share one read of the members', async () => {
    const a = echo('a');
    const { h } = await start([{ name: 'a', upstream: a }, { name: 'b', upstream: echo('b') }]);
    const results = await Promise.all(Array.from({ length: 20 }, () => h.request('tools/call', { name: 'a__echo', arguments: {} })));
    assert.equal(results.length, 20);
    assert.equal(a.received.filter((m) => m.method === 'tools/list').length, 1);
  });

  test("a single server's lists pass through as it gives them, its own cursors included", async () => {
    const member = new ScriptedMember({ tools: {} }, {
      'tools/list': (params) => (params.cursor === 'p2' ? { tools: [tool('second')] } : { tools: [tool('first')], nextCursor: 'p2', _meta: { mine: true } }),
    });
    const { h } = await start([{ name: 'solo', upstream: member }]);
    const first = await h.request('tools/list');
    assert.deepEqual(first, { tools: [tool('first')], nextCursor: 'p2', _meta: { mine: true } });
    assert.deepEqual((await h.request('tools/list', { cursor: 'p2' })).tools.map((t) => t.name), ['second']);
  });

  test('an unknown name is -32602 and names the tool', async () => {
    const { h } = await start([
      { name: 'alpha', upstream: echo('alpha') },
      { name: 'beta', upstream: echo('beta') },
    ]);
    await expectError(h.request('tools/call', { name: 'gamma__echo', arguments: {} }), ErrorCode.InvalidParams, /Unknown tool: gamma__echo/);
  });

  test('with a single server, names are left as they are and unknown ones go to the server', async () => {
    const member = echo('solo');
    const { h } = await start([{ name: 'solo', upstream: member }]);
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['echo', 'add']);
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: {} })), ['solo:echo:{}']);
    assert.deepEqual(texts(await h.request('tools/call', { name: 'nope', arguments: {} })), ['solo:nope:{}']);
  });

  test('a name past 64 characters is shortened, stays within the limit and still reaches its tool', async () => {
    const key = 'a-server-key-long-enough-that-prefix-and-tool-overflow-the-limit';
    const member = new ScriptedMember({ tools: {} }, {
      'tools/list': () => ({ tools: [tool('get_everything_about_this_long_named_thing')] }),
      'tools/call': (params) => ({ content: [{ type: 'text', text: String(params.name) }] }),
    });
    const { h } = await start([{ name: key, upstream: member }, { name: 'other', upstream: echo('other') }]);
    const [long] = (await h.request('tools/list')).tools;
    assert.ok(long && long.name.length <= 64, long?.name);
    assert.match(long.name, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(texts(await h.request('tools/call', { name: long.name, arguments: {} })), ['get_everything_about_this_long_named_thing']);
  });

  test('without prefixes, the first server in order keeps a name two servers have; the other one is hidden', async () => {
    const { h } = await start([
      { name: 'alpha', upstream: echo('alpha'), prefix: false },
      { name: 'beta', upstream: echo('beta'), prefix: false },
    ]);
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['echo', 'add']);
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: {} })), ['alpha:echo:{}']);
  });

  test('a prefix of its own replaces the server key', async () => {
    const { h } = await start([
      { name: 'alpha', upstream: echo('alpha'), prefix: 'a' },
      { name: 'beta', upstream: echo('beta') },
    ]);
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['a__echo', 'a__add', 'beta__echo', 'beta__add']);
  });

  test('prompts are named like tools; prompts/get and prompt completions reach the right server under its own name', async () => {
    const files = local({
      prompts: [{ name: 'review', arguments: [{ name: 'code', required: true }], handler: (args) => ({ messages: [{ role: 'user', content: { type: 'text', text: `review ${args.code}` } }] }) }],
    });
    const other = new ScriptedMember({ prompts: {}, completions: {} }, {
      'prompts/list': () => ({ prompts: [{ name: 'review' }] }),
      'completion/complete': (params) => ({ completion: { values: [JSON.stringify(params.ref)] } }),
    });
    const { h } = await start([{ name: 'files', upstream: files }, { name: 'other', upstream: other }]);
    assert.deepEqual((await h.request('prompts/list')).prompts.map((p) => p.name), ['files__review', 'other__review']);
    const got = await h.request('prompts/get', { name: 'files__review', arguments: { code: 'x' } });
    assert.deepEqual(got.messages[0]?.content, { type: 'text', text: 'review x' });
    const completed = await h.request('completion/complete', { ref: { type: 'ref/prompt', name: 'other__review' }, argument: { name: 'a', value: '' } });
    assert.deepEqual(completed.completion.values, [JSON.stringify({ type: 'ref/prompt', name: 'review' })]);
  });
});

describe('aggregate: merged lists and cursors', () => {
  function many(prefix: string, count: number): ScriptedMember {
    const all = Array.from({ length: count }, (_, i) => tool(`${prefix}${i}`));
    // Pages of 3, as a server that paginates: the aggregate walks them all.
    return new ScriptedMember({ tools: {} }, {
      'tools/list': (params) => {
        const offset = typeof params.cursor === 'string' ? Number(params.cursor) : 0;
        const page = all.slice(offset, offset + 3);
        return offset + 3 < all.length ? { tools: page, nextCursor: String(offset + 3) } : { tools: page };
      },
    });
  }

  test("every page of every member is merged; our pages follow pageSize and end without a cursor", async () => {
    const { h } = await start([{ name: 'a', upstream: many('t', 7) }, { name: 'b', upstream: many('u', 5) }], { pageSize: 5 });
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await h.request('tools/list', cursor === undefined ? {} : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    assert.equal(pages, 3);
    assert.deepEqual(names, [...Array.from({ length: 7 }, (_, i) => `a__t${i}`), ...Array.from({ length: 5 }, (_, i) => `b__u${i}`)]);
  });

  test('2026-07-28 caching hints: a merged list has the smallest TTL and the most private scope of its members, on every page; none when a member gives none', async () => {
    function hinted(prefix: string, ttlMs: number, cacheScope: string): ScriptedMember {
      return new ScriptedMember({ tools: {} }, { 'tools/list': () => ({ tools: [tool(`${prefix}1`), tool(`${prefix}2`)], ttlMs, cacheScope }) });
    }
    const both = await start([{ name: 'a', upstream: hinted('t', 60_000, 'public') }, { name: 'b', upstream: hinted('u', 5_000, 'private') }], { pageSize: 3 });
    const first = await both.h.request('tools/list');
    assert.deepEqual([first.ttlMs, first.cacheScope], [5_000, 'private']);
    assert.ok(first.nextCursor !== undefined);
    const second = await both.h.request('tools/list', { cursor: first.nextCursor });
    assert.deepEqual([second.ttlMs, second.cacheScope, second.tools.length], [5_000, 'private', 1], 'the same scope on every page');

    const publicOnly = await start([{ name: 'a', upstream: hinted('t', 60_000, 'public') }, { name: 'b', upstream: hinted('u', 30_000, 'public') }]);
    const shared = await publicOnly.h.request('tools/list');
    assert.deepEqual([shared.ttlMs, shared.cacheScope], [30_000, 'public']);

    const mixed = await start([{ name: 'a', upstream: hinted('t', 60_000, 'public') }, { name: 'b', upstream: echo('b') }]);
    const page = await mixed.h.request('tools/list');
    assert.equal(page.tools.length, 4);
    assert.ok(!('ttlMs' in page) && !('cacheScope' in page), 'a session-era member gives no hints, so the merged list has none');
  });

  test('a made-up cursor, a tampered one, and one of another list are -32602', async () => {
    const { h } = await start([{ name: 'a', upstream: many('t', 7) }, { name: 'b', upstream: many('u', 5) }], { pageSize: 5 });
    const first = await h.request('tools/list');
    assert.ok(first.nextCursor);
    await expectError(h.request('tools/list', { cursor: 'not-a-cursor' }), ErrorCode.InvalidParams, /cursor/i);
    const tampered = first.nextCursor.slice(0, -2) + (first.nextCursor.endsWith('AA') ? 'BB' : 'AA');
    await expectError(h.request('tools/list', { cursor: tampered }), ErrorCode.InvalidParams, /cursor/i);
    await expectError(h.request('prompts/list', { cursor: first.nextCursor }), ErrorCode.InvalidParams, /cursor/i);
  });

  test('a cursor stays good while the lists do not change, and is stale (-32602) once they do', async () => {
    const b = many('u', 5);
    const { h } = await start([{ name: 'a', upstream: many('t', 7) }, { name: 'b', upstream: b }], { pageSize: 5 });
    const first = await h.request('tools/list');
    assert.ok(first.nextCursor);
    const again = await h.request('tools/list', { cursor: first.nextCursor });
    assert.deepEqual(again.tools.map((t) => t.name), ['a__t5', 'a__t6', 'b__u0', 'b__u1', 'b__u2']);
    b.on('tools/list', () => ({ tools: [tool('new')] }));
    await b.downstream?.notify({ method: 'notifications/tools/list_changed' });
    await h.notification('notifications/tools/list_changed');
    await expectError(h.request('tools/list', { cursor: first.nextCursor }), ErrorCode.InvalidParams, /changed/);
  });

  test('a member that does not answer its list in time is left out of it; the others are listed', async () => {
    const slow = new ScriptedMember({ tools: {} }, { 'tools/list': () => new Promise(() => undefined) });
    const { h } = await start([{ name: 'slow', upstream: slow }, { name: 'fast', upstream: echo('fast') }], { listTimeoutMs: 50 });
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['fast__echo', 'fast__add']);
  });

  test('a member whose list times out and who then does not answer a ping either is taken out (stopped answering)', async () => {
    const stuck = new ScriptedMember({ tools: {} }, { 'tools/list': () => new Promise(() => undefined), ping: () => new Promise(() => undefined) });
    const { h } = await start([{ name: 'stuck', upstream: stuck }, { name: 'fast', upstream: echo('fast') }], {
      listTimeoutMs: 30,
      retry: { initialDelayMs: 60_000, pingTimeoutMs: 30 },
    });
    await h.request('tools/list');
    await h.notification('notifications/tools/list_changed');
    await expectError(h.request('tools/call', { name: 'stuck__x', arguments: {} }), ErrorCode.ConnectionClosed, /Server "stuck" is unavailable: stopped answering/);
  });

  test('a member only slow at listing (it answers ping) stays in service', async () => {
    let lists = 0;
    const slow = new ScriptedMember({ tools: {} }, {
      'tools/list': () => (++lists === 1 ? new Promise(() => undefined) : { tools: [tool('late')] }),
    });
    const pinged = new Promise<void>((resolve) => slow.on('ping', () => (resolve(), {})));
    const { h } = await start([{ name: 'slow', upstream: slow }, { name: 'fast', upstream: echo('fast') }], { listTimeoutMs: 30 });
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['fast__echo', 'fast__add']);
    await pinged;
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['slow__late', 'fast__echo', 'fast__add']);
  });

  test('a member without a capability is not asked for that list', async () => {
    const toolsOnly = echo('t');
    const { h } = await start([{ name: 't', upstream: toolsOnly }, { name: 'p', upstream: new ScriptedMember({ prompts: {} }, { 'prompts/list': () => ({ prompts: [] }) }) }]);
    await h.request('prompts/list');
    assert.ok(!toolsOnly.received.some((m) => m.method === 'prompts/list'));
  });
});

describe('aggregate: initialize', () => {
  test('capabilities are what some member has, lists say listChanged, instructions come under each name, serverInfo is ours', async () => {
    const a = new ScriptedMember({ tools: {}, logging: {} });
    a.on('initialize', () => ({ protocolVersion: '2025-06-18', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'a', version: '1' }, instructions: 'Use a for A.' }));
    const b = new ScriptedMember({ resources: { subscribe: true }, completions: {} });
    const gateway = aggregate([{ name: 'a', upstream: a }, { name: 'b', upstream: b }], { serverInfo: { name: 'gw', version: '2.0.0' } });
    const h = await harness(gateway, { initialize: false });
    open.push(h);
    const result = await h.initialize('2025-11-25');
    assert.equal(result.protocolVersion, '2025-06-18');
    assert.deepEqual(result.serverInfo, { name: 'gw', version: '2.0.0' });
    assert.deepEqual(result.capabilities, {
      tools: { listChanged: true },
      logging: {},
      resources: { subscribe: true, listChanged: true },
      completions: {},
    });
    assert.equal(result.instructions, '## a\n\nUse a for A.');
  });

  test('a member that answers a protocol version mcp-chain does not serve is down; the others serve', async () => {
    const odd = echo('odd');
    odd.on('initialize', () => ({ protocolVersion: '2023-01-01', capabilities: { tools: {} }, serverInfo: { name: 'odd', version: '1' } }));
    const { h } = await start([{ name: 'odd', upstream: odd }, { name: 'ok', upstream: echo('ok') }]);
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['ok__echo', 'ok__add']);
    await expectError(h.request('tools/call', { name: 'odd__echo', arguments: {} }), ErrorCode.ConnectionClosed, /Server "odd" is unavailable: answered protocol version 2023-01-01/);
  });

  test('a list_changed a member sends while it starts does not reach a client that is not initialized yet', async () => {
    const eager = echo('eager');
    eager.on('initialize', async (params, _scope, downstream) => {
      await downstream.notify({ method: 'notifications/tools/list_changed' });
      return { protocolVersion: String(params.protocolVersion), capabilities: { tools: {} }, serverInfo: { name: 'eager', version: '1' } };
    });
    const { h } = await start([{ name: 'eager', upstream: eager }, { name: 'ok', upstream: echo('ok') }]);
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['eager__echo', 'eager__add', 'ok__echo', 'ok__add']);
    assert.equal(h.notifications('notifications/tools/list_changed').length, 0);
  });

  test('a gateway whose every member fails to start still initializes and answers with empty lists', async () => {
    const dead = new ScriptedMember();
    dead.failing = true;
    const { h } = await start([{ name: 'dead', upstream: dead }, { name: 'dead2', upstream: new ScriptedMember({}, { initialize: () => Promise.reject(new Error('boom')) }) }]);
    assert.deepEqual((await h.request('tools/list')).tools, []);
  });
});

describe('aggregate: failure isolation', () => {
  test('a member that goes down drops out (list_changed), its calls name it, the others serve; back up, it returns (list_changed)', async () => {
    const a = echo('a');
    const b = echo('b');
    const { h } = await start([{ name: 'a', upstream: a }, { name: 'b', upstream: b }]);
    assert.equal((await h.request('tools/list')).tools.length, 4);
    a.down('exited (code 1)');
    await h.notification('notifications/tools/list_changed');
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['b__echo', 'b__add']);
    await expectError(h.request('tools/call', { name: 'a__echo', arguments: {} }), ErrorCode.ConnectionClosed, /Server "a" is unavailable: exited \(code 1\)/);
    assert.deepEqual(texts(await h.request('tools/call', { name: 'b__echo', arguments: {} })), ['b:echo:{}']);
    const back = h.waitFor((m) => m.method === 'notifications/tools/list_changed' && h.notifications('notifications/tools/list_changed').length >= 2);
    a.up();
    await back;
    assert.equal((await h.request('tools/list')).tools.length, 4);
  });

  test('a member that cannot start is tried again with backoff and joins when it answers', async () => {
    const late = echo('late');
    late.failing = true;
    const { h } = await start([{ name: 'late', upstream: late }, { name: 'ok', upstream: echo('ok') }]);
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['ok__echo', 'ok__add']);
    late.failing = false;
    await h.notification('notifications/tools/list_changed');
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['late__echo', 'late__add', 'ok__echo', 'ok__add']);
    // It was started with the client's own initialize, then told the session is initialized.
    assert.ok(late.notified.some((m) => m.method === 'notifications/initialized'));
  });

  test('a call by the prefix of a member that never started names that member', async () => {
    const dead = echo('dead');
    dead.failing = true;
    const { h } = await start([{ name: 'dead', upstream: dead }, { name: 'ok', upstream: echo('ok') }]);
    await expectError(h.request('tools/call', { name: 'dead__echo', arguments: {} }), ErrorCode.ConnectionClosed, /Server "dead" is unavailable/);
    await expectError(h.request('prompts/get', { name: 'dead__p' }), ErrorCode.ConnectionClosed, /Server "dead" is unavailable/);
    await expectError(h.request('tools/call', { name: 'nobody__echo', arguments: {} }), ErrorCode.InvalidParams, /Unknown tool/);
  });

  test("a member's per-call deadline ends a call it does not answer, with an error naming it", async () => {
    const hang = new ScriptedMember({ tools: {} }, { 'tools/list': () => ({ tools: [tool('wait')] }), 'tools/call': () => new Promise(() => undefined) });
    const { h } = await start([{ name: 'hang', upstream: hang, timeoutMs: 30 }, { name: 'ok', upstream: echo('ok') }]);
    await expectError(h.request('tools/call', { name: 'hang__wait', arguments: {} }), ErrorCode.RequestTimeout, /Server "hang" did not answer tools\/call within 30 ms/);
  });
});

describe('aggregate: resources', () => {
  function resources(name: string, uris: string[], templates: string[] = []): ScriptedMember {
    return new ScriptedMember({ resources: { subscribe: true } }, {
      'resources/list': () => ({ resources: uris.map((uri) => ({ uri, name: uri })) }),
      'resources/templates/list': () => ({ resourceTemplates: templates.map((uriTemplate) => ({ uriTemplate, name: uriTemplate })) }),
      'resources/read': (params) => ({ contents: [{ uri: String(params.uri), text: `${name} has ${String(params.uri)}` }] }),
      'resources/subscribe': () => ({}),
      'resources/unsubscribe': () => ({}),
    });
  }

  test('URIs are unchanged; reads go to the member that listed the URI, or whose template matches it', async () => {
    const { h } = await start([
      { name: 'a', upstream: resources('a', ['file:///a.txt'], ['docs://{id}']) },
      { name: 'b', upstream: resources('b', ['file:///b.txt'], ['mem://entity/{name}']) },
    ]);
    const { resources: listed } = await h.request('resources/list');
    assert.deepEqual(listed.map((r) => r.uri), ['file:///a.txt', 'file:///b.txt']);
    const templates = await h.request('resources/templates/list');
    assert.deepEqual(templates.resourceTemplates.map((t) => t.uriTemplate), ['docs://{id}', 'mem://entity/{name}']);
    const read = async (uri: string): Promise<string> => ((await h.request('resources/read', { uri })).contents[0] as { text: string }).text;
    assert.equal(await read('file:///b.txt'), 'b has file:///b.txt');
    assert.equal(await read('mem://entity/bob'), 'b has mem://entity/bob');
    assert.equal(await read('docs://42'), 'a has docs://42');
  });

  test('a URI two members list belongs to the first', async () => {
    const { h } = await start([
      { name: 'a', upstream: resources('a', ['file:///same']) },
      { name: 'b', upstream: resources('b', ['file:///same']) },
    ]);
    assert.deepEqual((await h.request('resources/list')).resources.map((r) => r.uri), ['file:///same']);
    assert.equal(((await h.request('resources/read', { uri: 'file:///same' })).contents[0] as { text: string }).text, 'a has file:///same');
  });

  test('resources/updated reaches the client only for URIs it subscribed to', async () => {
    const b = resources('b', ['file:///b.txt', 'file:///c.txt']);
    const { h } = await start([{ name: 'a', upstream: resources('a', ['file:///a.txt']) }, { name: 'b', upstream: b }]);
    await h.request('resources/subscribe', { uri: 'file:///b.txt' });
    await b.downstream?.notify({ method: 'notifications/resources/updated', params: { uri: 'file:///c.txt' } });
    await b.downstream?.notify({ method: 'notifications/resources/updated', params: { uri: 'file:///b.txt' } });
    const updated = await h.notification('notifications/resources/updated');
    assert.deepEqual(updated.params, { uri: 'file:///b.txt' });
    assert.equal(h.notifications('notifications/resources/updated').length, 1);
    assert.ok(b.received.some((m) => m.method === 'resources/subscribe' && m.params?.uri === 'file:///b.txt'));
  });
});

describe('aggregate: everything else', () => {
  test('logging/setLevel goes to every member with logging', async () => {
    const a = new ScriptedMember({ logging: {} }, { 'logging/setLevel': () => ({}) });
    const b = new ScriptedMember({ logging: {} }, { 'logging/setLevel': () => ({}) });
    const c = new ScriptedMember({ tools: {} });
    const { h } = await start([{ name: 'a', upstream: a }, { name: 'b', upstream: b }, { name: 'c', upstream: c }]);
    await h.request('logging/setLevel', { level: 'debug' });
    for (const member of [a, b]) assert.ok(member.received.some((m) => m.method === 'logging/setLevel' && m.params?.level === 'debug'));
    assert.ok(!c.received.some((m) => m.method === 'logging/setLevel'));
  });

  test("a member's sampling request reaches the client of the session, and its answer comes back", async () => {
    const asking = new ScriptedMember({ tools: {} }, {
      'tools/list': () => ({ tools: [tool('ask')] }),
      'tools/call': async (_params, scope, downstream) => {
        const answer = await (scope.related ?? downstream).request({ method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } }, scope);
        return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
      },
    });
    const { h } = await start([{ name: 'asking', upstream: asking }, { name: 'other', upstream: echo('other') }]);
    h.handle('sampling/createMessage', () => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }));
    const result = await h.request('tools/call', { name: 'asking__ask', arguments: {} });
    assert.deepEqual(JSON.parse(texts(result)[0] ?? ''), { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' });
  });

  test('tasks/get, tasks/result and tasks/cancel go to the member that made the task; tasks/list merges', async () => {
    const taskMember = (name: string): ScriptedMember =>
      new ScriptedMember({ tools: {}, tasks: { list: {}, cancel: {} } }, {
        'tools/list': () => ({ tools: [tool('slow')] }),
        'tools/call': () => ({ task: { taskId: `${name}-task`, status: 'working', createdAt: '2026-01-01T00:00:00Z', ttl: 1000 } }),
        'tasks/get': (params) => ({ taskId: params.taskId, status: 'working', by: name }),
        'tasks/list': () => ({ tasks: [{ taskId: `${name}-listed`, status: 'completed' }] }),
      });
    const { h } = await start([{ name: 'a', upstream: taskMember('a') }, { name: 'b', upstream: taskMember('b') }]);
    const made = await h.call('tools/call', { name: 'b__slow', arguments: {}, task: { ttl: 1000 } });
    assert.equal(((made.result as JsonObject).task as JsonObject).taskId, 'b-task');
    assert.equal((await h.request('tasks/get', { taskId: 'b-task' })).by, 'b');
    const listed = await h.request('tasks/list');
    assert.deepEqual(listed.tasks.map((t) => t.taskId), ['a-listed', 'b-listed']);
    assert.equal((await h.request('tasks/get', { taskId: 'a-listed' })).by, 'a');
    await expectError(h.request('tasks/get', { taskId: 'nobody' }), ErrorCode.InvalidParams, /Unknown task/);
  });

  test('a method the aggregate does not know goes to the first member that knows it', async () => {
    const b = new ScriptedMember({}, { 'x/custom': () => ({ from: 'b' }) });
    const { h } = await start([{ name: 'a', upstream: new ScriptedMember({}) }, { name: 'b', upstream: b }]);
    assert.deepEqual((await h.call('x/custom', {})).result, { from: 'b' });
    const unknown = await h.call('x/nobody', {});
    assert.equal((unknown.error as JsonObject).code, ErrorCode.MethodNotFound);
  });
});

describe('aggregate: update', () => {
  test('members added and removed while a session runs: only those change, and the client hears list_changed', async () => {
    const a = echo('a');
    const b = echo('b');
    const { h, gateway } = await start([{ name: 'a', upstream: a }, { name: 'b', upstream: b }]);
    await h.request('tools/list');
    const c = echo('c');
    await gateway.update([{ name: 'a', upstream: a }, { name: 'c', upstream: c }]);
    await h.notification('notifications/tools/list_changed');
    assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['a__echo', 'a__add', 'c__echo', 'c__add']);
    assert.equal(a.connections, 1, 'a kept its connection');
    assert.equal(b.closed, 1, 'b was closed');
    assert.ok(c.received.some((m) => m.method === 'initialize'), 'c was initialized');
    assert.ok(c.notified.some((m) => m.method === 'notifications/initialized'));
  });

  test('two members with one name are refused', () => {
    assert.throws(() => aggregate([{ name: 'x', upstream: echo('1') }, { name: 'x', upstream: echo('2') }]), /two members are named "x"/);
  });
});


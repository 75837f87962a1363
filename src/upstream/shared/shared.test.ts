import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import type { JsonObject, Result } from '../../message/jsonrpc.js';
import { harness, type Harness } from '../../testing/harness.js';
import { local } from '../local.js';
import { WireServer } from './_test/wire-server.js';
import { shared } from './shared.js';

/** Resolves once `count` messages of `method` have reached the server. */
function arrived(server: WireServer, method: string, count: number): Promise<void> {
  if (server.of(method).length >= count) return Promise.resolve();
  return server.waitFor(() => server.of(method).length >= count).then(() => undefined);
}

function textOf(result: JsonObject): string {
  return (result.content as Array<{ text: string }>)[0]?.text ?? '';
}

async function sessions(count: number, upstream: ReturnType<typeof shared>): Promise<Harness[]> {
  const list: Harness[] = [];
  for (let i = 0; i < count; i++) list.push(await harness(chain().to(upstream)));
  return list;
}

describe('shared upstream: one connection for many sessions', () => {
  test('the first session opens it and initializes it; the others get the cached result; initialized goes up once', async () => {
    const server = new WireServer();
    const upstream = shared(server);
    assert.equal(upstream.opened, false);
    const [a, b, c] = await sessions(3, upstream);
    assert.ok(a && b && c);
    assert.equal(server.connects, 1);
    assert.equal(upstream.sessions, 3);
    assert.equal(server.of('initialize').length, 1);
    await arrived(server, 'notifications/initialized', 1);
    const later = await harness(chain().to(upstream), { initialize: false });
    const result = await later.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } });
    // The upstream negotiated once: a later client is answered the version it negotiated.
    assert.equal(result.protocolVersion, '2025-11-25');
    assert.deepEqual(result.serverInfo, { name: 'wire', version: '1.0.0' });
    assert.equal(server.of('initialize').length, 1);
    later.notify('notifications/initialized');
    await later.request('tools/list').catch(() => undefined);
    assert.equal(server.of('notifications/initialized').length, 1);
    for (const h of [a, b, c, later]) await h.close();
    assert.equal(server.closes, 0, 'sessions ending leave the shared connection open');
    assert.equal(upstream.sessions, 0);
    await upstream.close();
    assert.equal(server.closes, 1);
  });

  test('a session arriving after all the others left still uses the same connection', async () => {
    const server = new WireServer().on('ping-tool', () => ({ ok: true }));
    const upstream = shared(server);
    const [a] = await sessions(1, upstream);
    await a?.close();
    const [b] = await sessions(1, upstream);
    assert.deepEqual(await b?.request('ping-tool'), { ok: true });
    assert.equal(server.connects, 1);
    await b?.close();
    await upstream.close();
  });

  test('concurrent sessions using the same request ids and progress tokens get only their own replies and progress', async () => {
    const perSession = 5;
    const server = new WireServer();
    let release!: () => void;
    const all = new Promise<void>((resolve) => (release = resolve));
    server.on('tools/call', async (params) => {
      const meta = params._meta as JsonObject;
      const text = String((params.arguments as JsonObject).text);
      server.send({ method: 'notifications/progress', params: { progressToken: meta.progressToken as string, progress: 1, message: text } });
      await all;
      return { content: [{ type: 'text', text }] };
    });
    const upstream = shared(server);
    const hs = await sessions(3, upstream);
    const replies = hs.map((h, s) => Array.from({ length: perSession }, (_, i) =>
      // Every session uses the same ids (c0..c4) and the same progress token.
      h.call('tools/call', { name: 'echo', arguments: { text: `s${s}-${i}` }, _meta: { progressToken: 'p' } }, `c${i}`)));
    await arrived(server, 'tools/call', hs.length * perSession);
    const calls = server.of('tools/call');
    assert.equal(new Set(calls.map((m) => m.id)).size, calls.length, 'upstream ids are all distinct');
    const tokens = calls.map((m) => ((m.params as JsonObject)._meta as JsonObject).progressToken);
    assert.equal(new Set(tokens).size, tokens.length, 'upstream progress tokens are all distinct');
    release();
    for (const [s, h] of hs.entries()) {
      const answers = await Promise.all(replies[s] ?? []);
      assert.deepEqual(answers.map((r) => [r.id, textOf(r.result as JsonObject)]), Array.from({ length: perSession }, (_, i) => [`c${i}`, `s${s}-${i}`]));
      const progress = h.notifications('notifications/progress').map((m) => m.params?.message);
      assert.deepEqual([...progress].sort(), Array.from({ length: perSession }, (_, i) => `s${s}-${i}`));
      assert.ok(h.notifications('notifications/progress').every((m) => m.params?.progressToken === 'p'));
    }
    for (const h of hs) await h.close();
    await upstream.close();
  });

  test("cancelling one session's request cancels only that upstream request", async () => {
    const server = new WireServer();
    const held = new Map<string, () => void>();
    server.on('tools/call', (params) => new Promise<Result>((resolve) => {
      held.set(String((params.arguments as JsonObject).text), () => resolve({ content: [{ type: 'text', text: 'done' }] }));
    }));
    const upstream = shared(server);
    const [a, b] = await sessions(2, upstream);
    assert.ok(a && b);
    a.call('tools/call', { name: 'slow', arguments: { text: 'a' } }, 'same').catch(() => undefined);
    const bReply = b.call('tools/call', { name: 'slow', arguments: { text: 'b' } }, 'same');
    await arrived(server, 'tools/call', 2);
    const aUpstreamId = server.of('tools/call').find((m) => (m.params as JsonObject & { arguments: JsonObject }).arguments.text === 'a')?.id;
    const cancelled = server.waitFor((m) => m.method === 'notifications/cancelled');
    a.notify('notifications/cancelled', { requestId: 'same', reason: 'no longer needed' });
    assert.equal((await cancelled).params && (((await cancelled).params as JsonObject).requestId), aUpstreamId);
    held.get('b')?.();
    assert.equal(textOf((await bReply).result as JsonObject), 'done');
    assert.equal(server.of('notifications/cancelled').length, 1);
    await a.close();
    await b.close();
    await upstream.close();
  });

  test('a session that ends cancels its requests in flight upstream; the others carry on', async () => {
    const server = new WireServer();
    server.on('tools/call', (params) => (params.name === 'hang' ? new Promise<Result>(() => undefined) : { content: [{ type: 'text', text: 'ok' }] }));
    const upstream = shared(server);
    const [a, b] = await sessions(2, upstream);
    assert.ok(a && b);
    void a.call('tools/call', { name: 'hang', arguments: {} });
    await arrived(server, 'tools/call', 1);
    const hangId = server.of('tools/call')[0]?.id;
    const cancelled = server.waitFor((m) => m.method === 'notifications/cancelled');
    await a.close();
    assert.equal(((await cancelled).params as JsonObject).requestId, hangId);
    assert.equal(textOf(await b.request('tools/call', { name: 'echo', arguments: {} })), 'ok');
    assert.equal(server.closes, 0);
    await b.close();
    await upstream.close();
  });
});

describe('shared upstream: server→client requests', () => {
  test('a request related to a session\'s call (in-process server) reaches that session, even with others busy', async () => {
    let arrivedCount = 0;
    let bothIn!: () => void;
    const barrier = new Promise<void>((resolve) => (bothIn = resolve));
    const server = local({
      tools: [{
        name: 'whoami',
        handler: async (_args, ctx) => {
          if (++arrivedCount === 2) bothIn();
          await barrier;
          const roots = await ctx.downstream.request({ method: 'roots/list' }, { signal: ctx.signal });
          return { content: [{ type: 'text', text: String((roots.roots as Array<{ name: string }>)[0]?.name) }] };
        },
      }],
    });
    const upstream = shared(server);
    const [a, b] = await sessions(2, upstream);
    assert.ok(a && b);
    a.handle('roots/list', () => ({ roots: [{ uri: 'file:///a', name: 'a' }] }));
    b.handle('roots/list', () => ({ roots: [{ uri: 'file:///b', name: 'b' }] }));
    const [ra, rb] = await Promise.all([a.request('tools/call', { name: 'whoami' }), b.request('tools/call', { name: 'whoami' })]);
    assert.equal(textOf(ra), 'a');
    assert.equal(textOf(rb), 'b');
    await a.close();
    await b.close();
    await upstream.close();
  });

  test('without a relation: to the only session with requests in flight; refused when several have some', async () => {
    const server = new WireServer();
    const held: Array<() => void> = [];
    server.on('tools/call', () => new Promise<Result>((resolve) => held.push(() => resolve({ content: [] }))));
    const upstream = shared(server);
    const [a, b] = await sessions(2, upstream);
    assert.ok(a && b);
    a.handle('roots/list', () => ({ roots: [{ uri: 'file:///a', name: 'a' }] }));
    b.handle('roots/list', () => ({ roots: [{ uri: 'file:///b', name: 'b' }] }));

    // Nobody busy and two sessions: nobody to tell apart.
    const idle = await server.ask('roots/list');
    assert.equal((idle.error as JsonObject).code, -32603);

    const aCall = a.request('tools/call', { name: 'x' });
    await arrived(server, 'tools/call', 1);
    const toA = await server.ask('roots/list');
    assert.deepEqual(toA.result, { roots: [{ uri: 'file:///a', name: 'a' }] });

    const bCall = b.request('tools/call', { name: 'x' });
    await arrived(server, 'tools/call', 2);
    const refused = await server.ask('sampling/createMessage', { messages: [], maxTokens: 1 });
    assert.equal((refused.error as JsonObject).code, -32603);
    assert.match(String((refused.error as JsonObject).message), /cannot tell which client session sampling\/createMessage is for/);
    assert.equal(a.received.filter((m) => (m as JsonObject).method === 'sampling/createMessage').length, 0);
    assert.equal(b.received.filter((m) => (m as JsonObject).method === 'sampling/createMessage').length, 0);

    for (const release of held) release();
    await Promise.all([aCall, bCall]);
    await b.close();
    // One session left, idle: it is the only one the request can be for.
    const toOnly = await server.ask('roots/list');
    assert.deepEqual(toOnly.result, { roots: [{ uri: 'file:///a', name: 'a' }] });
    await a.close();
    await upstream.close();
  });
});

describe('shared upstream: notifications', () => {
  test('resources/updated reaches only the subscribers; the upstream is subscribed once and unsubscribed by the last one to leave', async () => {
    const server = new WireServer();
    const upstream = shared(server);
    const [a, b, c] = await sessions(3, upstream);
    assert.ok(a && b && c);
    await a.request('resources/subscribe', { uri: 'r://1' });
    await b.request('resources/subscribe', { uri: 'r://1' });
    await c.request('resources/subscribe', { uri: 'r://2' });
    assert.deepEqual(server.of('resources/subscribe').map((m) => (m.params as JsonObject).uri), ['r://1', 'r://2']);

    const toA = a.notification('notifications/resources/updated');
    const toB = b.notification('notifications/resources/updated');
    server.send({ method: 'notifications/resources/updated', params: { uri: 'r://1' } });
    await Promise.all([toA, toB]);
    // Marker: c receives r://2 after anything about r://1 would have come.
    const toC = c.notification('notifications/resources/updated');
    server.send({ method: 'notifications/resources/updated', params: { uri: 'r://2' } });
    assert.deepEqual((await toC).params, { uri: 'r://2' });
    assert.deepEqual(c.notifications('notifications/resources/updated').map((m) => m.params?.uri), ['r://2']);
    assert.deepEqual(a.notifications('notifications/resources/updated').map((m) => m.params?.uri), ['r://1']);

    await a.request('resources/unsubscribe', { uri: 'r://1' });
    assert.equal(server.of('resources/unsubscribe').length, 0, 'b is still subscribed');
    const unsubscribed = server.waitFor((m) => m.method === 'resources/unsubscribe');
    await b.close();
    assert.deepEqual((await unsubscribed).params, { uri: 'r://1' });
    await c.close();
    assert.deepEqual(server.of('resources/unsubscribe').map((m) => (m.params as JsonObject).uri), ['r://1', 'r://2']);
    await a.close();
    await upstream.close();
  });

  test('list_changed reaches every session', async () => {
    const server = new WireServer();
    const upstream = shared(server);
    const hs = await sessions(3, upstream);
    const all = hs.map((h) => h.notification('notifications/tools/list_changed'));
    server.send({ method: 'notifications/tools/list_changed' });
    const received = await Promise.all(all);
    assert.deepEqual(received, hs.map(() => ({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })));
    // Once each: a marker sent after it reaches every session, and nothing else came in between.
    const marker = hs.map((h) => h.notification('notifications/prompts/list_changed'));
    server.send({ method: 'notifications/prompts/list_changed' });
    await Promise.all(marker);
    for (const h of hs) assert.deepEqual(h.notifications().map((m) => m.method), ['notifications/tools/list_changed', 'notifications/prompts/list_changed']);
    for (const h of hs) await h.close();
    await upstream.close();
  });

  test('logging: the upstream gets the most verbose level asked; each session gets only messages at its own level', async () => {
    const server = new WireServer();
    const upstream = shared(server);
    const [a, b] = await sessions(2, upstream);
    assert.ok(a && b);
    await a.request('logging/setLevel', { level: 'error' });
    await b.request('logging/setLevel', { level: 'debug' });
    await a.request('logging/setLevel', { level: 'warning' });
    assert.deepEqual(server.of('logging/setLevel').map((m) => (m.params as JsonObject).level), ['error', 'debug']);

    const infoToB = b.notification('notifications/message');
    server.send({ method: 'notifications/message', params: { level: 'info', data: 'i' } });
    await infoToB;
    const errorToA = a.notification('notifications/message');
    server.send({ method: 'notifications/message', params: { level: 'error', data: 'e' } });
    assert.equal(((await errorToA).params as JsonObject).data, 'e');
    assert.deepEqual(a.notifications('notifications/message').map((m) => m.params?.data), ['e']);

    const lowered = server.waitFor((m) => m.method === 'logging/setLevel');
    await b.close();
    assert.equal(((await lowered).params as JsonObject).level, 'warning');
    await a.close();
    await upstream.close();
  });
});

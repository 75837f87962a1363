import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../chain/chain.js';
import { harness } from '../testing/harness.js';
import { local, type LocalCallContext, type LocalTool } from '../upstream/local.js';
import type { Upstream } from '../core/upstream.js';

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const echoTool: LocalTool = {
  name: 'echo',
  inputSchema: { type: 'object' },
  handler: (args) => ({ content: [{ type: 'text', text: String(args.text) }] }),
};

function server(...tools: LocalTool[]) {
  return chain().to(local({ name: 'test-server', version: '1.2.3', tools: [echoTool, ...tools] }));
}

/** A tool that never answers, and records when its signal aborts. */
function hangTool(aborted: { resolve: (reason: unknown) => void }, started?: { resolve: () => void }): LocalTool {
  return {
    name: 'hang',
    handler: (_args, ctx) =>
      new Promise(() => {
        started?.resolve();
        ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason));
      }),
  };
}

describe('Session: lifecycle', () => {
  test('initialize returns the requested version when served, with the upstream capabilities and serverInfo', async () => {
    const h = await harness(server(), { initialize: false });
    const result = await h.initialize('2025-06-18');
    assert.equal(result.protocolVersion, '2025-06-18');
    assert.deepEqual(result.capabilities, { tools: {} });
    assert.deepEqual(result.serverInfo, { name: 'test-server', version: '1.2.3' });
    await h.close();
  });

  test('an unknown requested version gets the latest served version', async () => {
    const h = await harness(server(), { initialize: false });
    const result = await h.initialize('1999-01-01');
    assert.equal(result.protocolVersion, '2025-11-25');
    await h.close();
  });

  for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    test(`serves protocol version ${version}`, async () => {
      const h = await harness(server(), { initialize: false });
      assert.equal((await h.initialize(version)).protocolVersion, version);
      await h.close();
    });
  }

  test('serverInfo set by the user replaces the upstream one', async () => {
    const h = await harness(server(), { initialize: false, serverInfo: { name: 'gateway', version: '9' } });
    assert.deepEqual((await h.initialize()).serverInfo, { name: 'gateway', version: '9' });
    await h.close();
  });

  test('a request before initialize is refused with -32600, and the session then initializes normally', async () => {
    const h = await harness(server(), { initialize: false });
    const refused = await h.call('tools/list');
    assert.equal((refused.error as { code: number }).code, -32600);
    assert.match((refused.error as { message: string }).message, /not initialized/);
    await h.initialize();
    assert.ok(Array.isArray((await h.request('tools/list')).tools));
    await h.close();
  });

  test('ping is answered before initialize', async () => {
    const h = await harness(server(), { initialize: false });
    assert.deepEqual(await h.request('ping'), {});
    await h.close();
  });

  test('a second initialize is refused with -32600 and the session keeps serving', async () => {
    const h = await harness(server());
    const again = await h.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    assert.equal((again.error as { code: number }).code, -32600);
    assert.deepEqual((await h.request('tools/call', { name: 'echo', arguments: { text: 'still here' } })).content, [{ type: 'text', text: 'still here' }]);
    await h.close();
  });

  test('initialize without a protocolVersion is refused with -32602', async () => {
    const h = await harness(server(), { initialize: false });
    const reply = await h.call('initialize', { capabilities: {} });
    assert.equal((reply.error as { code: number }).code, -32602);
    await h.close();
  });

  test('a request sent while initialize is still pending waits for it instead of failing', async () => {
    const h = await harness(server(), { initialize: false });
    const init = h.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    const list = h.call('tools/list');
    assert.ok('result' in (await init));
    assert.ok('result' in (await list));
    await h.close();
  });

  test("the client's info and capabilities are known to the upstream while it answers initialize", async () => {
    let seen: unknown;
    const upstream: Upstream = {
      connect: (downstream, session) => {
        const inner = server().connect(downstream, session);
        return {
          ...inner,
          request: (message, scope) => {
            if (message.method === 'initialize') seen = { info: session.clientInfo, capabilities: session.clientCapabilities };
            return inner.request(message, scope);
          },
        };
      },
    };
    const h = await harness(chain().to(upstream), { initialize: false });
    await h.call('initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: { url: {} } }, clientInfo: { name: 'x', version: '1' } });
    assert.deepEqual(seen, { info: { name: 'x', version: '1' }, capabilities: { elicitation: { url: {} } } });
    await h.close();
  });
});

describe('Session: bad input', () => {
  test('invalid JSON gets -32700 with id null, and the next request is served', async () => {
    const h = await harness(server());
    const error = h.next(null);
    h.sendRaw('{"jsonrpc":"2.0","id":1,"method":\n');
    assert.deepEqual((await error).error, { code: -32700, message: 'Parse error: invalid JSON' });
    assert.ok('result' in (await h.call('tools/list')));
    await h.close();
  });

  test('invalid UTF-8 gets -32700, and the next request is served', async () => {
    const h = await harness(server());
    const error = h.next(null);
    h.sendRaw(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]));
    assert.equal(((await error).error as { code: number }).code, -32700);
    assert.ok('result' in (await h.call('tools/list')));
    await h.close();
  });

  test('a structurally invalid request gets -32600 with its id echoed', async () => {
    const h = await harness(server());
    const error = h.next(9);
    h.send({ jsonrpc: '1.0', id: 9, method: 'tools/list' });
    assert.equal(((await error).error as { code: number }).code, -32600);
    const nullId = h.next(null);
    h.send({ jsonrpc: '2.0', id: null, method: 'tools/list' });
    assert.equal(((await nullId).error as { code: number }).code, -32600);
    assert.ok('result' in (await h.call('tools/list')));
    await h.close();
  });

  test('a message over the size limit gets -32600 with id null, and the session goes on', async () => {
    const h = await harness(server(), { maxMessageBytes: 4096 });
    const error = h.next(null);
    h.send({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(10_000) } } });
    assert.equal(((await error).error as { code: number }).code, -32600);
    assert.match(((await error).error as { message: string }).message, /larger than 4096 bytes/);
    assert.ok('result' in (await h.call('tools/call', { name: 'echo', arguments: { text: 'small' } })));
    await h.close();
  });

  test('an unknown method is forwarded and the upstream answer (-32601) comes back with the client id', async () => {
    const h = await harness(server());
    const reply = await h.call('vendor/unknown', {}, 'id-42');
    assert.equal(reply.id, 'id-42');
    assert.equal((reply.error as { code: number }).code, -32601);
    await h.close();
  });

  test('ids of every legal type come back exactly as sent', async () => {
    const h = await harness(server());
    for (const id of [0, -1, 1.5, 2 ** 40, '', 'x', '1']) {
      const reply = await h.call('ping', undefined, id);
      assert.equal(reply.id, id);
    }
    assert.equal((await h.call('tools/list', undefined, 7)).id, 7);
    assert.equal((await h.call('tools/list', undefined, '7')).id, '7');
    await h.close();
  });

  test('a duplicate in-flight id is refused with -32600 without disturbing the first request', async () => {
    const release = deferred();
    const started = deferred();
    const slow: LocalTool = {
      name: 'slow',
      handler: async () => {
        started.resolve();
        await release.promise;
        return { content: [{ type: 'text', text: 'first' }] };
      },
    };
    const h = await harness(server(slow));
    const first = h.waitFor((m) => m.id === 'dup' && 'result' in m);
    h.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'slow' } });
    await started.promise;
    const refusal = h.waitFor((m) => m.id === 'dup' && 'error' in m);
    h.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'echo', arguments: { text: 'second' } } });
    const refused = await refusal;
    assert.equal((refused.error as { code: number }).code, -32600);
    release.resolve();
    const answered = await first;
    assert.deepEqual((answered.result as { content: unknown }).content, [{ type: 'text', text: 'first' }]);
    await h.close();
  });

  test('an error thrown by a middleware that is not an McpError becomes -32603 with a generic message', async () => {
    const h = await harness(chain(async () => {
      throw new Error('secret internal detail');
    }).to(local({})), { initialize: false });
    const reply = await h.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    assert.deepEqual(reply.error, { code: -32603, message: 'Internal error' });
    await h.close();
  });

  test('a request middleware that resolves to undefined without calling next gives -32603, not a hang', async () => {
    const h = await harness(chain(async (ctx, next) => (ctx.method === 'tools/list' ? undefined : next())).to(local({ tools: [echoTool] })));
    assert.deepEqual((await h.call('tools/list')).error, { code: -32603, message: 'Internal error' });
    await h.close();
  });
});

describe('Session: batches', () => {
  test('at 2025-03-26 a batch gets one array of answers; notifications in it get none', async () => {
    const h = await harness(server(), { protocolVersion: '2025-03-26' });
    const batch = h.waitFor(() => true);
    h.send([
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'echo', arguments: { text: 'A' } } },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 'b', method: 'ping' },
      { jsonrpc: '2.0', id: 'c', method: 5 },
    ]);
    await batch;
    const reply = h.received.at(-1);
    assert.ok(Array.isArray(reply));
    const byId = new Map((reply as Array<{ id: string }>).map((r) => [r.id, r]));
    assert.equal(byId.size, 3);
    assert.deepEqual((byId.get('a') as unknown as { result: { content: unknown } }).result.content, [{ type: 'text', text: 'A' }]);
    assert.deepEqual((byId.get('b') as unknown as { result: unknown }).result, {});
    assert.equal((byId.get('c') as unknown as { error: { code: number } }).error.code, -32600);
    await h.close();
  });

  test('an empty batch is -32600', async () => {
    const h = await harness(server(), { protocolVersion: '2025-03-26' });
    const error = h.next(null);
    h.send([]);
    assert.equal(((await error).error as { code: number }).code, -32600);
    await h.close();
  });

  test('a batch at 2025-06-18 is refused with -32600 and nothing in it runs', async () => {
    let ran = false;
    const h = await harness(server({ name: 'mark', handler: () => ((ran = true), { content: [] }) }), { protocolVersion: '2025-06-18' });
    const error = h.next(null);
    h.send([{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mark' } }]);
    assert.equal(((await error).error as { code: number }).code, -32600);
    assert.equal(ran, false);
    assert.ok('result' in (await h.call('tools/list')));
    await h.close();
  });
});

describe('Session: cancellation, timeouts, progress', () => {
  test('notifications/cancelled from the client aborts the upstream request and no response is sent', async () => {
    const aborted = deferred<unknown>();
    const started = deferred();
    const h = await harness(server(hangTool(aborted, started)));
    let answered = false;
    void h.call('tools/call', { name: 'hang' }, 'c1').then(() => (answered = true), () => undefined);
    await started.promise;
    h.notify('notifications/cancelled', { requestId: 'c1', reason: 'user gave up' });
    await aborted.promise;
    // The next request is answered, and the cancelled one still is not.
    assert.ok('result' in (await h.call('tools/list')));
    assert.equal(answered, false);
    await h.close();
  });

  test('a request past its deadline gets -32001 and the upstream is cancelled', async () => {
    const aborted = deferred<unknown>();
    const h = await harness(server(hangTool(aborted)), { timeouts: { request: 50 } });
    const reply = await h.call('tools/call', { name: 'hang' });
    assert.equal((reply.error as { code: number }).code, -32001);
    assert.equal((reply.error as { message: string }).message, 'Request timed out');
    assert.equal(((await aborted.promise) as { code: number }).code, -32001);
    assert.ok('result' in (await h.call('tools/list')));
    await h.close();
  });

  test('per-tool timeouts override the default', async () => {
    const aborted = deferred<unknown>();
    const h = await harness(server(hangTool(aborted)), { timeouts: { request: 600_000, tools: { hang: 30 } } });
    assert.equal(((await h.call('tools/call', { name: 'hang' })).error as { code: number }).code, -32001);
    await h.close();
  });

  test('progress reaches the client with its own token, and extends the deadline but never past the maximum', async (t) => {
    const called = deferred<LocalCallContext>();
    const ticker: LocalTool = { name: 'ticker', handler: (_args, ctx) => new Promise(() => called.resolve(ctx)) };
    const h = await harness(server(ticker), { timeouts: { request: 40, max: 100 } });
    // The clock is the test's: time passes only by tick(), so what the deadline sees is exact.
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const reply = h.call('tools/call', { name: 'ticker', _meta: { progressToken: 'tok-1' } });
    const ctx = await called.promise;
    /** Progress from the tool, once it has reached the client (so the Session has seen it). */
    const progress = async (n: number): Promise<void> => {
      const arrived = h.notification('notifications/progress');
      await ctx.progress(n);
      await arrived;
    };
    t.mock.timers.tick(30);
    await progress(1);
    t.mock.timers.tick(30);
    assert.equal(ctx.signal.aborted, false, 'at 60 ms, past the first 40: progress at 30 extended it to 70');
    await progress(2);
    t.mock.timers.tick(39);
    assert.equal(ctx.signal.aborted, false, 'at 99 ms: progress at 60 extended it to the maximum, 100');
    await progress(3);
    t.mock.timers.tick(1);
    assert.equal(ctx.signal.aborted, true, 'at 100 ms: the maximum, however recent the progress');
    const answer = await reply;
    assert.deepEqual(answer.error, { code: -32001, message: 'Request timed out', data: { timeout: 40 } });
    assert.deepEqual(h.notifications('notifications/progress').map((p) => [p.params?.progressToken, p.params?.progress]), [['tok-1', 1], ['tok-1', 2], ['tok-1', 3]]);
    await h.close();
  });

  test('a request the client cancelled, or whose session ended, leaves no deadline timer behind', async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const started = [deferred(), deferred()];
    let calls = 0;
    // It never settles, even when aborted: only the Session can end its deadline.
    const ignoring: LocalTool = { name: 'ignoring', handler: () => new Promise(() => started[calls++]?.resolve()) };
    const h = await harness(server(ignoring), { timeouts: { request: 600_000 } });
    const before = timers();
    void h.call('tools/call', { name: 'ignoring' }, 'cancelled').catch(() => undefined);
    await started[0]?.promise;
    h.notify('notifications/cancelled', { requestId: 'cancelled' });
    void h.call('tools/call', { name: 'ignoring' }, 'closed').catch(() => undefined);
    await started[1]?.promise;
    // Two waits for the responses (the harness's safety nets) and one deadline: the open call's.
    assert.equal(timers(), before + 3, 'the cancelled call\'s 10-minute deadline is gone');
    await h.close();
    assert.equal(timers(), before, 'the session ended: the open call\'s deadline is gone too');
  });
});

describe('Session: server→client requests', () => {
  test('a sampling request from the upstream reaches the client and its answer comes back', async () => {
    const asker: LocalTool = {
      name: 'ask',
      handler: async (_args, ctx) => {
        const answer = await ctx.downstream.request(
          { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi?' } }], maxTokens: 5 } },
          { signal: ctx.signal },
        );
        return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
      },
    };
    const h = await harness(server(asker), { capabilities: { sampling: {} } });
    h.handle('sampling/createMessage', () => ({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' }));
    const result = await h.request('tools/call', { name: 'ask' });
    assert.deepEqual(JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? ''), {
      role: 'assistant',
      content: { type: 'text', text: 'hello' },
      model: 'm',
    });
    await h.close();
  });
});

describe('Session: cancellation in both directions', () => {
  test('a late answer to a cancelled request is dropped, never delivered', async () => {
    const release = deferred();
    const started = deferred();
    const late: LocalTool = {
      name: 'late',
      handler: async () => {
        started.resolve();
        await release.promise; // ignores the abort on purpose
        return { content: [{ type: 'text', text: 'too late' }] };
      },
    };
    const h = await harness(server(late));
    h.send({ jsonrpc: '2.0', id: 'L', method: 'tools/call', params: { name: 'late' } });
    await started.promise;
    h.notify('notifications/cancelled', { requestId: 'L' });
    await h.request('ping');
    release.resolve();
    await h.request('tools/list');
    await h.request('ping');
    assert.equal(h.received.filter((m) => (m as { id?: unknown }).id === 'L').length, 0);
    await h.close();
  });

  test('when the upstream gives up a request it sent the client, the client gets notifications/cancelled with its id', async () => {
    const asked = deferred();
    const stop = new AbortController();
    const asker: LocalTool = {
      name: 'ask-then-give-up',
      handler: async (_args, ctx) => {
        const pending = ctx.downstream.request({ method: 'roots/list' }, { signal: stop.signal });
        asked.resolve();
        await pending.catch(() => undefined);
        return { content: [{ type: 'text', text: 'gave up' }] };
      },
    };
    const h = await harness(server(asker), { capabilities: { roots: {} } });
    const request = h.waitFor((m) => m.method === 'roots/list');
    h.handle('roots/list', () => new Promise(() => undefined)); // the client never answers
    const call = h.request('tools/call', { name: 'ask-then-give-up' });
    const { id } = await request;
    await asked.promise;
    const cancelled = h.notification('notifications/cancelled');
    stop.abort(new Error('upstream gave up'));
    assert.deepEqual((await cancelled).params, { requestId: id, reason: 'upstream gave up' });
    assert.deepEqual((await call).content, [{ type: 'text', text: 'gave up' }]);
    await h.close();
  });

  test('when the client goes away, requests in flight are aborted upstream', async () => {
    const aborted = deferred<unknown>();
    const started = deferred();
    const h = await harness(server(hangTool(aborted, started)));
    void h.call('tools/call', { name: 'hang' });
    await started.promise;
    await h.close();
    assert.equal(((await aborted.promise) as { code: number }).code, -32000);
  });
});

describe('Session: a failed initialize', () => {
  test('leaves the session uninitialized, and a later initialize still holds back requests until it completes', async () => {
    const events: string[] = [];
    const release = deferred();
    const slowStart: Upstream = {
      connect: () => ({
        request: async (message) => {
          events.push(`${message.method} arrives`);
          if (message.method !== 'initialize') return { tools: [] };
          await release.promise;
          events.push('initialize done');
          return { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } };
        },
        notify: () => Promise.resolve(),
        close: () => Promise.resolve(),
      }),
    };
    const h = await harness(slowStart, { initialize: false });
    const bad = await h.call('initialize', { capabilities: {} });
    assert.equal((bad.error as { code: number }).code, -32602);
    assert.equal(((await h.call('tools/list')).error as { code: number }).code, -32600);
    const init = h.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    const list = h.call('tools/list');
    await h.request('ping');
    release.resolve();
    assert.ok('result' in (await init));
    assert.ok('result' in (await list));
    assert.deepEqual(events, ['initialize arrives', 'initialize done', 'tools/list arrives']);
    await h.close();
  });
});

describe('Session: the identity of its client', () => {
  test("updateIdentity: what comes next sees the newer identity (a refreshed or stepped-up token); a session opened without one keeps none", async () => {
    const seen: unknown[] = [];
    const whoami: LocalTool = {
      name: 'whoami',
      handler: (_args, ctx: LocalCallContext) => {
        seen.push(ctx.session.identity?.scopes);
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    };
    const h = await harness(server(whoami), { identity: { id: 'bob', method: 'oauth', scopes: ['mcp'] } });
    await h.request('tools/call', { name: 'whoami', arguments: {} });
    h.session.updateIdentity({ id: 'bob', method: 'oauth', scopes: ['mcp', 'deploy'] });
    await h.request('tools/call', { name: 'whoami', arguments: {} });
    assert.deepEqual(seen, [['mcp'], ['mcp', 'deploy']]);
    assert.deepEqual(h.session.info.identity?.scopes, ['mcp', 'deploy']);
    await h.close();

    const anonymous = await harness(server());
    anonymous.session.updateIdentity({ id: 'bob', method: 'oauth' });
    assert.equal(anonymous.session.info.identity, undefined);
    assert.ok(!('identity' in anonymous.session.info));
    await anonymous.close();
  });
});

describe('Session: single faults (stray responses, unknown cancellations, a cancelled initialize)', () => {
  test('responses for ids nobody asked and cancellations of unknown or answered ids are dropped unanswered, and the next request is served', async () => {
    const h = await harness(server());
    const answered = await h.call('tools/list', undefined, 'done');
    assert.ok('result' in answered);
    const before = h.received.length;
    h.send({ jsonrpc: '2.0', id: 'nobody-asked', result: {} });
    h.send({ jsonrpc: '2.0', id: 987654, error: { code: -32603, message: 'stray' } });
    h.notify('notifications/cancelled', { requestId: 'never-sent', reason: 'stray' });
    h.notify('notifications/cancelled', { requestId: 'done' });
    h.notify('notifications/cancelled', {});
    // Messages are read in order: once ping is answered, any answer to the strays would have come.
    assert.deepEqual(await h.request('ping'), {});
    assert.ok('result' in (await h.call('tools/call', { name: 'echo', arguments: { text: 'still here' } })));
    assert.equal(h.received.length, before + 2, `only ping and the call were answered: ${JSON.stringify(h.received.slice(before))}`);
    await h.close();
  });

  test('a client cancelling initialize is ignored (the spec forbids it): initialize is answered once and the session works', async () => {
    const release = deferred();
    const reached = deferred();
    const inner = server();
    const held: Upstream = {
      connect(downstream, info) {
        const connection = inner.connect(downstream, info);
        return {
          request: async (message, scope) => {
            if (message.method === 'initialize') {
              reached.resolve();
              await release.promise;
            }
            return connection.request(message, scope);
          },
          notify: (message) => connection.notify(message),
          close: () => connection.close(),
        };
      },
    };
    const h = await harness(held, { initialize: false });
    const initialize = h.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }, 'init');
    await reached.promise;
    h.notify('notifications/cancelled', { requestId: 'init', reason: 'changed my mind' });
    // Read in order: once ping is answered, the cancellation has been handled.
    assert.deepEqual(await h.request('ping'), {});
    release.resolve();
    const reply = await initialize;
    assert.equal((reply.result as { protocolVersion: string }).protocolVersion, '2025-11-25');
    h.notify('notifications/initialized');
    assert.ok('result' in (await h.call('tools/call', { name: 'echo', arguments: { text: 'ok' } })));
    assert.equal(h.received.filter((m) => (m as { id?: unknown }).id === 'init').length, 1, 'initialize answered exactly once');
    await h.close();
  });
});

describe('Session: drain (a graceful end)', () => {
  /** A tool that answers once `release` resolves, after saying it started. */
  function slowTool(release: Promise<void>, started: { resolve: () => void }): LocalTool {
    return {
      name: 'slow',
      handler: async () => {
        started.resolve();
        await release;
        return { content: [{ type: 'text', text: 'done' }] };
      },
    };
  }

  test('an idle session ends at once', async () => {
    const h = await harness(server());
    const result = await h.session.drain(60_000);
    assert.deepEqual(result, { inFlight: 0, cancelled: 0 });
    assert.equal(h.session.closing, true);
    await h.close();
  });

  test('a new request is refused with -32000 while a call in flight completes; then the session ends', async () => {
    const release = deferred();
    const started = deferred();
    const h = await harness(server(slowTool(release.promise, started)));
    const call = h.call('tools/call', { name: 'slow' });
    await started.promise;
    const drained = h.session.drain(60_000);
    assert.equal(h.session.draining, true);
    assert.equal(h.session.inFlight, 1);
    const refused = await h.call('tools/list');
    assert.equal((refused.error as { code: number }).code, -32000);
    assert.match((refused.error as { message: string }).message, /shutting down/);
    // ping is still answered: the client can tell the server is alive.
    assert.ok('result' in (await h.call('ping')));
    assert.equal(h.session.closing, false);
    release.resolve();
    assert.deepEqual((await call).result, { content: [{ type: 'text', text: 'done' }] });
    assert.deepEqual(await drained, { inFlight: 1, cancelled: 0 });
    assert.equal(h.session.closing, true);
    await h.close();
  });

  test("the client's answer to a sampling request still comes through, and the call it belongs to completes", async () => {
    const asked = deferred();
    const answer = deferred();
    const asker: LocalTool = {
      name: 'ask',
      handler: async (_args, ctx) => {
        const reply = await ctx.downstream.request(
          { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi?' } }], maxTokens: 5 } },
          { signal: ctx.signal },
        );
        return { content: [{ type: 'text', text: String((reply.content as { text: string }).text) }] };
      },
    };
    const h = await harness(server(asker), { capabilities: { sampling: {} } });
    h.handle('sampling/createMessage', async () => {
      asked.resolve();
      await answer.promise;
      return { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' };
    });
    const call = h.call('tools/call', { name: 'ask' });
    await asked.promise;
    const drained = h.session.drain(60_000);
    answer.resolve();
    assert.deepEqual((await call).result, { content: [{ type: 'text', text: 'hello' }] });
    assert.deepEqual(await drained, { inFlight: 1, cancelled: 0 });
    await h.close();
  });

  test("the client's cancellation still reaches the upstream, and the session then ends", async () => {
    const aborted = deferred<unknown>();
    const started = deferred();
    const h = await harness(server(hangTool(aborted, started)));
    void h.call('tools/call', { name: 'hang' }, 'c1').catch(() => undefined);
    await started.promise;
    const drained = h.session.drain(60_000);
    h.notify('notifications/cancelled', { requestId: 'c1', reason: 'user gave up' });
    assert.match(String(await aborted.promise), /user gave up/);
    assert.deepEqual(await drained, { inFlight: 1, cancelled: 0 });
    await h.close();
  });

  test('a call past the deadline is cancelled upstream and answered -32000 naming the deadline', async () => {
    const aborted = deferred<unknown>();
    const started = deferred();
    const h = await harness(server(hangTool(aborted, started)));
    const call = h.call('tools/call', { name: 'hang' });
    await started.promise;
    const drained = h.session.drain(30);
    const reply = await call;
    assert.equal((reply.error as { code: number }).code, -32000);
    assert.equal((reply.error as { message: string }).message, 'The gateway is shutting down: the call was cancelled after the drain deadline of 30 ms');
    assert.equal(((await aborted.promise) as { code: number }).code, -32000);
    assert.deepEqual(await drained, { inFlight: 1, cancelled: 1 });
    await h.close();
  });

  test('a deadline of 0 cancels what is in flight at once; a second drain or a close changes nothing', async () => {
    const aborted = deferred<unknown>();
    const started = deferred();
    const h = await harness(server(hangTool(aborted, started)));
    const call = h.call('tools/call', { name: 'hang' });
    await started.promise;
    const drained = h.session.drain(0);
    const again = h.session.drain(60_000);
    assert.match(((await call).error as { message: string }).message, /drain deadline of 0 ms/);
    assert.deepEqual(await drained, { inFlight: 1, cancelled: 1 });
    assert.deepEqual(await again, { inFlight: 1, cancelled: 1 });
    await h.close();
  });

  test('a request that came while initialize was pending is in flight: it goes on once initialize completes, and the session ends after it', async () => {
    const gate = deferred();
    const held = chain()
      .use(async (ctx, next) => {
        if (ctx.method === 'initialize') await gate.promise;
        return next();
      })
      .to(local({ name: 'test-server', version: '1.2.3', tools: [echoTool] }));
    const h = await harness(held, { initialize: false });
    const init = h.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    const list = h.call('tools/list');
    // Both have reached the session: initialize waits at the gate, tools/list for initialize.
    assert.ok((await h.call('ping')).result);
    const drained = h.session.drain(60_000);
    assert.equal(h.session.inFlight, 2);
    gate.resolve();
    assert.ok('result' in (await init));
    assert.ok('result' in (await list));
    assert.deepEqual(await drained, { inFlight: 2, cancelled: 0 });
    await h.close();
  });

  test('close() during a drain ends the session at once (what is in flight gets no answer, as on any close)', async () => {
    const aborted = deferred<unknown>();
    const started = deferred();
    const h = await harness(server(hangTool(aborted, started)));
    void h.call('tools/call', { name: 'hang' }).catch(() => undefined);
    await started.promise;
    const drained = h.session.drain(60_000);
    await h.session.close();
    assert.deepEqual(await drained, { inFlight: 1, cancelled: 0 });
    await h.close();
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { silentLogger } from '../log/stderr-logger.js';
import type { McpMessage, Reply } from '../message/jsonrpc.js';
import type { Downstream } from '../core/downstream.js';
import type { SessionInfo } from '../core/session-info.js';
import { compose } from './compose.js';
import { createContext, type Context } from './context.js';
import type { Middleware } from './middleware.js';

const session: SessionInfo = { id: 's', protocolVersion: '2025-11-25', clientInfo: undefined, clientCapabilities: undefined, log: silentLogger };
const downstream: Downstream = { request: () => Promise.resolve({}), notify: () => Promise.resolve() };

function context(message: McpMessage = { method: 'tools/list' }): Context {
  return createContext({ message, kind: 'request', direction: 'toUpstream', session, downstream });
}

const echoTerminal = (ctx: Context): Promise<Reply> => Promise.resolve({ method: ctx.method, params: ctx.message.params ?? {} });

describe('compose', () => {
  test('runs middleware as an onion: in order on the way in, in reverse on the way out', async () => {
    const trace: string[] = [];
    const layer = (name: string): Middleware => async (_ctx, next) => {
      trace.push(`${name} in`);
      const reply = await next();
      trace.push(`${name} out`);
      return reply;
    };
    await compose([layer('a'), layer('b'), layer('c')])(context(), async () => {
      trace.push('terminal');
      return {};
    });
    assert.deepEqual(trace, ['a in', 'b in', 'c in', 'terminal', 'c out', 'b out', 'a out']);
  });

  test('with no middleware the terminal answers', async () => {
    assert.deepEqual(await compose([])(context(), echoTerminal), { method: 'tools/list', params: {} });
  });

  test('a middleware that returns without calling next short-circuits the rest', async () => {
    let reached = false;
    const reply = await compose([async () => ({ answered: 'locally' }), async (_c, next) => ((reached = true), next())])(context(), echoTerminal);
    assert.deepEqual(reply, { answered: 'locally' });
    assert.equal(reached, false);
  });

  test('next(message) hands a replacement to the rest of the stack; earlier layers keep the original', async () => {
    const seen: string[] = [];
    const reply = await compose([
      async (ctx, next) => {
        const r = await next({ method: 'tools/call', params: { name: 'renamed' } });
        seen.push(`outer still sees ${ctx.method}`);
        return r;
      },
      async (ctx, next) => {
        seen.push(`inner sees ${ctx.method} ${String(ctx.message.params?.name)}`);
        return next();
      },
    ])(context(), echoTerminal);
    assert.deepEqual(reply, { method: 'tools/call', params: { name: 'renamed' } });
    assert.deepEqual(seen, ['inner sees tools/call renamed', 'outer still sees tools/list']);
  });

  test('the replies of inner layers can be transformed by outer ones', async () => {
    const reply = await compose([async (_c, next) => ({ ...(await next()), wrapped: true })])(context(), echoTerminal);
    assert.deepEqual(reply, { method: 'tools/list', params: {}, wrapped: true });
  });

  test('next may be called again (a retry runs the rest of the stack again)', async () => {
    let calls = 0;
    const reply = await compose([
      async (_c, next) => {
        try {
          return await next();
        } catch {
          return next();
        }
      },
    ])(context(), async () => {
      calls += 1;
      if (calls === 1) throw new Error('transient');
      return { attempt: calls };
    });
    assert.deepEqual(reply, { attempt: 2 });
  });

  test('a synchronous throw becomes a rejection, and errors propagate to outer layers', async () => {
    const thrower: Middleware = () => {
      throw new Error('sync boom');
    };
    await assert.rejects(compose([thrower])(context(), echoTerminal), /sync boom/);
    const caught = await compose([
      async (_c, next) => next().catch((e: unknown) => ({ caught: String(e) })),
      async () => {
        throw new Error('inner');
      },
    ])(context(), echoTerminal);
    assert.deepEqual(caught, { caught: 'Error: inner' });
  });

  test('ctx.state is shared by the layers of one message', async () => {
    const reply = await compose([
      async (ctx, next) => {
        ctx.state.user = 'ada';
        return next();
      },
      async (ctx) => ({ user: ctx.state.user }),
    ])(context(), echoTerminal);
    assert.deepEqual(reply, { user: 'ada' });
  });

  test("a request middleware that awaits next() and resolves to undefined passes next's reply on (Koa's habit)", async () => {
    const koaStyle: Middleware = async (_ctx, next) => {
      await next();
      return undefined;
    };
    assert.deepEqual(await compose([koaStyle, koaStyle])(context(), echoTerminal), { method: 'tools/list', params: {} });
  });

  test("a middleware that hands back next()'s own promise passes on exactly what it settles to, a reply or an error, beside Koa-style ones", async () => {
    const passThrough: Middleware = (_ctx, next) => next();
    const koaStyle: Middleware = async (_ctx, next) => {
      await next();
      return undefined;
    };
    assert.deepEqual(await compose([passThrough, koaStyle, passThrough])(context(), echoTerminal), { method: 'tools/list', params: {} });
    const failure = new Error('upstream failed');
    await assert.rejects(compose([passThrough, passThrough])(context(), () => Promise.reject(failure)), failure);
  });

  test('after a retry, the reply passed on is the one of the last next()', async () => {
    let calls = 0;
    const reply = await compose([
      async (_c, next) => {
        await next().catch(() => undefined);
        await next();
        return undefined;
      },
    ])(context(), async () => {
      calls += 1;
      if (calls === 1) throw new Error('transient');
      return { attempt: calls };
    });
    assert.deepEqual(reply, { attempt: 2 });
  });

  test("a request middleware that swallows next()'s error and resolves to undefined passes the error on: a request needs an answer", async () => {
    const swallow: Middleware = async (_c, next) => {
      await next().catch(() => undefined);
      return undefined;
    };
    await assert.rejects(compose([swallow])(context(), () => Promise.reject(new Error('upstream refused'))), /upstream refused/);
  });

  test('a request middleware that resolves to undefined without calling next stays undefined (the chain reports it)', async () => {
    assert.equal(await compose([async () => undefined])(context(), echoTerminal), undefined);
  });

  test('notifications are unaffected: their reply is undefined', async () => {
    const notification = createContext({ message: { method: 'notifications/initialized' }, kind: 'notification', direction: 'toUpstream', session, downstream });
    const seen: string[] = [];
    const reply = await compose([async (_c, next) => void (await next())])(notification, async (c) => {
      seen.push(c.method);
      return undefined;
    });
    assert.equal(reply, undefined);
    assert.deepEqual(seen, ['notifications/initialized']);
  });
});

import type { Reply } from '../message/jsonrpc.js';
import { type Context, withMessage } from './context.js';
import type { Middleware, NextOptions } from './middleware.js';

/** The end of an onion: receives the context with the message to forward. */
export type Terminal = (ctx: Context) => Promise<Reply>;
export type Composed = (ctx: Context, terminal: Terminal) => Promise<Reply>;

/**
 * Composes middleware into one onion. `next(message)` hands a replacement message to the rest of
 * the stack; `next` may be called more than once (a retry runs the rest of the stack again).
 *
 * A request middleware that resolves to `undefined` after calling `next` passes on what its last
 * `next()` produced (Koa's `async (ctx, next) => { await next(); }`), instead of answering nothing.
 */
export function compose(middleware: readonly Middleware[]): Composed {
  const stack = [...middleware];
  return function composed(ctx, terminal) {
    function dispatch(i: number, current: Context): Promise<Reply> {
      const fn = stack[i];
      if (fn === undefined) return terminal(current);
      let forwarded: Promise<Reply> | undefined;
      const next = (message?: Context['message'], options?: NextOptions): Promise<Reply> =>
        (forwarded = dispatch(i + 1, message === undefined && options?.signal === undefined ? current : withMessage(current, message ?? current.message, options?.signal)));
      try {
        const reply = fn(current, next);
        // A middleware that handed back next()'s own promise (`return next()` outside an async
        // function) passes on exactly what it produces: nothing to wait for here.
        if (current.kind !== 'request' || reply === forwarded) return reply;
        return reply.then((value) => (value === undefined && forwarded !== undefined ? forwarded : value));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return dispatch(0, ctx);
  };
}

import type { Context } from './context.js';
import type { Middleware } from './middleware.js';

/** Runs `middleware` only for messages that match `predicate`; others pass straight on. */
export function when(predicate: (ctx: Context) => boolean, middleware: Middleware): Middleware {
  return function when(ctx, next) {
    return predicate(ctx) ? middleware(ctx, next) : next();
  };
}

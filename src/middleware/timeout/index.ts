/**
 * @module
 * `timeout`: deadlines for `tools/call`, per tool, per server of a gateway, or for every call.
 */
import { matchAny } from '../../chain/glob.js';
import type { Middleware } from '../../chain/middleware.js';
import { ChainError } from '../../errors/chain-error.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Reply } from '../../message/jsonrpc.js';
import type { TimeoutMiddlewareOptions } from './options.js';

export type { TimeoutMiddlewareOptions } from './options.js';

/**
 * Gives each `tools/call` a deadline: the first of `tools` (name or glob) that matches, else the
 * tool's server in `servers`, else `ms`. When it passes, the client gets -32001
 * `Tool "<name>" did not answer within <n> ms (the gateway's limit)` with
 * `data: { tool, timeout }`, and the call's signal for the rest of the chain aborts, so that the
 * upstream is told to cancel (`notifications/cancelled`). A call the client cancelled ends as
 * before. The session's own deadline (`timeouts.request`) still applies: the shorter one wins.
 *
 *
 * Throws a `ChainError` ('CONFIG') for a deadline that is not a positive whole number of ms.
 *
 * @example
 * chain()
 *   .use(timeout({ ms: 30_000, servers: { github: 10_000 }, tools: { 'render_*': 120_000 } }))
 *   .to(aggregate(members));
 */
export function timeout(options: TimeoutMiddlewareOptions): Middleware {
  const separator = options.separator ?? '__';
  const rules: Array<{ matches: (name: string) => boolean; ms: number }> = [];
  for (const [pattern, ms] of Object.entries(options.tools ?? {})) rules.push({ matches: matchAny([pattern]), ms: checked(ms, `tools[${JSON.stringify(pattern)}]`) });
  for (const [server, ms] of Object.entries(options.servers ?? {})) {
    const prefix = `${server}${separator}`;
    rules.push({ matches: (name) => name.startsWith(prefix), ms: checked(ms, `servers[${JSON.stringify(server)}]`) });
  }
  const fallback = options.ms === undefined ? undefined : checked(options.ms, 'ms');
  if (rules.length === 0 && fallback === undefined) throw new ChainError('CONFIG', 'timeout: set ms, tools or servers');
  const deadlineOf = (name: string): number | undefined => rules.find((rule) => rule.matches(name))?.ms ?? fallback;

  return function timeout(ctx, next) {
    if (ctx.method !== 'tools/call' || ctx.direction !== 'toUpstream') return next();
    const name = ctx.message.params?.name;
    const ms = typeof name === 'string' ? deadlineOf(name) : undefined;
    if (ms === undefined) return next();
    const controller = new AbortController();
    return new Promise<Reply>((resolve, reject) => {
      const unlink = ctx.onAbort((reason) => {
        clearTimeout(timer);
        controller.abort(reason);
      });
      const timer = setTimeout(() => {
        unlink();
        const error = new McpError(ErrorCode.RequestTimeout, `Tool "${String(name)}" did not answer within ${ms} ms (the gateway's limit)`, { tool: name, timeout: ms });
        controller.abort(error);
        reject(error);
      }, ms);
      next(undefined, { signal: controller.signal }).then(
        (reply) => {
          clearTimeout(timer);
          unlink();
          resolve(reply);
        },
        (error: unknown) => {
          clearTimeout(timer);
          unlink();
          reject(error);
        },
      );
    });
  };
}

function checked(ms: number, key: string): number {
  if (!Number.isInteger(ms) || ms < 1) throw new ChainError('CONFIG', `timeout.${key}: expected a whole number of ms of at least 1, found ${ms}`);
  return ms;
}

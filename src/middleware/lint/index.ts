/**
 * @module
 * `lint`: checks the JSON-RPC and MCP contract at one point of a chain, in both directions, the
 * way Rack::Lint checks Rack's. For tests and development: it costs a walk over every message.
 */
import type { Context, Direction } from '../../chain/context.js';
import type { Middleware } from '../../chain/middleware.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { METHODS, PARAMS, RESULTS } from './contract.js';
import { object, optional } from './shape.js';

export interface LintOptions {
  /**
   * `'throw'` (the default): fail the message with a plain `Error`, which the session answers as
   * -32603 "Internal error" and logs. `'log'`: warn on the session's log and let it pass.
   */
  onViolation?: 'throw' | 'log';
}

/** One way a message or its reply broke the contract. */
export interface Violation {
  direction: Direction;
  method: string;
  /** Where and what, e.g. `result.tools[0].inputSchema: expected an object, got nothing`. */
  problem: string;
}

/** The `lint` middleware, with what it has found so far (the first 1000). */
export interface LintMiddleware extends Middleware {
  readonly violations: readonly Violation[];
}

const KEPT = 1000;
const meta = object({ _meta: optional(object()) });

/**
 * Checks every message passing this point, before it goes on and when its reply comes back:
 * the JSON-RPC envelope (a method, object params, object `_meta`), that a known method travels
 * the right way as the right kind, and the essential shape of its params and of its result or
 * error. Unknown methods and fields pass unchecked. Params and replies are frozen (deeply), so a
 * middleware that mutates one instead of returning a new one throws. Put one on each side of the middleware under
 * test to check what it sends both ways.
 *
 * @example
 * const checked = lint();
 * const h = await harness(chain().use(checked).use(myMiddleware).use(lint()).to(local({ tools })));
 * await h.request('tools/list');
 * assert.deepEqual(checked.violations, []);
 */
export function lint(options: LintOptions = {}): LintMiddleware {
  const { onViolation = 'throw' } = options;
  const violations: Violation[] = [];

  const report = (ctx: Context, problems: readonly string[]): void => {
    if (problems.length === 0) return;
    const { direction, method } = ctx;
    for (const problem of problems) if (violations.length < KEPT) violations.push({ direction, method, problem });
    if (onViolation === 'throw') throw new Error(`lint: ${method} (${direction}): ${problems.join('; ')}`);
    ctx.log.warn('lint: the MCP contract was broken', { method, direction, problems });
  };

  const middleware: Middleware = async function lint(ctx, next) {
    report(ctx, checkMessage(ctx));
    deepFreeze(ctx.message.params);
    let reply: Reply;
    try {
      reply = await next();
    } catch (error) {
      report(ctx, checkError(error));
      throw error;
    }
    report(ctx, checkReply(ctx, reply));
    deepFreeze(reply);
    return reply;
  };
  return Object.assign(middleware, { violations });
}

/**
 * Messages and replies are values: middleware return new objects instead of changing the ones
 * they get (the chain forwards an unchanged object's original bytes). Freezing them here makes a
 * middleware that mutates one fail loudly in tests (a TypeError in strict mode).
 */
/** Iterative, with its own stack: a message may be nested far deeper than the call stack allows. */
function deepFreeze(root: unknown): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null || Object.isFrozen(value)) continue;
    Object.freeze(value);
    for (const member of Object.values(value)) stack.push(member);
  }
}

function checkMessage({ message, kind, direction }: Context): string[] {
  const problems: string[] = [];
  const { method, params } = message as { method: unknown; params?: unknown };
  if (typeof method !== 'string' || method === '') return [`method: expected a non-empty string, got ${JSON.stringify(method)}`];
  const known = METHODS[method];
  if (known && known.kind !== kind) problems.push(`${method} is a ${known.kind}, sent as a ${kind}`);
  if (known?.direction && known.direction !== direction) {
    problems.push(`${method} travels ${arrow(known.direction)} only, sent ${arrow(direction)}`);
  }
  if (params !== undefined && !isJsonObject(params)) return [...problems, `params: expected an object, got ${JSON.stringify(params)}`];
  meta(params ?? {}, 'params', problems);
  PARAMS[method]?.(params ?? {}, 'params', problems);
  return problems;
}

function checkReply({ method, kind }: Context, reply: Reply): string[] {
  if (kind === 'notification') return reply === undefined ? [] : ['a notification has no reply, but one was returned'];
  const problems: string[] = [];
  object()(reply, 'result', problems);
  if (problems.length > 0) return problems;
  meta(reply, 'result', problems);
  RESULTS[method]?.(reply, 'result', problems);
  return problems;
}

/** An McpError goes on the wire: its code must be a JSON-RPC one (anything else becomes -32603). */
function checkError(error: unknown): string[] {
  if (!(error instanceof McpError) || Number.isInteger(error.code)) return [];
  return [`error.code: expected an integer, got ${String(error.code)}`];
}

function arrow(direction: Direction): string {
  return direction === 'toUpstream' ? 'client→server' : 'server→client';
}

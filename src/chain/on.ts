import { ChainError } from '../errors/chain-error.js';
import type { JsonObject, McpMessage, Reply } from '../message/jsonrpc.js';
import type { NotificationMethod, NotificationParamsOf, ParamsOf, RequestMethod, ResultOf } from '../spec/methods.js';
import type { Context } from './context.js';
import { isPattern, matchAny } from './glob.js';
import type { Middleware, Next } from './middleware.js';

/**
 * Methods no middleware ever sees: every hop answers `ping` itself, and `notifications/cancelled`
 * carries a raw request id, so it surfaces as `ctx.signal` / `ctx.onAbort` of the cancelled request.
 */
export type UnhookableMethod = 'ping' | 'notifications/cancelled';
/** Request methods a hook can see. */
export type HookableRequestMethod = Exclude<RequestMethod, UnhookableMethod>;
/** Notification methods a hook can see. */
export type HookableNotificationMethod = Exclude<NotificationMethod, UnhookableMethod>;

/** A request as a typed hook sees it. */
export interface RequestOf<M extends RequestMethod> extends McpMessage {
  method: M;
  params?: ParamsOf<M> & JsonObject;
}

/** A notification as a typed hook sees it. */
export interface NotificationOf<M extends NotificationMethod> extends McpMessage {
  method: M;
  params?: NotificationParamsOf<M> & JsonObject;
}

export type RequestHandler<M extends RequestMethod> = (
  ctx: Context<RequestOf<M>>,
  next: (message?: McpMessage) => Promise<ResultOf<M>>,
) => Promise<ResultOf<M> | undefined>;

export type NotificationHandler<M extends NotificationMethod> = (
  ctx: Context<NotificationOf<M>>,
  next: (message?: McpMessage) => Promise<void>,
) => Promise<void>;

/** `P` itself, or `never` (a type error at the call) when it names a method no hook can see. */
type Hookable<P extends string> = P extends UnhookableMethod ? never : P;

/**
 * A middleware that runs `handler` for some methods and passes everything else straight on.
 *
 * - One spec method, or a list of them (all requests or all notifications): params and result are
 *   typed from the specification (nothing is validated at run time; use `lint()` for that).
 * - Patterns (`'notifications/*'`, `'resources/*'`: `*` any run of characters, `?` one), a mix of
 *   requests and notifications, or methods outside the spec: the handler is an untyped middleware.
 *
 * `on('ping')` and `on('notifications/cancelled')` are refused (a type error, and a ChainError at
 * run time): no middleware ever sees them. A pattern may match them; it simply never sees them.
 *
 * @example
 * on('tools/call', async (ctx, next) => {
 *   if (ctx.message.params?.name === 'rm') throw new McpError(ErrorCode.InvalidParams, 'Unknown tool: rm');
 *   return next();
 * });
 * on(['tools/list', 'prompts/list'], async (ctx, next) => next());
 * on('notifications/*', async (ctx, next) => { ctx.log.info('notification', { method: ctx.method }); return next(); });
 */
export function on<M extends HookableRequestMethod>(methods: M | readonly M[], handler: RequestHandler<M>): Middleware;
export function on<M extends HookableNotificationMethod>(methods: M | readonly M[], handler: NotificationHandler<M>): Middleware;
export function on<P extends string>(methods: Hookable<P> | readonly Hookable<P>[], handler: Middleware): Middleware;
export function on(methods: string | readonly string[], hook: RequestHandler<HookableRequestMethod> | NotificationHandler<HookableNotificationMethod> | Middleware): Middleware {
  const handler = hook as (ctx: Context, next: Next) => Promise<Reply>;
  const list: readonly string[] = typeof methods === 'string' ? [methods] : methods;
  const refused = list.find((method) => method === 'ping' || method === 'notifications/cancelled');
  if (refused !== undefined) {
    throw new ChainError(
      'USAGE',
      refused === 'ping'
        ? "on('ping') would never run: every hop answers ping itself"
        : "on('notifications/cancelled') would never run: a cancellation reaches middleware as ctx.signal / ctx.onAbort of the cancelled request",
    );
  }
  if (list.length === 0) throw new ChainError('USAGE', 'on() needs at least one method');
  const matches = matcherOf(list);
  const hooked: Middleware = (ctx, next) => (matches(ctx.method) ? handler(ctx, next) : next());
  Object.defineProperty(hooked, 'name', { value: `on(${list.join(', ')})` });
  return hooked;
}

/** The cheapest test for a list: one comparison, a set, or a compiled pattern. */
function matcherOf(list: readonly string[]): (method: string) => boolean {
  const [only] = list;
  if (list.length === 1 && only !== undefined && !isPattern(only)) return (method) => method === only;
  if (!list.some(isPattern)) {
    const set = new Set(list);
    return (method) => set.has(method);
  }
  return matchAny(list);
}

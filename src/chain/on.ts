import type { JsonObject, McpMessage, Reply } from '../message/jsonrpc.js';
import type {
  NotificationMethod,
  NotificationParamsOf,
  ParamsOf,
  RequestMethod,
  ResultOf,
} from '../spec/methods.js';
import type { Context } from './context.js';
import type { Middleware, Next } from './middleware.js';

type AnyHandler = RequestHandler<RequestMethod> | NotificationHandler<NotificationMethod>;

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
) => Promise<ResultOf<M>>;

export type NotificationHandler<M extends NotificationMethod> = (
  ctx: Context<NotificationOf<M>>,
  next: (message?: McpMessage) => Promise<void>,
) => Promise<void>;

/**
 * A middleware that runs `handler` for one method and passes everything else straight on, with the
 * params and result typed from the specification. Types describe what the spec promises; nothing
 * is validated at run time (use `lint()` for that).
 *
 * @example
 * on('tools/call', async (ctx, next) => {
 *   if (ctx.message.params?.name === 'rm') throw new McpError(ErrorCode.InvalidParams, 'Unknown tool: rm');
 *   return next();
 * });
 */
export function on<M extends RequestMethod>(method: M, handler: RequestHandler<M>): Middleware;
export function on<M extends NotificationMethod>(method: M, handler: NotificationHandler<M>): Middleware;
export function on(method: string, handler: AnyHandler): Middleware {
  const run = handler as unknown as (ctx: Context, next: Next) => Promise<Reply>;
  const hooked: Middleware = (ctx, next) => (ctx.method === method ? run(ctx, next) : next());
  Object.defineProperty(hooked, 'name', { value: `on(${method})` });
  return hooked;
}

import type { McpMessage, Reply } from '../message/jsonrpc.js';
import type { Context } from './context.js';

/** How `next` runs the rest of the chain. */
export interface NextOptions {
  /**
   * The rest of the chain (and the upstream) runs under this signal besides the request's own:
   * when it aborts, the request is cancelled upstream (`notifications/cancelled`), as when the
   * client cancels. For a deadline of a middleware's own (`timeout`). Requests only.
   */
  readonly signal?: AbortSignal;
}

/** Forwards the message (or a replacement) to the next middleware, and resolves with its reply. */
export type Next = (message?: McpMessage, options?: NextOptions) => Promise<Reply>;

/**
 * The one composable unit: runs for every request and notification, in both directions.
 * Return the reply (a result object for requests, `undefined` for notifications), short-circuit by
 * returning without calling `next`, refuse by throwing an `McpError`.
 */
export type Middleware = (ctx: Context, next: Next) => Promise<Reply>;

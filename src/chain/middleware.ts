import type { McpMessage, Reply } from '../message/jsonrpc.js';
import type { Context } from './context.js';

/** Forwards the message (or a replacement) to the next middleware, and resolves with its reply. */
export type Next = (message?: McpMessage) => Promise<Reply>;

/**
 * The one composable unit: runs for every request and notification, in both directions.
 * Return the reply (a result object for requests, `undefined` for notifications), short-circuit by
 * returning without calling `next`, refuse by throwing an `McpError`.
 */
export type Middleware = (ctx: Context, next: Next) => Promise<Reply>;

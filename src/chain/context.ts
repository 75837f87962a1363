import type { Logger } from '../log/logger.js';
import type { McpMessage } from '../message/jsonrpc.js';
import type { SessionInfo } from '../upstream/upstream.js';

/** `toUpstream`: client→server traffic. `toDownstream`: server→client traffic. */
export type Direction = 'toUpstream' | 'toDownstream';

/**
 * Per-message data shared by the middleware of one message. Declare what you put here by
 * augmenting this interface (`declare module 'mcp-chain' { interface ContextState { user: string } }`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ContextState {}

/** What a middleware knows about the message it handles. Read-only: pass changes with `next(message)`. */
export interface Context<M extends McpMessage = McpMessage> {
  readonly message: M;
  readonly method: string;
  readonly kind: 'request' | 'notification';
  readonly direction: Direction;
  readonly session: SessionInfo;
  /** Aborted when the request is cancelled, times out, or the session ends; never for notifications. */
  readonly signal: AbortSignal;
  readonly state: Partial<ContextState> & Record<string, unknown>;
  readonly log: Logger;
}

const never = new AbortController().signal;

export function createContext(
  message: McpMessage,
  kind: Context['kind'],
  direction: Direction,
  session: SessionInfo,
  signal: AbortSignal = never,
): Context {
  return { message, method: message.method, kind, direction, session, signal, state: {}, log: session.log };
}

/** The same context with a replacement message (used when a middleware calls `next(message)`). */
export function withMessage(ctx: Context, message: McpMessage): Context {
  return { ...ctx, message, method: message.method };
}

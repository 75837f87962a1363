import type { Logger } from '../log/logger.js';
import type { McpMessage } from '../message/jsonrpc.js';
import type { Downstream, SessionInfo } from '../upstream/upstream.js';

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
  /**
   * The client side: send it a request (`elicitation/create` to confirm a call, `sampling/createMessage`)
   * or a notification. Traffic sent here runs back through the chain's middleware like any
   * server→client message.
   */
  readonly downstream: Downstream;
  /**
   * Where messages related to this request go, such as `notifications/progress` for it (with the
   * request's own progress token); `undefined` when the request has no such channel.
   */
  readonly related: Downstream | undefined;
  readonly state: Partial<ContextState> & Record<string, unknown>;
  readonly log: Logger;
}

const never = new AbortController().signal;

export interface ContextInit {
  message: McpMessage;
  kind: Context['kind'];
  direction: Direction;
  session: SessionInfo;
  downstream: Downstream;
  signal?: AbortSignal | undefined;
  related?: Downstream | undefined;
}

export function createContext(init: ContextInit): Context {
  const { message, kind, direction, session, downstream, signal = never, related } = init;
  return { message, method: message.method, kind, direction, session, signal, downstream, related, state: {}, log: session.log };
}

/** The same context with a replacement message (used when a middleware calls `next(message)`). */
export function withMessage(ctx: Context, message: McpMessage): Context {
  return { ...ctx, message, method: message.method };
}

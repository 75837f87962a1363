import type { Logger } from '../log/logger.js';
import type { McpMessage } from '../message/jsonrpc.js';
import { CancelScope, onAbort } from '../core/cancel-scope.js';
import type { Downstream } from '../core/downstream.js';
import { requestScope, type RequestScope } from '../core/request-scope.js';
import type { SessionInfo } from '../core/session-info.js';

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
  /**
   * Calls `callback` once if the request is aborted (at once if it already is), and returns an
   * unsubscribe. Cheaper than listening on `signal`, which is only made when read.
   */
  onAbort(callback: (reason: unknown) => void): () => void;
}

const never = new AbortController().signal;

export interface ContextInit {
  message: McpMessage;
  kind: Context['kind'];
  direction: Direction;
  session: SessionInfo;
  downstream: Downstream;
  /** The request's cancellation; notifications have none. */
  scope?: RequestScope | undefined;
  related?: Downstream | undefined;
}

/** The context the chain makes: `signal` is only created if a middleware reads it. */
class ChainContext implements Context {
  readonly message: McpMessage;
  readonly method: string;
  readonly kind: Context['kind'];
  readonly direction: Direction;
  readonly session: SessionInfo;
  readonly downstream: Downstream;
  readonly related: Downstream | undefined;
  readonly log: Logger;
  readonly #scope: RequestScope | undefined;
  #state: Context['state'] | undefined;

  constructor(init: ContextInit, state: Context['state'] | undefined) {
    this.message = init.message;
    this.method = init.message.method;
    this.kind = init.kind;
    this.direction = init.direction;
    this.session = init.session;
    this.downstream = init.downstream;
    this.related = init.related;
    this.#state = state;
    this.log = init.session.log;
    this.#scope = init.scope;
  }

  get signal(): AbortSignal {
    return this.#scope?.signal ?? never;
  }

  onAbort(callback: (reason: unknown) => void): () => void {
    const scope = this.#scope;
    if (!scope) return noop;
    return onAbort(scope.cancel ?? scope.signal, callback);
  }

  /** Made on first use, and shared with the contexts of replacement messages. */
  get state(): Context['state'] {
    return (this.#state ??= {});
  }

  with(message: McpMessage, signal?: AbortSignal): ChainContext {
    const { kind, direction, session, downstream, related } = this;
    const scope = signal === undefined ? this.#scope : narrowed(this.#scope, signal);
    return new ChainContext({ message, kind, direction, session, downstream, related, scope }, this.state);
  }

  /** What the request travels with from here on (a middleware's `next(message, { signal })` narrows it). */
  get scope(): RequestScope | undefined {
    return this.#scope;
  }
}

function noop(): void {}

export function createContext(init: ContextInit): Context {
  return new ChainContext(init, undefined);
}

/**
 * The same context with a replacement message (a middleware's `next(message)`), and with `signal`
 * (`next(message, { signal })`) aborting its request besides the request's own cancellation.
 */
export function withMessage(ctx: Context, message: McpMessage, signal?: AbortSignal): Context {
  return ctx instanceof ChainContext ? ctx.with(message, signal) : { ...ctx, message, method: message.method };
}

/** The request scope `ctx` carries (narrowed by `next(message, { signal })`), for the chain's terminal. */
export function scopeOf(ctx: Context): RequestScope | undefined {
  return ctx instanceof ChainContext ? ctx.scope : undefined;
}

/** A scope aborted by `outer` or by `signal`, whichever comes first. */
function narrowed(outer: RequestScope | undefined, signal: AbortSignal): RequestScope | undefined {
  if (outer === undefined) return undefined;
  const cancel = new CancelScope();
  const unlink = onAbort(outer.cancel ?? outer.signal, (reason) => cancel.abort(reason));
  if (signal.aborted) cancel.abort(signal.reason);
  else signal.addEventListener('abort', () => cancel.abort(signal.reason), { once: true });
  // The link to the outer scope goes when this one ends either way.
  cancel.onAbort(unlink);
  return requestScope(cancel, outer.related);
}

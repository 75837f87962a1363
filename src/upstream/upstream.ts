import type { Logger } from '../log/logger.js';
import type { McpMessage, Result } from '../message/jsonrpc.js';
import type { CancelScope } from '../rpc/cancel-scope.js';

/**
 * Where messages go on their way *down* (toward the client): server→client requests such as
 * `sampling/createMessage`, `elicitation/create`, `roots/list`, and server notifications.
 */
export interface Downstream {
  request(message: McpMessage, scope: RequestScope): Promise<Result>;
  notify(message: McpMessage): Promise<void>;
  /**
   * Flow control: the upstream cannot take more for now (its input is full), so stop reading from
   * the client until `resume()`. Calls nest: every `pause()` is matched by one `resume()`.
   */
  pause?(): void;
  resume?(): void;
}

/** What travels with one request besides its message. */
export interface RequestScope {
  /** Aborted when the request is cancelled, times out, or its session ends. */
  readonly signal: AbortSignal;
  /**
   * Where messages *related* to this request go, such as its `notifications/progress` (with the
   * progress token of the request as the receiver of `related` knows it).
   */
  readonly related?: Downstream | undefined;
  /**
   * The same cancellation as `signal`, without the cost of an AbortSignal: scopes made by
   * mcp-chain have it (and make `signal` only when it is read). Scopes made by hand may omit it.
   */
  readonly cancel?: CancelScope;
}

/** A RequestScope over a CancelScope, whose `signal` is made only when read. */
class LazyScope implements RequestScope {
  readonly cancel: CancelScope;
  readonly related: Downstream | undefined;

  constructor(cancel: CancelScope, related: Downstream | undefined) {
    this.cancel = cancel;
    this.related = related;
  }

  get signal(): AbortSignal {
    return this.cancel.signal;
  }
}

export function requestScope(cancel: CancelScope, related: Downstream | undefined): RequestScope {
  return new LazyScope(cancel, related);
}

/** One live connection to an upstream, opened for one downstream session. */
export interface UpstreamConnection {
  request(message: McpMessage, scope: RequestScope): Promise<Result>;
  notify(message: McpMessage): Promise<void>;
  /** Ends the connection and everything it owns (child processes, sockets). Idempotent. */
  close(): Promise<void>;
  /**
   * Flow control: the client cannot take more for now, so stop reading from the upstream until
   * `resume()`. Calls nest like `Downstream.pause`.
   */
  pause?(): void;
  resume?(): void;
}

/** Who a client authenticated as, on a front with authentication. */
export interface Identity {
  /** A stable name of the credential or principal (never the secret itself). */
  readonly id: string;
  /** How it authenticated, such as `bearer` or `api-key`. */
  readonly method: string;
}

/** What an upstream knows of the session it is opened for. */
export interface SessionInfo {
  /** Who the client authenticated as; absent on fronts without authentication (stdio). */
  readonly identity?: Identity;
  /** A unique id of the downstream session (random; not the HTTP session id). */
  readonly id: string;
  /** The protocol version negotiated with the downstream, once initialized. */
  readonly protocolVersion: string | undefined;
  /** `clientInfo` the downstream sent in `initialize`. */
  readonly clientInfo: Readonly<Record<string, unknown>> | undefined;
  /** `capabilities` the downstream sent in `initialize`. */
  readonly clientCapabilities: Readonly<Record<string, unknown>> | undefined;
  readonly log: Logger;
}

/**
 * A blueprint for upstream connections: a stdio command, an in-process server, or a whole
 * {@link Chain} (a chain is itself an Upstream, so chains nest). Each downstream session calls
 * `connect` once; server-originated traffic goes to the `downstream` it passes.
 */
export interface Upstream {
  connect(downstream: Downstream, session: SessionInfo): UpstreamConnection;
  /** Releases what the blueprint itself holds (a log file, a shared connection); called once at shutdown. */
  close?(): Promise<void>;
}

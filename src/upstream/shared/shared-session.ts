import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { McpMessage, Result } from '../../message/jsonrpc.js';
import { CancelScope, onAbort } from '../../core/cancel-scope.js';
import { requestScope, type RequestScope } from '../../core/request-scope.js';
import type { Downstream } from '../../core/downstream.js';
import type { SessionInfo } from '../../core/session-info.js';
import type { UpstreamConnection } from '../../core/upstream.js';
import type { UpstreamStatusListener } from '../../core/upstream-status.js';

/** What a {@link SharedSession} asks of the shared upstream it belongs to. */
export interface SharedHub {
  initialize(member: SharedSession, message: McpMessage, scope: RequestScope): Promise<Result>;
  forward(member: SharedSession, message: McpMessage, scope: RequestScope): Promise<Result>;
  notify(member: SharedSession, message: McpMessage): Promise<void>;
  leave(member: SharedSession): Promise<void>;
  /** Listens to the one shared connection's status; returns the function that stops it. */
  onStatus(listener: UpstreamStatusListener): () => void;
}

/**
 * One downstream session's connection to a shared upstream: it keeps the session's requests in
 * flight (to cancel them when it ends, and to know where a server→client request without a
 * relation may go), and hands everything else to the hub.
 */
export class SharedSession implements UpstreamConnection {
  readonly info: SessionInfo;
  /** Where this session's server-originated traffic goes. */
  readonly downstream: Downstream;
  readonly #hub: SharedHub;
  /** Requests in flight: their cancellation, and where their related messages go. */
  readonly #inFlight = new Map<CancelScope, Downstream | undefined>();
  #ready = false;
  #closing: Promise<void> | undefined;
  /** What stops this session's status listeners, when it ends. */
  readonly #listening = new Set<() => void>();

  constructor(hub: SharedHub, downstream: Downstream, info: SessionInfo) {
    this.#hub = hub;
    this.downstream = downstream;
    this.info = info;
  }

  /** True once the session was answered `initialize`, until it ends. */
  get ready(): boolean {
    return this.#ready && this.#closing === undefined;
  }

  /** How many of its requests are waiting for the upstream. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  async request(message: McpMessage, scope: RequestScope): Promise<Result> {
    if (this.#closing) throw new McpError(ErrorCode.ConnectionClosed, 'Session closed');
    if (message.method === 'initialize') {
      const result = await this.#hub.initialize(this, message, scope);
      this.#ready = true;
      return result;
    }
    const cancel = new CancelScope();
    const unlink = onAbort(scope.cancel ?? scope.signal, (reason) => cancel.abort(reason));
    this.#inFlight.set(cancel, scope.related);
    try {
      return await this.#hub.forward(this, message, requestScope(cancel, scope.related));
    } finally {
      this.#inFlight.delete(cancel);
      unlink();
    }
  }

  notify(message: McpMessage): Promise<void> {
    if (this.#closing) return Promise.resolve();
    return this.#hub.notify(this, message);
  }

  /**
   * A server→client request that belongs to this session: with its only request in flight when
   * it has exactly one (over HTTP, it then travels on that request's stream), else on its own.
   */
  serverRequest(message: McpMessage, scope: RequestScope): Promise<Result> {
    const [only, ...more] = this.#inFlight.values();
    const target = more.length === 0 && only ? only : this.downstream;
    return target.request(message, scope);
  }

  /**
   * The shared connection's status: every session sees the same events (the upstream went down,
   * came back, restarted). This session's listeners are released when it ends.
   */
  onStatus(listener: UpstreamStatusListener): () => void {
    if (this.#closing) return () => undefined;
    const unsubscribe = this.#hub.onStatus(listener);
    const stop = (): void => {
      this.#listening.delete(stop);
      unsubscribe();
    };
    this.#listening.add(stop);
    return stop;
  }

  /** Delivers a server notification, logging nothing if the session is gone meanwhile. */
  deliver(message: McpMessage): void {
    this.downstream.notify(message).catch(() => undefined);
  }

  /**
   * Ends this session's share: its requests in flight are cancelled, its subscriptions released;
   * the shared connection stays open. Idempotent.
   */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    const closed = new McpError(ErrorCode.ConnectionClosed, 'Session closed');
    for (const cancel of this.#inFlight.keys()) cancel.abort(closed);
    for (const stop of [...this.#listening]) stop();
    this.#closing = this.#hub.leave(this);
    return this.#closing;
  }
}

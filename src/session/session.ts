import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import { silentLogger } from '../log/stderr-logger.js';
import type { Logger } from '../log/logger.js';
import type { JsonObject, JsonRpcId, McpMessage, Result } from '../message/jsonrpc.js';
import { isJsonObject } from '../message/parse-message.js';
import { negotiateVersion, supportsBatches } from '../eras/versions.js';
import { CancelScope, onAbort } from '../core/cancel-scope.js';
import { Peer, type IncomingScope } from '../rpc/peer.js';
import type { Transport } from '../transport/transport.js';
import { requestScope, type RequestScope } from '../core/request-scope.js';
import type { Downstream } from '../core/downstream.js';
import type { Identity, SessionInfo } from '../core/session-info.js';
import type { Upstream, UpstreamConnection } from '../core/upstream.js';
import { Deadline } from './deadline.js';
import { resolveTimeouts, timeoutFor, type ResolvedTimeouts, type TimeoutOptions } from './timeouts.js';

export interface SessionOptions {
  /** Replaces the upstream's `serverInfo` in the `initialize` result. */
  serverInfo?: { name: string; version: string; title?: string };
  timeouts?: TimeoutOptions;
  log?: Logger;
  /** Who the client authenticated as (set by an HTTP front with authentication). */
  identity?: Identity;
}

/**
 * One downstream connection: owns the MCP lifecycle (initialize, version negotiation), request
 * deadlines, and the correlation of everything that crosses it in both directions. It does not
 * know what transport it is on, nor what the upstream is.
 */
export class Session {
  readonly info: SessionInfo;
  readonly #peer: Peer;
  readonly #transport: Transport;
  /** How many upstream inputs are full: while any is, the client is not read. */
  #heldBack = 0;
  readonly #connection: UpstreamConnection;
  readonly #options: SessionOptions;
  readonly #timeouts: ResolvedTimeouts;
  readonly #log: Logger;
  #state: 'new' | 'initializing' | 'ready' | 'closed' = 'new';
  #protocolVersion: string | undefined;
  #clientInfo: JsonObject | undefined;
  #clientCapabilities: JsonObject | undefined;
  #closing: Promise<void> | undefined;
  #identity: Identity | undefined;
  /** Settles when a pending initialize does; requests that arrive meanwhile wait for it. */
  #initializing: Promise<unknown> | undefined;
  /** Called once when the session has ended (the downstream went away or `close()` was called). */
  onclose?: () => void;
  /** The client's requests being handled, each with how to end it at once (answered with an error). */
  readonly #inFlight = new Set<(error: McpError) => void>();
  /** Requests accepted before a drain began that wait for a pending initialize before they go up. */
  #waitingForInitialize = 0;
  /** Set once a drain has begun (see {@link drain}). */
  #drain: DrainState | undefined;
  /** Resolves once the session has ended, whatever ended it. */
  readonly #ended: Promise<void>;
  #markEnded!: () => void;

  constructor(transport: Transport, upstream: Upstream, options: SessionOptions = {}) {
    this.#options = options;
    this.#ended = new Promise<void>((resolve) => (this.#markEnded = resolve));
    this.#timeouts = resolveTimeouts(options.timeouts);
    const id = randomUUID();
    this.#log = (options.log ?? silentLogger).child({ session: id.slice(0, 8) });
    const read = <T>(get: () => T): { get: () => T; enumerable: true } => ({ get, enumerable: true });
    this.#identity = options.identity;
    this.info = Object.defineProperties({ id, log: this.#log } as SessionInfo, {
      // Only a session opened with an identity has one (stdio's info has no such key).
      ...(options.identity === undefined ? {} : { identity: read(() => this.#identity) }),
      protocolVersion: read(() => this.#protocolVersion),
      clientInfo: read(() => this.#clientInfo),
      clientCapabilities: read(() => this.#clientCapabilities),
    });
    this.#peer = new Peer(
      transport,
      {
        request: (message, scope) => this.#onRequest(message, scope),
        notification: (message) => this.#onNotification(message),
        closed: () => void this.close(),
      },
      {
        log: this.#log,
        answerInvalid: true,
        acceptBatch: () => this.#acceptBatch(),
      },
    );
    this.#transport = transport;
    this.#connection = upstream.connect(this.#downstream, this.info);
    // A client that does not read what we send holds the upstream back.
    transport.oncongestion = (congested) => (congested ? this.#connection.pause?.() : this.#connection.resume?.());
  }

  start(): Promise<void> {
    return this.#peer.start();
  }

  /**
   * The client presented a newer credential of the same principal (an HTTP front: a refreshed
   * token, or one with more scopes after a step-up): `info.identity` is `identity` for what comes
   * next. A session opened without an identity keeps none.
   */
  updateIdentity(identity: Identity): void {
    if (this.#identity !== undefined) this.#identity = identity;
  }

  /** True once the session has begun to end. */
  get closing(): boolean {
    return this.#closing !== undefined;
  }

  /** True once a drain has begun (and until the session ends). */
  get draining(): boolean {
    return this.#drain !== undefined;
  }

  /** The client's requests being handled now (forwarded up the chain, or waiting for initialize). */
  get inFlight(): number {
    return this.#inFlight.size + this.#waitingForInitialize;
  }

  /**
   * Ends the session gracefully. From now on a new request of the client is refused with -32000
   * (the server is shutting down), while what is in flight goes on: the client's answers to the
   * server's requests (sampling, elicitation) and its notifications (cancellations) still flow.
   * The session ends as soon as nothing is in flight (at once if nothing is). What is still in
   * flight after `deadlineMs` (0: at once) is cancelled upstream (`notifications/cancelled`, as a
   * client's cancellation is) and answered with -32000 saying so; then the session ends as
   * `close()` ends it. Resolves once it has ended, with what became of the requests in flight.
   * A `close()` meanwhile ends it at once.
   */
  drain(deadlineMs: number): Promise<DrainResult> {
    if (this.#drain === undefined && this.#closing === undefined) {
      const state: DrainState = { deadlineMs, timer: undefined, inFlight: this.inFlight, cancelled: 0 };
      this.#drain = state;
      if (deadlineMs <= 0) this.#cancelInFlight(state);
      else state.timer = setTimeout(() => this.#cancelInFlight(state), deadlineMs);
      this.#endIfIdle();
    }
    const state = this.#drain;
    return this.#ended.then(() => ({
      inFlight: state?.inFlight ?? 0,
      cancelled: state?.cancelled ?? 0,
    }));
  }

  /** The drain's deadline passed: what is still in flight is cancelled upstream and answered -32000. */
  #cancelInFlight(state: DrainState): void {
    state.timer = undefined;
    const error = drainDeadlinePassed(state.deadlineMs);
    for (const fail of [...this.#inFlight]) {
      state.cancelled += 1;
      fail(error);
    }
    this.#endIfIdle();
  }

  /**
   * A request that waited for initialize cannot go on once a drain's deadline has passed: it is
   * answered at once, as those the deadline cancelled were.
   */
  #checkDrainDeadline(): void {
    const drain = this.#drain;
    if (drain === undefined || drain.timer !== undefined) return;
    drain.cancelled += 1;
    this.#endIfIdle();
    throw drainDeadlinePassed(drain.deadlineMs);
  }

  /**
   * A draining session with nothing in flight ends, once the answers just settled have gone out
   * (the Peer writes them after the handlers' promises settle: a turn of the event loop later,
   * they have).
   */
  #endIfIdle(): void {
    if (this.#drain === undefined || this.#closing !== undefined || this.inFlight > 0) return;
    setImmediate(() => {
      if (this.inFlight === 0) void this.close();
    });
  }

  /** Ends the session: in-flight requests are aborted, the upstream connection is closed. */
  close(): Promise<void> {
    // Set before anything runs: closing the transport calls back into close().
    if (this.#closing === undefined) {
      let done!: () => void;
      this.#closing = new Promise<void>((resolve) => (done = resolve));
      void this.#shutdown().then(done);
    }
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#state = 'closed';
    clearTimeout(this.#drain?.timer);
    await this.#peer.close(new McpError(ErrorCode.ConnectionClosed, 'Session closed'));
    try {
      await this.#connection.close();
    } catch (error) {
      this.#log.warn('closing the upstream failed', { error: String(error) });
    }
    this.onclose?.();
    this.#markEnded();
  }

  /**
   * Server-originated traffic, on its way to the client; `relatedTo` is the id of the client's
   * request it belongs to, when known (see {@link Related}).
   */
  readonly #downstream: DownstreamSink = {
    request: (message, scope, relatedTo) => {
      const cancel = new CancelScope();
      const deadline = new Deadline(timeoutFor(this.#timeouts, message), this.#timeouts.max, (error) => cancel.abort(error));
      const unsubscribe = onAbort(scope.cancel ?? scope.signal, (reason) => cancel.abort(reason));
      // The client's progress on this request goes where the upstream said, or nowhere.
      const related = new Related(deadline, this.#timeouts.resetOnProgress, scope.related ?? nowhere, undefined);
      return this.#peer
        .request(message, { cancel, related, relatedTo })
        .finally(() => {
          deadline.clear();
          unsubscribe();
        });
    },
    notify: (message, relatedTo) => {
      this.#peer.notify(message, relatedTo);
      return Promise.resolve();
    },
    // An upstream that cannot take more holds the client back (nested: one resume per pause).
    pause: () => {
      if (this.#heldBack++ === 0) this.#transport.pause?.();
    },
    resume: () => {
      if (this.#heldBack > 0 && --this.#heldBack === 0) this.#transport.resume?.();
    },
  };

  #acceptBatch(): true | string {
    if (this.#state !== 'ready') return 'a batch cannot come before initialization completes';
    const version = this.#protocolVersion ?? '';
    return supportsBatches(version) ? true : `batches are not supported in protocol version ${version}`;
  }

  #onRequest(message: McpMessage, scope: IncomingScope): Promise<Result> {
    // The hot path: an initialized session forwards at once, without an async frame.
    if (this.#state === 'ready' && this.#drain === undefined && message.method !== 'initialize') return this.#forward(message, scope);
    return this.#onRequestNotReady(message, scope);
  }

  async #onRequestNotReady(message: McpMessage, scope: IncomingScope): Promise<Result> {
    if (this.#drain !== undefined) throw shuttingDown();
    if (message.method === 'initialize') {
      const initializing = this.#initialize(message, scope);
      // #initialize sets the state before its first await: 'initializing' means this one started.
      if (this.#state === 'initializing') this.#initializing = initializing.catch(() => undefined);
      return initializing;
    }
    if (this.#state === 'initializing') {
      // Accepted now: a drain that begins while it waits counts it as in flight.
      this.#waitingForInitialize += 1;
      try {
        await this.#initializing;
      } finally {
        this.#waitingForInitialize -= 1;
      }
      this.#checkDrainDeadline();
    }
    if (this.#state === 'new') {
      throw new McpError(ErrorCode.InvalidRequest, `Invalid Request: the session is not initialized; send initialize before ${message.method}`);
    }
    if (this.#state === 'closed') throw new McpError(ErrorCode.ConnectionClosed, 'Session closed');
    return this.#forward(message, scope);
  }

  async #initialize(message: McpMessage, scope: IncomingScope): Promise<Result> {
    if (this.#state !== 'new') {
      throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: initialize was already received in this session');
    }
    const params = message.params ?? {};
    const requested = params.protocolVersion;
    if (typeof requested !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: initialize needs a protocolVersion string');
    }
    this.#state = 'initializing';
    // Who the client is and what it can do are known from its request: upstreams may need them
    // while they answer it (a remote server that wants a login answers with a URL elicitation).
    this.#clientInfo = isJsonObject(params.clientInfo) ? params.clientInfo : undefined;
    this.#clientCapabilities = isJsonObject(params.capabilities) ? params.capabilities : undefined;
    try {
      const offered = negotiateVersion(requested);
      const result = await this.#forward({ method: 'initialize', params: { ...params, protocolVersion: offered } }, scope);
      const answered = result.protocolVersion;
      if (typeof answered !== 'string' || negotiateVersion(answered) !== answered) {
        throw new McpError(
          ErrorCode.InternalError,
          `The upstream answered protocol version ${String(answered)}, which mcp-chain does not serve`,
        );
      }
      this.#protocolVersion = answered;
      this.#state = 'ready';
      const { serverInfo } = this.#options;
      return serverInfo === undefined ? result : { ...result, serverInfo };
    } catch (error) {
      if (this.#state === 'initializing') this.#state = 'new';
      throw error;
    } finally {
      this.#initializing = undefined;
    }
  }

  /**
   * Sends a downstream request up the chain, under its deadline. When the deadline passes, the
   * request's signal aborts (the upstream is told to cancel) and the client is answered at once,
   * whether or not the chain has settled.
   */
  #forward(message: McpMessage, scope: IncomingScope): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      // Ends the request now: its upstream is told to cancel, the client gets `error`.
      const fail = (error: McpError): void => {
        scope.cancel.abort(error);
        settled();
        reject(error);
      };
      const settled = (): void => {
        deadline.clear();
        if (this.#inFlight.delete(fail) && this.#drain !== undefined) this.#endIfIdle();
      };
      const deadline = new Deadline(timeoutFor(this.#timeouts, message), this.#timeouts.max, fail);
      this.#inFlight.add(fail);
      // A request the client cancelled, or whose session ended, is never answered: its deadline
      // has nothing left to do, and must not keep the process alive for its remaining minutes.
      scope.cancel.onAbort(settled);
      this.#connection
        .request(message, requestScope(scope.cancel, new Related(deadline, this.#timeouts.resetOnProgress, this.#downstream, scope.id)))
        .then(
          (reply: Result | undefined) => {
            settled();
            if (reply !== undefined) resolve(reply);
            else reject(new Error(`The chain returned no result for ${message.method}: did a middleware forget to return next()?`));
          },
          (error: unknown) => {
            settled();
            reject(error);
          },
        );
    });
  }

  #onNotification(message: McpMessage): void {
    if (this.#state === 'closed') return;
    if (this.#state === 'new' && message.method !== 'notifications/initialized') {
      this.#log.warn('dropped a notification that came before initialize', { method: message.method });
      return;
    }
    this.#connection.notify(message).catch((error: unknown) => {
      this.#log.warn('forwarding a notification failed', { method: message.method, error: String(error) });
    });
  }
}

/** What became of the requests in flight when a drain began (see {@link Session.drain}). */
export interface DrainResult {
  /** Requests of the client in flight when the drain began. */
  readonly inFlight: number;
  /** Of those (and of any accepted while initialize was pending), how many the deadline cancelled. */
  readonly cancelled: number;
}

interface DrainState {
  readonly deadlineMs: number;
  /** The deadline's timer, until it fires (or the session ends). */
  timer: NodeJS.Timeout | undefined;
  readonly inFlight: number;
  cancelled: number;
}

/** The answer to a request that comes while the session drains. */
function shuttingDown(): McpError {
  return new McpError(ErrorCode.ConnectionClosed, 'The server is shutting down: it takes no new requests (try again on a new session)');
}

/** The answer to a request still in flight when a drain's deadline passes. */
function drainDeadlinePassed(deadlineMs: number): McpError {
  return new McpError(ErrorCode.ConnectionClosed, `The gateway is shutting down: the call was cancelled after the drain deadline of ${deadlineMs} ms`);
}

/** A Downstream that can say which request of the other side a message belongs to. */
interface DownstreamSink extends Downstream {
  request(message: McpMessage, scope: RequestScope, relatedTo?: JsonRpcId): Promise<Result>;
  notify(message: McpMessage, relatedTo?: JsonRpcId): Promise<void>;
}

/** Drops what is sent to it: related traffic of a request that has no channel for it. */
const nowhere: Downstream = {
  request: (message) => Promise.reject(new McpError(ErrorCode.MethodNotFound, `Method not found: ${message.method}`)),
  notify: () => Promise.resolve(),
};

/**
 * Where a request's related messages go, marked as belonging to it (`relatedTo`, the request's id
 * as its sender knows it); progress extends its deadline on the way.
 */
class Related implements Downstream {
  readonly #deadline: Deadline;
  readonly #resetOnProgress: boolean;
  readonly #target: DownstreamSink;
  readonly #relatedTo: JsonRpcId | undefined;

  constructor(deadline: Deadline, resetOnProgress: boolean, target: DownstreamSink, relatedTo: JsonRpcId | undefined) {
    this.#deadline = deadline;
    this.#resetOnProgress = resetOnProgress;
    this.#target = target;
    this.#relatedTo = relatedTo;
  }

  request(message: McpMessage, scope: RequestScope): Promise<Result> {
    return this.#target.request(message, scope, this.#relatedTo);
  }

  notify(message: McpMessage): Promise<void> {
    if (this.#resetOnProgress && message.method === 'notifications/progress') this.#deadline.extend();
    return this.#target.notify(message, this.#relatedTo);
  }

  pause(): void {
    this.#target.pause?.();
  }

  resume(): void {
    this.#target.resume?.();
  }
}

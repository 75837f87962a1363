import { randomBytes } from 'node:crypto';
import { HttpError } from '../../errors/http-error.js';
import type { Logger } from '../../log/logger.js';
import type { Identity } from '../../core/session-info.js';
import { ErrorCode } from '../../errors/error-code.js';
import type { JsonRpcId } from '../../message/jsonrpc.js';
import type { DrainResult, Session } from '../../session/session.js';

/** What every HTTP session's transport offers the table. */
export interface KeptAlive {
  /** Sends a keep-alive comment on the session's open SSE streams. */
  keepAlive(): void;
}

/** One live HTTP session, of either front. */
export interface SessionEntry<T extends KeptAlive = KeptAlive> {
  /** The id the client names it by (`Mcp-Session-Id`, or the legacy `?sessionId=`). */
  readonly id: string;
  readonly session: Session;
  readonly transport: T;
  /** Who opened it: only the same identity may use it. */
  readonly identity: Identity | undefined;
  /**
   * Whether it may expire now: nothing in flight and no connection held open. A legacy session
   * never does (it ends when its stream closes).
   */
  readonly idle: () => boolean;
  /** When the client last used it (ms since the epoch). */
  lastSeen: number;
}

export interface SessionTableOptions {
  /** Most live sessions, both fronts together. */
  maxSessions: number;
  log: Logger;
}

/** A class of transports, to tell one front's sessions from the other's. */
type TransportClass<T> = abstract new (...args: never[]) => T;

/**
 * The live sessions of one HTTP server, both fronts (Streamable HTTP and legacy HTTP+SSE) in one
 * table, so that the `maxSessions` limit, idle expiry, keep-alives and shutdown cover them all.
 * A session leaves the table when its `Session` closes, whatever closed it.
 */
export class SessionTable {
  readonly #options: SessionTableOptions;
  readonly #entries = new Map<string, SessionEntry>();
  /** While draining: the `Retry-After` (seconds) of the refusals. */
  #retryAfter: string | undefined;

  constructor(options: SessionTableOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** True once {@link drain} has begun: no session opens, no new request is taken. */
  get draining(): boolean {
    return this.#retryAfter !== undefined;
  }

  /** Requests in flight, all sessions together. */
  get inFlight(): number {
    let count = 0;
    for (const entry of this.#entries.values()) count += entry.session.inFlight;
    return count;
  }

  /**
   * The refusal of a new session or request while the server drains: 503 with `Retry-After`, its
   * body a JSON-RPC error -32000 with the refused request's id (`null` when there is none, or a
   * batch).
   */
  shuttingDown(id: JsonRpcId | null): HttpError {
    return new HttpError(503, 'Service Unavailable: the server is shutting down and takes no new sessions or requests', {
      code: ErrorCode.ConnectionClosed,
      id,
      headers: { 'retry-after': this.#retryAfter ?? '1' },
    });
  }

  /**
   * Opens a session: refused with 503 when the server has as many as it may, else named with a
   * fresh unguessable id, built by `create`, and kept until its `Session` closes.
   */
  open<T extends KeptAlive>(create: (id: string) => SessionEntry<T>): SessionEntry<T> {
    if (this.draining) throw this.shuttingDown(null);
    const max = this.#options.maxSessions;
    if (this.#entries.size >= max) {
      throw new HttpError(503, `Service Unavailable: the server already has ${max} sessions`, { headers: { 'retry-after': '5' } });
    }
    const id = randomBytes(24).toString('base64url');
    const entry = create(id);
    this.#entries.set(id, entry);
    entry.session.onclose = () => this.#entries.delete(id);
    return entry;
  }

  /**
   * The session `id` names, if it is one of `kind` (a front finds only its own sessions) and was
   * opened by `identity`. Another identity's session is not found, like an unknown one: ids are
   * not an oracle.
   */
  get<T extends KeptAlive>(id: string, identity: Identity | undefined, kind: TransportClass<T>): SessionEntry<T> | undefined {
    const entry = this.#entries.get(id);
    if (!entry || entry.identity?.id !== identity?.id || entry.identity?.issuer !== identity?.issuer || !(entry.transport instanceof kind)) return undefined;
    return entry as SessionEntry<T>;
  }

  /** Ends the sessions idle for longer than `ttlMs` (see {@link SessionEntry.idle}). */
  expire(ttlMs: number, now = Date.now()): void {
    for (const entry of this.#entries.values()) {
      if (now - entry.lastSeen > ttlMs && entry.idle()) {
        this.#options.log.info('session expired', { session: entry.id.slice(0, 8) });
        void entry.session.close();
      }
    }
  }

  /** A keep-alive comment on every session's open streams. */
  keepAlive(): void {
    for (const entry of this.#entries.values()) entry.transport.keepAlive();
  }

  /**
   * Expires idle sessions (checked every quarter TTL, between 1 s and 1 min) and sends keep-alives
   * every `keepAliveMs` (0: never) until the returned function is called. The timers do not keep
   * the process alive.
   */
  startUpkeep(ttlMs: number, keepAliveMs: number): () => void {
    const sweeper = setInterval(() => this.expire(ttlMs), Math.max(1000, Math.min(ttlMs / 4, 60_000)));
    sweeper.unref();
    const keepAlive = keepAliveMs > 0 ? setInterval(() => this.keepAlive(), keepAliveMs) : undefined;
    keepAlive?.unref();
    return () => {
      clearInterval(sweeper);
      clearInterval(keepAlive);
    };
  }

  /**
   * Drains every session (see `Session.drain`): from now on no session opens and the fronts refuse
   * new requests (503, see {@link shuttingDown}); each session ends once nothing is in flight in
   * it, what is left after `deadlineMs` is cancelled. Resolves once every session has ended, with
   * the requests that were in flight and how many of them the deadline cancelled.
   */
  async drain(deadlineMs: number): Promise<DrainResult> {
    this.#retryAfter = String(Math.max(1, Math.ceil(deadlineMs / 1000)));
    const results = await Promise.all([...this.#entries.values()].map((entry) => entry.session.drain(deadlineMs)));
    return results.reduce((sum, result) => ({ inFlight: sum.inFlight + result.inFlight, cancelled: sum.cancelled + result.cancelled }), { inFlight: 0, cancelled: 0 });
  }

  /** Ends every session (closing their upstream connections). */
  async close(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((entry) => entry.session.close()));
  }
}

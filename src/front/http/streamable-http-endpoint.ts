import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../errors/error-code.js';
import { HttpError } from '../../errors/http-error.js';
import type { Logger } from '../../log/logger.js';
import type { JsonRpcId, JsonRpcResponse } from '../../message/jsonrpc.js';
import { classifyMessage } from '../../message/parse-message.js';
import { Session, type SessionOptions } from '../../session/session.js';
import { isSessionEraVersion, isStatelessEraVersion, supportsBatches, supportsPriming } from '../../eras/versions.js';
import type { Identity } from '../../core/session-info.js';
import type { Upstream } from '../../core/upstream.js';
import { accepts } from './accepts.js';
import type { EventStore } from './event-store.js';
import { HttpSessionTransport } from './http-session-transport.js';
import { classifyStatelessPost, type StatelessHttpEndpoint } from './stateless-endpoint.js';
import { readPostBody, sortPostMessages, type PostBody, type SortedMessages } from './post-messages.js';
import type { SessionAdmission } from './session-admission.js';
import type { SessionEntry, SessionTable } from './session-table.js';

export interface StreamableHttpOptions {
  upstream: Upstream;
  session: SessionOptions;
  log: Logger;
  /** Keeps SSE events for `Last-Event-ID`; `undefined` makes streams not resumable. */
  store: EventStore | undefined;
  /** Offer the standalone GET stream (else GET is 405). */
  standaloneSse: boolean;
  maxBodyBytes: number;
  /** The server's sessions, of both fronts (limit, expiry, shutdown). */
  sessions: SessionTable;
  maxInFlightPerSession: number;
  /** The limit on sessions starting at once (their `initialize` waits its turn, or gets 503). */
  admission: SessionAdmission;
  /**
   * A front with OAuth: the step-up challenge for a call whose session's token lacks scopes it
   * needs (`needed`, beside the scopes the token holds): `scopeChallenge` of `oauth-resource`.
   */
  scopeChallenge?: ((needed: readonly string[], held: readonly string[]) => string) | undefined;
  /** Serves the POSTs of 2026-07-28 clients (each request on its own, no session). */
  stateless: StatelessHttpEndpoint;
}

type HttpSession = SessionEntry<HttpSessionTransport>;

/**
 * The MCP endpoint of the Streamable HTTP transport (protocol 2025-03-26 and later): POST carries
 * messages, GET opens (or resumes) an SSE stream, DELETE ends a session. Each session has its own
 * {@link Session} and upstream connections, created by `initialize` and bound to the identity
 * that created it.
 */
export class StreamableHttpEndpoint {
  readonly #options: StreamableHttpOptions;

  constructor(options: StreamableHttpOptions) {
    this.#options = options;
  }

  async handle(req: IncomingMessage, res: ServerResponse, identity: Identity | undefined): Promise<void> {
    // A POST's version header is checked against its body (see #post).
    if (req.method !== 'POST') checkProtocolVersionHeader(req, null);
    if (req.method !== 'POST' && isStatelessEraHeader(req.headers['mcp-protocol-version'])) {
      // The stateless era has no GET stream and no sessions to delete.
      throw new HttpError(405, `Method Not Allowed: ${req.method ?? ''} (protocol version 2026-07-28 has no sessions)`, { headers: { allow: 'POST' } });
    }
    switch (req.method) {
      case 'POST':
        return this.#post(req, res, identity);
      case 'GET':
        return this.#get(req, res, identity);
      case 'DELETE':
        return this.#delete(req, res, identity);
      default:
        throw new HttpError(405, `Method Not Allowed: ${req.method ?? ''}`, {
          headers: { allow: this.#options.standaloneSse ? 'GET, POST, DELETE' : 'POST, DELETE' },
        });
    }
  }

  async #post(req: IncomingMessage, res: ServerResponse, identity: Identity | undefined): Promise<void> {
    checkPostHeaders(req);
    const body = await readPostBody(req, this.#options.maxBodyBytes);
    const stateless = classifyStatelessPost(req, body);
    if (stateless === 'notification') {
      // The 2026-07-28 revision defines no client-to-server notifications over HTTP.
      res.writeHead(202).end();
      return;
    }
    if (stateless !== undefined) {
      await this.#options.stateless.handle(req, res, stateless, identity);
      return;
    }
    checkProtocolVersionHeader(req, loneRequestId(body));
    const sessionId = req.headers['mcp-session-id'];
    const initialize = sessionId === undefined;
    // A start waits its turn (a client that left meanwhile starts nothing); a draining server refuses it in #open.
    if (initialize && !this.#options.sessions.draining && !(await this.#options.admission.admitFor(res))) return;
    const entry = initialize ? this.#open(body, identity) : this.#findForPost(sessionId, identity, body);
    entry.lastSeen = Date.now();
    checkBatchAllowed(entry.session, body.batch);
    const sorted = sortPostMessages(body, entry.transport);
    if (sorted.waiting.length > 0 && this.#options.sessions.draining) this.#refuseWhileDraining(entry.transport, sorted, body.batch);
    this.#checkInFlight(entry.transport, sorted, body.batch);
    if (sorted.waiting.length === 0) answerWithoutRequests(res, entry.transport, sorted);
    else this.#exchange(res, entry, sorted, body.batch, initialize);
  }

  /**
   * A POST with requests while the server drains: its responses and notifications (answers to the
   * server's requests, cancellations) still reach the session, its requests get 503 (see
   * `SessionTable.shuttingDown`).
   */
  #refuseWhileDraining(transport: HttpSessionTransport, sorted: SortedMessages, batch: boolean): never {
    const others = sorted.forward.filter((value) => classifyMessage(value).kind !== 'request');
    if (others.length > 0) transport.accept(others);
    throw this.#options.sessions.shuttingDown(batch ? null : (sorted.waiting[0] ?? null));
  }

  /**
   * The session a POST names; while the server drains, one that has already ended (or is unknown)
   * gets 503 rather than 404, so that the client does not start another session here.
   */
  #findForPost(header: string | string[] | undefined, identity: Identity | undefined, body: PostBody): HttpSession {
    try {
      return this.#find(header, identity);
    } catch (error) {
      if (error instanceof HttpError && error.status === 404 && this.#options.sessions.draining) {
        throw this.#options.sessions.shuttingDown(loneRequestId(body));
      }
      throw error;
    }
  }

  /** 429 (with `Retry-After: 1`) when the POST's requests would take the session over its limit of requests in flight. */
  #checkInFlight(transport: HttpSessionTransport, sorted: SortedMessages, batch: boolean): void {
    const { waiting } = sorted;
    const max = this.#options.maxInFlightPerSession;
    if (waiting.length > 0 && transport.inFlight + waiting.length > max) {
      // A slot frees as soon as one of the session's calls is answered: try again shortly.
      throw new HttpError(429, `Too Many Requests: at most ${max} requests in flight per session`, {
        code: ErrorCode.InvalidRequest,
        id: batch ? null : (waiting[0] ?? null),
        headers: { 'retry-after': '1' },
      });
    }
  }

  /** A POST with requests: its answer (JSON or SSE) goes out as they are answered. */
  #exchange(res: ServerResponse, entry: HttpSession, sorted: SortedMessages, batch: boolean, initialize: boolean): void {
    entry.transport.exchange(res, sorted.forward, {
      waiting: sorted.waiting,
      batch,
      headers: initialize ? { 'mcp-session-id': entry.id } : {},
      answers: sorted.answers,
      ...this.#stepUp(entry),
      ...(initialize
        ? { onAnswer: (response: JsonRpcResponse) => {
            // A session whose initialize failed is of no use: the client starts another.
            if ('error' in response) void entry.session.close();
          } }
        : {}),
    });
  }

  /**
   * The step-up challenge of the exchange's lone -32004 answer: on a front with OAuth, for a session
   * whose identity has scopes (an OAuth token; a static token cannot step up), read when the answer
   * goes out.
   */
  #stepUp(entry: HttpSession): { scopeChallenge?: (needed: readonly string[]) => string | undefined } {
    const challenge = this.#options.scopeChallenge;
    if (challenge === undefined) return {};
    return {
      scopeChallenge: (needed) => {
        const held = entry.session.info.identity?.scopes;
        return held === undefined ? undefined : challenge(needed, held);
      },
    };
  }

  async #get(req: IncomingMessage, res: ServerResponse, identity: Identity | undefined): Promise<void> {
    if (!accepts(req.headers.accept, 'text/event-stream')) {
      throw new HttpError(406, 'Not Acceptable: the client must accept text/event-stream');
    }
    const entry = this.#find(req.headers['mcp-session-id'], identity);
    if (!this.#options.standaloneSse) {
      throw new HttpError(405, 'Method Not Allowed: this server offers no standalone SSE stream', { headers: { allow: 'POST, DELETE' } });
    }
    entry.lastSeen = Date.now();
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string' && lastEventId !== '') {
      if (await entry.transport.reconnect(res, lastEventId, {})) return;
      if (!lastEventId.startsWith('0-')) {
        throw new HttpError(400, `Bad Request: unknown or expired Last-Event-ID ${lastEventId}`);
      }
      this.#options.log.warn('resuming the standalone stream from an expired event id; messages may have been lost', {
        session: entry.id.slice(0, 8),
      });
    }
    entry.transport.listen(res, {});
  }

  async #delete(req: IncomingMessage, res: ServerResponse, identity: Identity | undefined): Promise<void> {
    const entry = this.#find(req.headers['mcp-session-id'], identity);
    await entry.session.close();
    res.writeHead(200).end();
  }

  /** A POST without a session id: only a lone `initialize` may start a session. */
  #open(body: PostBody, identity: Identity | undefined): HttpSession {
    const [first] = body.values;
    const classified = body.batch ? undefined : classifyMessage(first);
    const isInitialize = classified?.kind === 'request' && classified.message.method === 'initialize';
    if (!isInitialize) {
      throw new HttpError(400, 'Bad Request: Mcp-Session-Id header is required (only initialize may come without one)');
    }
    if (this.#options.sessions.draining) throw this.#options.sessions.shuttingDown(classified.message.id);
    const entry = this.#options.sessions.open((id): HttpSession => {
      const transport: HttpSessionTransport = new HttpSessionTransport({
        id,
        store: this.#options.store,
        priming: (): boolean => supportsPriming(session.info.protocolVersion ?? ''),
        log: this.#options.log,
      });
      const session: Session = new Session(transport, this.#options.upstream, {
        ...this.#options.session,
        ...(identity === undefined ? {} : { identity }),
      });
      const idle = (): boolean => transport.inFlight === 0 && !transport.connected;
      return { id, transport, session, identity, idle, lastSeen: Date.now() };
    });
    void entry.session.start();
    return entry;
  }

  /**
   * The session a request names; 400 without one, 404 if unknown, ended, or someone else's. The
   * request's identity becomes the session's (see `Session.updateIdentity`).
   */
  #find(header: string | string[] | undefined, identity: Identity | undefined): HttpSession {
    if (header === undefined) throw new HttpError(400, 'Bad Request: Mcp-Session-Id header is required');
    const entry = typeof header === 'string' ? this.#options.sessions.get(header, identity, HttpSessionTransport) : undefined;
    if (!entry) throw new HttpError(404, 'Not Found: no such session');
    // The same subject, maybe with a newer token (refreshed, or stepped up to more scopes): its
    // scopes and token are the session's from now on. Never another kind of credential.
    if (identity !== undefined && identity.method === entry.identity?.method) entry.session.updateIdentity(identity);
    return entry;
  }
}

/** The id of a POST that is one request, else null. */
function loneRequestId(body: PostBody): JsonRpcId | null {
  if (body.batch) return null;
  const classified = classifyMessage(body.values[0]);
  return classified.kind === 'request' ? classified.message.id : null;
}

function isStatelessEraHeader(header: string | string[] | undefined): boolean {
  return typeof header === 'string' && isStatelessEraVersion(header.trim());
}

/**
 * 400 for an unsupported `MCP-Protocol-Version` (absent means 2025-03-26, which is fine; a
 * 2026-07-28 one is checked against the body, see `classifyStatelessPost`).
 */
function checkProtocolVersionHeader(req: IncomingMessage, id: JsonRpcId | null): void {
  const header = req.headers['mcp-protocol-version'];
  if (header !== undefined && !isSessionEraVersion(header) && !isStatelessEraHeader(header)) {
    throw new HttpError(400, `Bad Request: unsupported MCP-Protocol-Version ${String(header)}`, { id });
  }
}

/** 406 unless the client takes both answer forms; 415 unless the body is JSON. */
function checkPostHeaders(req: IncomingMessage): void {
  if (!accepts(req.headers.accept, 'application/json') || !accepts(req.headers.accept, 'text/event-stream')) {
    throw new HttpError(406, 'Not Acceptable: the client must accept both application/json and text/event-stream');
  }
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new HttpError(415, 'Unsupported Media Type: the body must be application/json');
  }
}

/** 400 -32600 for a batch in a session whose protocol version has none (only 2025-03-26 does). */
function checkBatchAllowed(session: Session, batch: boolean): void {
  const version = session.info.protocolVersion;
  if (batch && !(version !== undefined && supportsBatches(version))) {
    throw new HttpError(400, `Invalid Request: batches are not supported in protocol version ${version ?? '(none yet)'}`, {
      code: ErrorCode.InvalidRequest,
    });
  }
}

/** A POST of notifications and responses only: 202, or 200 with the answers to its invalid members. */
function answerWithoutRequests(res: ServerResponse, transport: HttpSessionTransport, sorted: SortedMessages): void {
  transport.accept(sorted.forward);
  if (sorted.answers.length > 0) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(sorted.answers));
  } else {
    res.writeHead(202).end();
  }
}

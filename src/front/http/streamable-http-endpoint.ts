import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../errors/error-code.js';
import { HttpError } from '../../errors/http-error.js';
import type { Logger } from '../../log/logger.js';
import { errorResponse, type JsonRpcId, type JsonRpcResponse } from '../../message/jsonrpc.js';
import { classifyMessage, isJsonObject } from '../../message/parse-message.js';
import { RAW_THRESHOLD_BYTES, rememberRawMember } from '../../message/raw-json.js';
import { Session, type SessionOptions } from '../../session/session.js';
import { isSupportedVersion, supportsBatches } from '../../spec/versions.js';
import type { Identity } from '../../core/session-info.js';
import type { Upstream } from '../../core/upstream.js';
import { accepts } from './accepts.js';
import type { EventStore } from './event-store.js';
import { HttpSessionTransport } from './http-session-transport.js';
import { readBody } from './read-body.js';

export interface StreamableHttpOptions {
  upstream: Upstream;
  session: SessionOptions;
  log: Logger;
  /** Keeps SSE events for `Last-Event-ID`; `undefined` makes streams not resumable. */
  store: EventStore | undefined;
  /** Offer the standalone GET stream (else GET is 405). */
  standaloneSse: boolean;
  maxBodyBytes: number;
  /** Throws 503 when the server (all its fronts) has as many sessions as it may. */
  admitSession: () => void;
  maxInFlightPerSession: number;
}

interface HttpSession {
  readonly id: string;
  readonly transport: HttpSessionTransport;
  readonly session: Session;
  readonly identity: Identity | undefined;
  lastSeen: number;
}


/**
 * The MCP endpoint of the Streamable HTTP transport (protocol 2025-03-26 and later): POST carries
 * messages, GET opens (or resumes) an SSE stream, DELETE ends a session. Each session has its own
 * {@link Session} and upstream connections, created by `initialize` and bound to the identity
 * that created it.
 */
export class StreamableHttpEndpoint {
  readonly #options: StreamableHttpOptions;
  readonly #sessions = new Map<string, HttpSession>();

  constructor(options: StreamableHttpOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#sessions.size;
  }

  async handle(req: IncomingMessage, res: ServerResponse, identity: Identity | undefined): Promise<void> {
    checkProtocolVersionHeader(req);
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

  /** Ends the sessions idle for longer than `ttlMs` (no request, no open stream). */
  expire(ttlMs: number, now = Date.now()): void {
    for (const entry of this.#sessions.values()) {
      if (now - entry.lastSeen > ttlMs && entry.transport.inFlight === 0 && !entry.transport.connected) {
        this.#options.log.info('session expired', { session: entry.id.slice(0, 8) });
        void entry.session.close();
      }
    }
  }

  /** A keep-alive comment on every open SSE stream. */
  keepAlive(): void {
    for (const entry of this.#sessions.values()) entry.transport.keepAlive();
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((entry) => entry.session.close()));
  }

  async #post(req: IncomingMessage, res: ServerResponse, identity: Identity | undefined): Promise<void> {
    if (!accepts(req.headers.accept, 'application/json') || !accepts(req.headers.accept, 'text/event-stream')) {
      throw new HttpError(406, 'Not Acceptable: the client must accept both application/json and text/event-stream');
    }
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      throw new HttpError(415, 'Unsupported Media Type: the body must be application/json');
    }
    const body = await readBody(req, this.#options.maxBodyBytes);
    const parsed = parseBody(body);
    const batch = Array.isArray(parsed);
    const values: unknown[] = batch ? parsed : [parsed];
    if (values.length === 0) throw new HttpError(400, 'Invalid Request: empty batch', { code: ErrorCode.InvalidRequest });

    const sessionId = req.headers['mcp-session-id'];
    const entry = sessionId === undefined ? this.#open(values, batch, identity) : this.#find(sessionId, identity);
    entry.lastSeen = Date.now();
    const version = entry.session.info.protocolVersion;
    if (batch && !(version !== undefined && supportsBatches(version))) {
      throw new HttpError(400, `Invalid Request: batches are not supported in protocol version ${version ?? '(none yet)'}`, {
        code: ErrorCode.InvalidRequest,
      });
    }

    // Sort the messages: requests wait for answers; invalid ones are answered here.
    const waiting: JsonRpcId[] = [];
    const forward: unknown[] = [];
    const answers: JsonRpcResponse[] = [];
    for (const value of values) {
      const classified = classifyMessage(value);
      if (classified.kind === 'invalid') {
        if (!batch) throw new HttpError(400, classified.error.message, { code: classified.error.code, id: classified.id });
        answers.push(errorResponse(classified.id, classified.error));
        continue;
      }
      if (classified.kind === 'request') {
        const { id } = classified.message;
        if (entry.transport.has(id) || waiting.includes(id)) {
          const message = `Invalid Request: id ${JSON.stringify(id)} is already in use by a request in flight`;
          if (!batch) throw new HttpError(400, message, { code: ErrorCode.InvalidRequest, id });
          answers.push(errorResponse(id, { code: ErrorCode.InvalidRequest, message }));
          continue;
        }
        waiting.push(id);
      }
      forward.push(value);
    }
    if (waiting.length > 0 && entry.transport.inFlight + waiting.length > this.#options.maxInFlightPerSession) {
      throw new HttpError(429, `Too Many Requests: at most ${this.#options.maxInFlightPerSession} requests in flight per session`, {
        code: ErrorCode.InvalidRequest,
        id: batch ? null : (waiting[0] ?? null),
      });
    }
    if (waiting.length === 0) {
      entry.transport.accept(forward);
      if (answers.length > 0) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers));
      } else {
        res.writeHead(202).end();
      }
      return;
    }
    const initialize = sessionId === undefined;
    entry.transport.exchange(res, forward, {
      waiting,
      batch,
      headers: initialize ? { 'mcp-session-id': entry.id } : {},
      answers,
      ...(initialize
        ? { onAnswer: (response: JsonRpcResponse) => {
            // A session whose initialize failed is of no use: the client starts another.
            if ('error' in response) void entry.session.close();
          } }
        : {}),
    });
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
  #open(values: unknown[], batch: boolean, identity: Identity | undefined): HttpSession {
    const [first] = values;
    const classified = batch ? undefined : classifyMessage(first);
    const isInitialize = classified?.kind === 'request' && classified.message.method === 'initialize';
    if (!isInitialize) {
      throw new HttpError(400, 'Bad Request: Mcp-Session-Id header is required (only initialize may come without one)');
    }
    this.#options.admitSession();
    const id = randomBytes(24).toString('base64url');
    const log = this.#options.log;
    const transport: HttpSessionTransport = new HttpSessionTransport({
      id,
      store: this.#options.store,
      // Priming events are for clients at 2025-11-25 and later (older SDKs choke on empty data).
      priming: (): boolean => (session.info.protocolVersion ?? '') >= '2025-11-25',
      log,
    });
    const session: Session = new Session(transport, this.#options.upstream, {
      ...this.#options.session,
      ...(identity === undefined ? {} : { identity }),
    });
    const entry: HttpSession = { id, transport, session, identity, lastSeen: Date.now() };
    this.#sessions.set(id, entry);
    session.onclose = () => this.#sessions.delete(id);
    void session.start();
    return entry;
  }

  /** The session a request names; 400 without one, 404 if unknown, ended, or someone else's. */
  #find(header: string | string[] | undefined, identity: Identity | undefined): HttpSession {
    if (header === undefined) throw new HttpError(400, 'Bad Request: Mcp-Session-Id header is required');
    const entry = typeof header === 'string' ? this.#sessions.get(header) : undefined;
    // Another identity's session is answered like an unknown one: ids are not an oracle.
    if (!entry || entry.identity?.id !== identity?.id) throw new HttpError(404, 'Not Found: no such session');
    return entry;
  }
}

/** 400 for an unsupported `MCP-Protocol-Version` (absent means 2025-03-26, which is fine). */
function checkProtocolVersionHeader(req: IncomingMessage): void {
  const header = req.headers['mcp-protocol-version'];
  if (header !== undefined && !isSupportedVersion(header)) {
    throw new HttpError(400, `Bad Request: unsupported MCP-Protocol-Version ${String(header)}`);
  }
}

function parseBody(body: Buffer): unknown {
  if (!isUtf8(body)) throw new HttpError(400, 'Parse error: the body is not valid UTF-8', { code: ErrorCode.ParseError });
  const text = body.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'Parse error: the body is not valid JSON', { code: ErrorCode.ParseError });
  }
  if (text.length >= RAW_THRESHOLD_BYTES && isJsonObject(value)) rememberRawMember(value, text);
  return value;
}

import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../errors/error-code.js';
import { HttpError } from '../../errors/http-error.js';
import { Session, type SessionOptions } from '../../session/session.js';
import type { Identity } from '../../core/session-info.js';
import type { Upstream } from '../../core/upstream.js';
import { accepts } from './accepts.js';
import { LegacySseTransport } from './legacy-sse-transport.js';
import { readBody } from './read-body.js';

export interface LegacySseOptions {
  upstream: Upstream;
  session: SessionOptions;
  /** Where clients POST their messages (the `endpoint` event names it with `?sessionId=`). */
  messagesPath: string;
  maxBodyBytes: number;
  /** Throws 503 when the server (all its fronts) has as many sessions as it may. */
  admitSession: () => void;
}

interface LegacySession {
  readonly transport: LegacySseTransport;
  readonly session: Session;
  readonly identity: Identity | undefined;
}


/**
 * The HTTP+SSE transport of protocol 2024-11-05, for older clients: GET on the SSE path opens a
 * session and its stream, POST to the messages path (`?sessionId=…`) delivers a message (202).
 */
export class LegacySseEndpoint {
  readonly #options: LegacySseOptions;
  readonly #sessions = new Map<string, LegacySession>();

  constructor(options: LegacySseOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** GET on the SSE path. */
  async open(req: IncomingMessage, res: ServerResponse, identity: Identity | undefined): Promise<void> {
    if (req.method !== 'GET') throw new HttpError(405, 'Method Not Allowed', { headers: { allow: 'GET' } });
    if (!accepts(req.headers.accept ?? 'text/event-stream', 'text/event-stream')) {
      throw new HttpError(406, 'Not Acceptable: the client must accept text/event-stream');
    }
    this.#options.admitSession();
    const id = randomBytes(24).toString('base64url');
    const transport = new LegacySseTransport(res, `${this.#options.messagesPath}?sessionId=${id}`);
    const session = new Session(transport, this.#options.upstream, {
      ...this.#options.session,
      ...(identity === undefined ? {} : { identity }),
    });
    this.#sessions.set(id, { transport, session, identity });
    session.onclose = () => this.#sessions.delete(id);
    await session.start();
  }

  /** POST on the messages path. */
  async post(req: IncomingMessage, res: ServerResponse, url: URL, identity: Identity | undefined): Promise<void> {
    if (req.method !== 'POST') throw new HttpError(405, 'Method Not Allowed', { headers: { allow: 'POST' } });
    const id = url.searchParams.get('sessionId');
    if (id === null) throw new HttpError(400, 'Bad Request: sessionId is required');
    const entry = this.#sessions.get(id);
    if (!entry || entry.identity?.id !== identity?.id) throw new HttpError(404, 'Not Found: no such session');
    const body = await readBody(req, this.#options.maxBodyBytes);
    let value: unknown;
    try {
      if (!isUtf8(body)) throw new Error('not UTF-8');
      value = JSON.parse(body.toString('utf8'));
    } catch {
      throw new HttpError(400, 'Parse error: the body is not valid JSON', { code: ErrorCode.ParseError });
    }
    res.writeHead(202).end('Accepted');
    entry.transport.receive(value);
  }

  /** A keep-alive comment on every session's stream. */
  keepAlive(): void {
    for (const entry of this.#sessions.values()) entry.transport.keepAlive();
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((entry) => entry.session.close()));
  }
}

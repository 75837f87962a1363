import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../../errors/http-error.js';
import { classifyMessage } from '../../message/parse-message.js';
import { Session, type SessionOptions } from '../../session/session.js';
import type { Identity } from '../../core/session-info.js';
import type { Upstream } from '../../core/upstream.js';
import { accepts } from './accepts.js';
import { LegacySseSessionTransport } from './legacy-sse-session-transport.js';
import { readJsonBody } from './read-json-body.js';
import type { SessionTable } from './session-table.js';

export interface LegacySseOptions {
  upstream: Upstream;
  session: SessionOptions;
  /** Where clients POST their messages (the `endpoint` event names it with `?sessionId=`). */
  messagesPath: string;
  maxBodyBytes: number;
  /** The server's sessions, of both fronts (limit, shutdown). */
  sessions: SessionTable;
}

/**
 * The HTTP+SSE transport of protocol 2024-11-05, for older clients: GET on the SSE path opens a
 * session and its stream, POST to the messages path (`?sessionId=…`) delivers a message (202).
 */
export class LegacySseEndpoint {
  readonly #options: LegacySseOptions;

  constructor(options: LegacySseOptions) {
    this.#options = options;
  }

  /** GET on the SSE path. */
  async open(req: IncomingMessage, res: ServerResponse, identity: Identity | undefined): Promise<void> {
    if (req.method !== 'GET') throw new HttpError(405, 'Method Not Allowed', { headers: { allow: 'GET' } });
    if (!accepts(req.headers.accept ?? 'text/event-stream', 'text/event-stream')) {
      throw new HttpError(406, 'Not Acceptable: the client must accept text/event-stream');
    }
    const entry = this.#options.sessions.open((id) => {
      const transport = new LegacySseSessionTransport(res, `${this.#options.messagesPath}?sessionId=${id}`);
      const session = new Session(transport, this.#options.upstream, {
        ...this.#options.session,
        ...(identity === undefined ? {} : { identity }),
      });
      // The stream is the session: it ends when the stream closes, never for idleness.
      return { id, transport, session, identity, idle: () => false, lastSeen: Date.now() };
    });
    await entry.session.start();
  }

  /** POST on the messages path. */
  async post(req: IncomingMessage, res: ServerResponse, url: URL, identity: Identity | undefined): Promise<void> {
    if (req.method !== 'POST') throw new HttpError(405, 'Method Not Allowed', { headers: { allow: 'POST' } });
    const id = url.searchParams.get('sessionId');
    if (id === null) throw new HttpError(400, 'Bad Request: sessionId is required');
    const entry = this.#options.sessions.get(id, identity, LegacySseSessionTransport);
    if (!entry && this.#options.sessions.draining) throw this.#options.sessions.shuttingDown(null);
    if (!entry) throw new HttpError(404, 'Not Found: no such session');
    const value = await readJsonBody(req, this.#options.maxBodyBytes);
    entry.lastSeen = Date.now();
    if (this.#options.sessions.draining) {
      refuseRequestsWhileDraining(value, entry.transport, this.#options.sessions);
    }
    res.writeHead(202).end('Accepted');
    entry.transport.receive(value);
  }
}

/**
 * A POST while the server drains: one carrying requests gets 503 (see `SessionTable.shuttingDown`;
 * the id of a lone request in its body), after its responses and notifications (a batch's) have
 * reached the session; one without requests goes on as usual.
 */
function refuseRequestsWhileDraining(value: unknown, transport: LegacySseSessionTransport, sessions: SessionTable): void {
  const values: readonly unknown[] = Array.isArray(value) ? value : [value];
  const requests = values.map((member) => classifyMessage(member)).filter((classified) => classified.kind === 'request');
  if (requests.length === 0) return;
  for (const member of values) if (classifyMessage(member).kind !== 'request') transport.receive(member);
  throw sessions.shuttingDown(Array.isArray(value) ? null : (requests[0]?.message.id ?? null));
}

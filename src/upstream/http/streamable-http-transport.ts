import type { IncomingMessage } from 'node:http';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, JsonRpcId, JsonRpcMessage } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { lazyPartsOf } from '../../message/lazy-message.js';
import { claimsStatelessEra } from '../../eras/stateless-envelope.js';
import { ToolHeaderMap } from '../../eras/tool-header-map.js';
import type { Transport } from '../../transport/transport.js';
import { drainResponse } from './drain-response.js';
import { httpRefusal } from './http-refusal.js';
import type { HttpTransportOptions } from './http-transport-options.js';
import { Inbox } from './inbox.js';
import { LegacySseClientTransport } from './legacy-sse-client-transport.js';
import { readPostAnswer, sendPost } from './post-exchange.js';
import { requestIdOf } from './request-id-of.js';
import { SessionRecovery } from './session-recovery.js';
import { StandaloneStream } from './standalone-stream.js';
import { networkCause, transportError } from './transport-error.js';
import { UpstreamSession } from './upstream-session.js';

export interface StreamableHttpTransportOptions extends HttpTransportOptions {
  /**
   * Fall back to the legacy HTTP+SSE transport (2024-11-05) when `initialize` is refused with
   * 400, 404 or 405, as the spec advises clients that want to reach older servers.
   */
  readonly fallback: boolean;
}

const OWN_REQUEST_TIMEOUT_MS = 30_000;

/**
 * The client side of Streamable HTTP (MCP 2025-03-26 and later), as a Transport under a Peer: every
 * message is a POST whose answer is JSON or an SSE stream (`post-exchange.ts`); the session id and
 * the negotiated protocol version go on every request after `initialize`; a standalone GET stream
 * carries what the server sends on its own (`standalone-stream.ts`); a POST stream that breaks
 * before its answer is resumed with GET and `Last-Event-ID` (`answer-stream.ts`); a server that
 * forgot the session (404) is initialized again and the message sent once more
 * (`session-recovery.ts`); the session is deleted on close. A failed exchange answers its request
 * with an error, the transport stays open: the next message tries again. The request behind a
 * `notifications/cancelled` is aborted. This class orders the messages and decides what an answer
 * that is not 2xx means.
 */
export class StreamableHttpTransport implements Transport {
  onmessage?: (value: unknown) => void;
  onmalformed?: (error: McpError, line: string | undefined) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #options: StreamableHttpTransportOptions;
  readonly #session: UpstreamSession;
  readonly #standalone: StandaloneStream;
  readonly #recovery: SessionRecovery;
  /** Set once the server turned out to speak only the legacy HTTP+SSE transport. */
  #legacy: LegacySseClientTransport | undefined;
  /** Ids of initialize requests in flight, whose answer carries the negotiated version. */
  readonly #initializing = new Set<JsonRpcId>();
  /**
   * The `x-mcp-header` declarations of the server's tools (2026-07-28), learnt from its
   * `tools/list` answers: a `tools/call` mirrors the arguments they name into `Mcp-Param-*` headers.
   */
  readonly #toolHeaders = new ToolHeaderMap();
  /** Ids of 2026-07-28 `tools/list` requests in flight, and whether each asked for the first page. */
  readonly #listing = new Map<JsonRpcId, boolean>();
  /** The exchange (POST and any resumption) behind each request in flight. */
  readonly #exchanges = new Map<JsonRpcId, AbortController>();
  /** Settles when the last notification was accepted: later messages wait for it (order). */
  #notified: Promise<void> = Promise.resolve();
  /**
   * Settles when the standalone stream of the newest session was answered. The transport's own
   * `notifications/initialized` waits for it, and only for it: the client's notifications may be
   * waiting for the very re-initialization that sends it.
   */
  #listening: Promise<void> = Promise.resolve();

  constructor(options: StreamableHttpTransportOptions) {
    this.#options = options;
    const inbox = new Inbox(this);
    inbox.inspect = (message) => this.#inspect(message);
    this.#session = new UpstreamSession(options, inbox);
    this.#standalone = new StandaloneStream(this.#session, (id) => this.#recovery.recover(id));
    this.#recovery = new SessionRecovery(this.#session, this.#standalone, {
      request: (message) => inbox.request(message, (request) => void this.#post(request, Promise.resolve(), true), OWN_REQUEST_TIMEOUT_MS),
      notify: (message) => this.#post({ jsonrpc: '2.0', ...message }, this.#listening, true),
    });
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): void {
    for (const one of Array.isArray(message) ? message : [message]) this.#dispatch(one);
  }

  async close(): Promise<void> {
    const session = this.#session;
    if (session.closed) return;
    session.closed = true;
    for (const controller of session.open) controller.abort();
    if (this.#legacy) await this.#legacy.close();
    else await session.end();
    this.onclose?.();
  }

  #dispatch(message: JsonRpcMessage): void {
    if (this.#session.closed) return;
    if (this.#legacy) {
      this.#legacy.send(message);
      return;
    }
    const after = this.#notified;
    const posted = this.#post(message, after, false);
    if (!('method' in message) || 'id' in message) return;
    // Notifications keep their order, and what follows one waits until it was accepted.
    this.#notified = posted;
    const cancelled = message.method === 'notifications/cancelled' ? message.params?.requestId : undefined;
    if (typeof cancelled === 'string' || typeof cancelled === 'number') {
      // The server was told; now stop the HTTP exchange behind the request so nothing leaks.
      void posted.then(() => this.#exchanges.get(cancelled)?.abort());
    }
  }

  /**
   * POSTs one message after `after` (and after a re-initialization in progress), and handles the
   * answer; never rejects. `own`: the transport's own message (a re-initialization), which neither
   * waits for one nor starts one.
   */
  async #post(message: JsonRpcMessage, after: Promise<void>, own: boolean, retried = false): Promise<void> {
    await after;
    if (!own && !(await this.#ready(message))) return;
    if (this.#session.closed) return;
    if (this.#legacy) {
      this.#legacy.send(message);
      return;
    }
    const id = requestIdOf(message);
    const controller = this.#track(message, id, own);
    const sessionId = this.#session.id;
    try {
      const response = await sendPost(this.#session, message, controller.signal, this.#toolHeaders);
      if (response === undefined) return;
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        if (!own) this.#reachable();
        await readPostAnswer(this.#session, message, id, response, controller.signal);
        this.#standalone.retry();
        return;
      }
      if (status === 404 && sessionId !== undefined && !isInitialize(message) && !own && !retried) {
        // The server forgot the session: start a new one and send the message again, once.
        drainResponse(response);
        if (!(await this.#recovered(message, sessionId))) return;
        this.#untrack(id, controller);
        await this.#post(message, Promise.resolve(), own, true);
        return;
      }
      await this.#refused(message, response, status, own);
    } finally {
      this.#untrack(id, controller);
    }
  }

  /** Waits until the session can be used; false if it could not be re-initialized (then `message` failed). */
  async #ready(message: JsonRpcMessage): Promise<boolean> {
    try {
      await this.#recovery.ready(message);
      return true;
    } catch (error) {
      this.#session.fail(message, error instanceof McpError ? error : transportError(this.#options.target.server, networkCause(error)));
      return false;
    }
  }

  /** Re-initializes the session `sessionId` the server forgot; false if that failed (then `message` failed). */
  async #recovered(message: JsonRpcMessage, sessionId: string): Promise<boolean> {
    try {
      await this.#recovery.recover(sessionId);
      return true;
    } catch (error) {
      this.#session.fail(message, error instanceof McpError ? error : transportError(this.#options.target.server, networkCause(error)));
      return false;
    }
  }

  /** A 2xx answer to a message of the client: the connection is up, unless a new session is still being set up. */
  #reachable(): void {
    if (!this.#recovery.recovering && !this.#session.expired) this.#options.status.up(false);
  }

  /** A non-2xx answer (other than a forgotten session): the legacy fallback, or an error for the message. */
  async #refused(message: JsonRpcMessage, response: IncomingMessage, status: number, own: boolean): Promise<void> {
    if ((status === 400 || status === 404 || status === 405) && isInitialize(message) && !own && this.#options.fallback) {
      drainResponse(response);
      await this.#fallBack(message, status);
      return;
    }
    if ((status === 401 || status === 403) && 'method' in message && message.method === 'server/discover') {
      // Said plainly, whatever the body: a probe refused for want of a token tells nothing of the era.
      drainResponse(response);
      this.#session.fail(message, transportError(this.#options.target.server, `answered HTTP ${status} to server/discover`, { status }));
      return;
    }
    this.#session.fail(message, await httpRefusal(response, this.#options.target.server));
  }

  #track(message: JsonRpcMessage, id: JsonRpcId | undefined, own: boolean): AbortController {
    const controller = new AbortController();
    this.#session.open.add(controller);
    if (id !== undefined && !own) this.#exchanges.set(id, controller);
    if (id !== undefined && isInitialize(message)) this.#initializing.add(id);
    if (id !== undefined && 'method' in message && message.method === 'tools/list' && claimsStatelessEra(message.params)) {
      this.#listing.set(id, message.params?.cursor === undefined);
    }
    return controller;
  }

  #untrack(id: JsonRpcId | undefined, controller: AbortController): void {
    this.#session.open.delete(controller);
    if (id === undefined) return;
    if (this.#exchanges.get(id) === controller) this.#exchanges.delete(id);
    this.#initializing.delete(id);
    this.#listing.delete(id);
  }

  /**
   * Sees every message before it is delivered. A successful answer to `initialize` carries the
   * negotiated version, and opens the standalone stream at once: the server may send on it as soon
   * as it is told `notifications/initialized`, so that notification (and whatever follows it)
   * waits until the stream is established.
   */
  #inspect(message: JsonObject): void {
    if (this.#legacy) return;
    if (message.method === 'notifications/tools/list_changed') this.#toolHeaders.forget();
    const answerTo = message.id;
    const first = (typeof answerTo === 'string' || typeof answerTo === 'number') ? this.#listing.get(answerTo) : undefined;
    if (first !== undefined && isJsonObject(message.result)) {
      const next = message.result.nextCursor;
      const last = first && (typeof next !== 'string' || next === '');
      // A large page that declares no headers is not read.
      const bytes = lazyPartsOf(message.result)?.bytes;
      if (bytes !== undefined && !bytes.includes('x-mcp-header')) this.#toolHeaders.learnNone(last);
      else this.#toolHeaders.learn(message.result, last);
    }
    if ('method' in message || (typeof answerTo !== 'string' && typeof answerTo !== 'number') || !this.#initializing.has(answerTo)) return;
    if (!isJsonObject(message.result)) return;
    const version = message.result.protocolVersion;
    if (typeof version === 'string') this.#session.protocolVersion = version;
    const opened = this.#standalone.open();
    this.#listening = opened;
    const before = this.#notified;
    this.#notified = Promise.all([before, opened]).then(() => undefined);
  }

  /** The server refused `initialize` as Streamable HTTP: try the legacy HTTP+SSE transport. */
  async #fallBack(message: JsonRpcMessage, status: number): Promise<void> {
    const legacy = new LegacySseClientTransport(this.#options, this.#session.inbox);
    const { server } = this.#options.target;
    try {
      await legacy.connect();
    } catch (error) {
      if (this.#options.auth?.failed(error)) {
        // A legacy server that wants a login: the login URL is the answer.
        this.#session.fail(message, error);
        return;
      }
      const cause = error instanceof McpError ? error.message.replace(`Upstream ${server} `, '') : networkCause(error);
      this.#session.fail(message, transportError(server, `answered HTTP ${status} to initialize, and is no legacy HTTP+SSE server either (${cause})`, { status }));
      return;
    }
    if (this.#session.closed) {
      await legacy.close();
      return;
    }
    this.#options.log.info('the upstream speaks the legacy HTTP+SSE transport (2024-11-05)');
    this.#legacy = legacy;
    legacy.send(message);
  }
}

function isInitialize(message: JsonRpcMessage): boolean {
  return 'method' in message && message.method === 'initialize';
}

import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, JsonRpcErrorObject, JsonRpcId, JsonRpcMessage } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { serializeMessage } from '../../message/raw-json.js';
import type { Transport } from '../../transport/transport.js';
import { delay } from './delay.js';
import { httpRefusal, mediaType } from './http-refusal.js';
import type { HttpTransportOptions } from './http-transport-options.js';
import { Inbox } from './inbox.js';
import { LegacySseTransport } from './legacy-sse-transport.js';
import { drain, readBody } from './read-body.js';
import { readSse } from './read-sse.js';
import { networkCause, transportError } from './transport-error.js';

export interface StreamableHttpTransportOptions extends HttpTransportOptions {
  /**
   * Fall back to the legacy HTTP+SSE transport (2024-11-05) when `initialize` is refused with
   * 400, 404 or 405, as the spec advises clients that want to reach older servers.
   */
  readonly fallback: boolean;
}

/** Where a stream of SSE events is: the last event id (to resume from) and the retry hint. */
interface Cursor {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  /** Recent event ids, so that an event replayed twice is delivered once. */
  readonly seen: Set<string>;
}

const ACCEPT_BOTH = 'application/json, text/event-stream';
const OWN_REQUEST_TIMEOUT_MS = 30_000;
/** Reconnection attempts in a row that may fail before a broken answer stream is given up. */
const RESUME_ATTEMPTS = 3;
const SEEN_EVENTS = 256;

/**
 * The client side of Streamable HTTP (MCP 2025-03-26 and later), as a Transport under a Peer: every
 * message is a POST whose answer is JSON or an SSE stream; the session id and the negotiated
 * protocol version go on every request after `initialize`; a standalone GET stream carries what
 * the server sends on its own; a POST stream that breaks before its answer is resumed with GET and
 * `Last-Event-ID`; a server that forgot the session (404) is initialized again (with the client's
 * own parameters, log level and subscriptions) and the message sent once more; the session is
 * deleted on close. A failed exchange answers its request with an error, the transport stays open:
 * the next message tries again. The request behind a `notifications/cancelled` is aborted.
 */
export class StreamableHttpTransport implements Transport {
  onmessage?: (value: unknown) => void;
  onmalformed?: (error: McpError, line: string | undefined) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #options: StreamableHttpTransportOptions;
  readonly #inbox = new Inbox(this);
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  /** The server forgot the session: initialize again before the next message. */
  #expired = false;
  #recovering: Promise<void> | undefined;
  /** Set once the server turned out to speak only the legacy HTTP+SSE transport. */
  #legacy: LegacySseTransport | undefined;
  #closed = false;
  /** Ids of initialize requests in flight, whose answer carries the negotiated version. */
  readonly #initializing = new Set<JsonRpcId>();
  /** The exchange (POST and any resumption) behind each request in flight. */
  readonly #exchanges = new Map<JsonRpcId, AbortController>();
  /** Every open HTTP exchange, aborted on close. */
  readonly #open = new Set<AbortController>();
  /** Settles when the last notification was accepted: later messages wait for it (order). */
  #notified: Promise<void> = Promise.resolve();
  #standalone: 'off' | 'open' | 'wanted' | 'unsupported' = 'off';
  #standaloneAbort: AbortController | undefined;

  constructor(options: StreamableHttpTransportOptions) {
    this.#options = options;
    this.#inbox.inspect = (message) => this.#inspect(message);
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): void {
    for (const one of Array.isArray(message) ? message : [message]) this.#dispatch(one);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const controller of this.#open) controller.abort();
    const sessionId = this.#sessionId;
    if (this.#legacy) {
      await this.#legacy.close();
    } else if (sessionId !== undefined) {
      // End the server's session; a server that does not allow it answers 405, which is fine.
      try {
        drain(await this.#options.client.send(this.#options.target.url, {
          method: 'DELETE',
          headers: this.#headers({}),
          signal: AbortSignal.timeout(this.#options.target.closeTimeoutMs),
        }));
      } catch (error) {
        this.#options.log.debug('ending the upstream session failed', { error: networkCause(error) });
      }
    }
    this.onclose?.();
  }

  #dispatch(message: JsonRpcMessage): void {
    if (this.#closed) return;
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

  /** POSTs one message and handles the answer; never rejects. `own`: the transport's own message. */
  async #post(message: JsonRpcMessage, after: Promise<void>, own: boolean, retried = false): Promise<void> {
    await after;
    if (!own) {
      try {
        await this.#ready(message);
      } catch (error) {
        this.#failed(message, error instanceof McpError ? error : transportError(this.#options.target.server, networkCause(error)));
        return;
      }
    }
    if (this.#closed) return;
    if (this.#legacy) {
      this.#legacy.send(message);
      return;
    }
    const id = requestIdOf(message);
    const method = 'method' in message ? message.method : undefined;
    const controller = new AbortController();
    this.#open.add(controller);
    if (id !== undefined && !own) this.#exchanges.set(id, controller);
    if (id !== undefined && method === 'initialize') this.#initializing.add(id);
    const sessionId = method === 'initialize' ? undefined : this.#sessionId;
    try {
      let response: IncomingMessage;
      try {
        response = await this.#options.client.send(this.#options.target.url, {
          method: 'POST',
          headers: this.#headers({ 'content-type': 'application/json', accept: ACCEPT_BOTH }, method === 'initialize'),
          body: serializeMessage(message),
          signal: controller.signal,
        });
      } catch (error) {
        if (!controller.signal.aborted) this.#failed(message, transportError(this.#options.target.server, `is unreachable: ${networkCause(error)}`));
        return;
      }
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        await this.#accepted(message, id, response, controller);
        return;
      }
      if (status === 404 && sessionId !== undefined && !own && !retried) {
        // The server forgot the session: start a new one and send the message again, once.
        drain(response);
        try {
          await this.#recover(sessionId);
        } catch (error) {
          this.#failed(message, error instanceof McpError ? error : transportError(this.#options.target.server, networkCause(error)));
          return;
        }
        this.#untrack(id, controller);
        await this.#post(message, Promise.resolve(), own, true);
        return;
      }
      if ((status === 400 || status === 404 || status === 405) && method === 'initialize' && !own && this.#options.fallback) {
        drain(response);
        await this.#fallBack(message, status);
        return;
      }
      const refusal = await httpRefusal(response, this.#options.target.server);
      this.#failed(message, refusal);
    } finally {
      this.#untrack(id, controller);
    }
  }

  #untrack(id: JsonRpcId | undefined, controller: AbortController): void {
    this.#open.delete(controller);
    if (id === undefined) return;
    if (this.#exchanges.get(id) === controller) this.#exchanges.delete(id);
    this.#initializing.delete(id);
  }

  /** A 2xx answer to a POST. */
  async #accepted(message: JsonRpcMessage, id: JsonRpcId | undefined, response: IncomingMessage, controller: AbortController): Promise<void> {
    const method = 'method' in message ? message.method : undefined;
    if (method === 'initialize') {
      const header = response.headers['mcp-session-id'];
      this.#sessionId = typeof header === 'string' && header !== '' ? header : undefined;
      this.#expired = false;
    }
    if (id === undefined) {
      // A notification or a response: 202 and no body.
      drain(response);
      if (this.#standalone === 'wanted') void this.#listen();
      return;
    }
    const type = mediaType(response);
    const server = this.#options.target.server;
    if (type === 'text/event-stream') {
      await this.#readAnswer(id, response, controller);
    } else if (type === 'application/json') {
      const body = await readBody(response, this.#options.target.maxMessageBytes).catch(() => null);
      if (body === null) {
        if (!controller.signal.aborted) this.#inbox.fail(id, transportError(server, 'broke the connection while answering'));
      } else if (body === undefined) {
        this.#inbox.fail(id, transportError(server, `answered with more than ${this.#options.target.maxMessageBytes} bytes`));
      } else if (!this.#received(this.#inbox.receive(body), id)) {
        this.#inbox.fail(id, transportError(server, 'answered without a response to the request'));
      }
    } else {
      drain(response);
      this.#inbox.fail(id, transportError(server, `answered HTTP ${response.statusCode ?? 0} with ${type === '' ? 'no content type' : type}, not JSON or an SSE stream`));
    }
    if (this.#standalone === 'wanted') void this.#listen();
  }

  /**
   * Reads the SSE stream answering request `id`; if it ends or breaks before the answer, resumes it
   * with GET and `Last-Event-ID` (after the server's retry hint) until the answer comes.
   */
  async #readAnswer(id: JsonRpcId, first: IncomingMessage, controller: AbortController): Promise<void> {
    const { signal } = controller;
    const server = this.#options.target.server;
    const cursor: Cursor = { lastEventId: undefined, retryMs: undefined, seen: new Set() };
    const state = { answered: false, events: 0 };
    let response = first;
    let broke: string | undefined;
    for (;;) {
      try {
        await this.#consume(response, cursor, id, state);
        broke = undefined;
      } catch (error) {
        broke = networkCause(error);
      }
      if (state.answered || signal.aborted || this.#closed) return;
      if (cursor.lastEventId === undefined) {
        this.#inbox.fail(id, transportError(server, broke === undefined
          ? 'ended the stream of the answer without sending it'
          : `broke the stream of the answer before sending it (${broke}), and it cannot be resumed`));
        return;
      }
      const resumed = await this.#resume(cursor, signal, state);
      if (signal.aborted || this.#closed) return;
      if ('error' in resumed) {
        this.#inbox.fail(id, resumed.error);
        return;
      }
      response = resumed.response;
    }
  }

  /** Reopens a stream with GET and `Last-Event-ID`, honouring the retry hint, a few attempts in a row. */
  async #resume(cursor: Cursor, signal: AbortSignal, state: { events: number }): Promise<{ response: IncomingMessage } | { error: McpError | JsonRpcErrorObject }> {
    const server = this.#options.target.server;
    const eventsBefore = state.events;
    for (let attempt = 1; ; attempt++) {
      // First attempt: after the server's retry hint (at once without one); then back off.
      const wait = attempt === 1 ? (cursor.retryMs ?? 0) : (cursor.retryMs ?? 500) * 2 ** (attempt - 1);
      if (!(await delay(wait, signal))) return { error: transportError(server, 'closed') };
      let response: IncomingMessage;
      try {
        response = await this.#get(cursor, signal);
      } catch (error) {
        if (signal.aborted) return { error: transportError(server, 'closed') };
        if (attempt >= RESUME_ATTEMPTS) return { error: transportError(server, `is unreachable: ${networkCause(error)}; the answer was lost`) };
        continue;
      }
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300 && mediaType(response) === 'text/event-stream') {
        this.#options.log.debug('resumed a stream', { after: cursor.lastEventId, eventsBefore });
        return { response };
      }
      const refusal = await httpRefusal(response, server);
      return { error: refusal instanceof McpError ? transportError(server, `could not resume the stream of the answer: ${refusal.message.replace(`Upstream ${server} `, '')}`, refusal.data) : refusal };
    }
  }

  /** Reads SSE events into the inbox; `state.answered` once the response to `id` came. */
  async #consume(response: IncomingMessage, cursor: Cursor, id: JsonRpcId | undefined, state: { answered: boolean; events: number }): Promise<void> {
    await readSse(response, {
      event: (event) => {
        if (event.id !== undefined) {
          if (cursor.seen.has(event.id)) return;
          cursor.seen.add(event.id);
          if (cursor.seen.size > SEEN_EVENTS) cursor.seen.delete(cursor.seen.values().next().value ?? '');
          cursor.lastEventId = event.id;
        }
        if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return;
        state.events++;
        if (this.#received(this.#inbox.receive(event.data, id), id)) state.answered = true;
      },
      retry: (ms) => {
        cursor.retryMs = ms;
      },
    }, this.#options.target.maxMessageBytes);
  }

  /** True if `id` was answered among `messages`. */
  #received(messages: JsonObject[], id: JsonRpcId | undefined): boolean {
    return id !== undefined && messages.some((message) => message.id === id && !('method' in message));
  }

  /**
   * Sees every message before it is delivered. A successful answer to `initialize` carries the
   * negotiated version, and opens the standalone stream at once: the server may send on it as soon
   * as it is told `notifications/initialized`, so that notification (and whatever follows it)
   * waits until the stream is established.
   */
  #inspect(message: JsonObject): void {
    if (this.#legacy) return;
    const answerTo = message.id;
    if ('method' in message || (typeof answerTo !== 'string' && typeof answerTo !== 'number') || !this.#initializing.has(answerTo)) return;
    if (!isJsonObject(message.result)) return;
    const version = message.result.protocolVersion;
    if (typeof version === 'string') this.#protocolVersion = version;
    const opened = this.#listen();
    const before = this.#notified;
    this.#notified = Promise.all([before, opened]).then(() => undefined);
  }

  /**
   * Opens the standalone GET stream (what the server sends on its own) unless it is open or
   * unsupported; resolves once the server answered the GET (or it failed), never rejects.
   */
  #listen(): Promise<void> {
    if (this.#closed || this.#standalone === 'open' || this.#standalone === 'unsupported') return Promise.resolve();
    this.#standalone = 'open';
    const controller = new AbortController();
    this.#standaloneAbort = controller;
    this.#open.add(controller);
    return new Promise<void>((opened) => {
      void this.#listening(controller, opened).finally(() => {
        this.#open.delete(controller);
        opened();
      });
    });
  }

  async #listening(controller: AbortController, opened: () => void): Promise<void> {
    const { signal } = controller;
    const cursor: Cursor = { lastEventId: undefined, retryMs: undefined, seen: new Set() };
    const state = { answered: false, events: 0 };
    const log = this.#options.log;
    while (!signal.aborted && !this.#closed) {
      const sessionId = this.#sessionId;
      let response: IncomingMessage;
      try {
        response = await this.#get(cursor, signal);
      } catch (error) {
        if (signal.aborted) return;
        // The server is unreachable: listen again after the next message gets through.
        log.debug('the server-initiated stream could not be opened', { error: networkCause(error) });
        this.#standalone = 'wanted';
        return;
      }
      opened();
      const status = response.statusCode ?? 0;
      if (status === 405) {
        drain(response);
        this.#standalone = 'unsupported';
        return;
      }
      if (status === 404 && sessionId !== undefined) {
        drain(response);
        this.#standalone = 'off';
        this.#recover(sessionId).catch((error: unknown) => log.warn('initializing the upstream again failed', { error: String(error) }));
        return;
      }
      if (status < 200 || status >= 300 || mediaType(response) !== 'text/event-stream') {
        drain(response);
        log.warn('the server refused the server-initiated stream', { status });
        this.#standalone = 'wanted';
        return;
      }
      try {
        await this.#consume(response, cursor, undefined, state);
      } catch {
        // Broken: reconnect below, from the last event.
      }
      if (!(await delay(cursor.retryMs ?? 1000, signal))) return;
    }
  }

  #get(cursor: Cursor, signal: AbortSignal): Promise<IncomingMessage> {
    const extra: OutgoingHttpHeaders = { accept: 'text/event-stream' };
    if (cursor.lastEventId !== undefined) extra['last-event-id'] = cursor.lastEventId;
    return this.#options.client.send(this.#options.target.url, { method: 'GET', headers: this.#headers(extra), signal });
  }

  #headers(extra: OutgoingHttpHeaders, initialize = false): OutgoingHttpHeaders {
    const headers: OutgoingHttpHeaders = { ...this.#options.target.headers, ...extra };
    if (initialize) return headers;
    if (this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId;
    if (this.#protocolVersion !== undefined) headers['mcp-protocol-version'] = this.#protocolVersion;
    return headers;
  }

  /** Waits for a re-initialization in progress, or starts one if the session is known to be gone. */
  async #ready(message: JsonRpcMessage): Promise<void> {
    if (this.#recovering) await this.#recovering;
    else if (this.#expired && !('method' in message && message.method === 'initialize')) await this.#recover(undefined);
  }

  /**
   * Starts a new server session in place of `expired` (once, however many messages found it gone):
   * initialize with the client's own parameters, `notifications/initialized`, the log level and
   * subscriptions. Messages wait meanwhile.
   */
  #recover(expired: string | undefined): Promise<void> {
    if (this.#recovering) return this.#recovering;
    if (expired !== undefined && this.#sessionId !== expired) return Promise.resolve();
    const { log, replay } = this.#options;
    this.#sessionId = undefined;
    this.#expired = true;
    this.#standaloneAbort?.abort();
    if (this.#standalone === 'open') this.#standalone = 'off';
    this.#recovering = (async () => {
      log.info('the upstream session is gone; initializing a new one');
      await replay.restore({
        request: (message) => this.#inbox.request(message, (request) => void this.#post(request, Promise.resolve(), true), OWN_REQUEST_TIMEOUT_MS),
        notify: (message) => this.#post({ jsonrpc: '2.0', ...message }, this.#notified, true),
      }, log);
      this.#expired = false;
    })().finally(() => {
      this.#recovering = undefined;
    });
    return this.#recovering;
  }

  /** The server refused `initialize` as Streamable HTTP: try the legacy HTTP+SSE transport. */
  async #fallBack(message: JsonRpcMessage, status: number): Promise<void> {
    const legacy = new LegacySseTransport(this.#options, this.#inbox);
    const { server } = this.#options.target;
    try {
      await legacy.connect();
    } catch (error) {
      const cause = error instanceof McpError ? error.message.replace(`Upstream ${server} `, '') : networkCause(error);
      this.#failed(message, transportError(server, `answered HTTP ${status} to initialize, and is no legacy HTTP+SSE server either (${cause})`, { status }));
      return;
    }
    if (this.#closed) {
      await legacy.close();
      return;
    }
    this.#options.log.info('the upstream speaks the legacy HTTP+SSE transport (2024-11-05)');
    this.#legacy = legacy;
    legacy.send(message);
  }

  /** A message could not be delivered: its request is answered with `error`, anything else logged. */
  #failed(message: JsonRpcMessage, error: McpError | JsonRpcErrorObject): void {
    const id = requestIdOf(message);
    if (id !== undefined) {
      this.#inbox.fail(id, error);
      return;
    }
    this.#options.log.warn('a message to the upstream was lost', { method: 'method' in message ? message.method : 'response', error: error.message });
  }
}

function requestIdOf(message: JsonRpcMessage): JsonRpcId | undefined {
  return 'method' in message && 'id' in message ? message.id : undefined;
}

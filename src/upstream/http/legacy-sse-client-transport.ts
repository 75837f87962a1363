import type { IncomingMessage } from 'node:http';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonRpcErrorObject, JsonRpcId, JsonRpcMessage } from '../../message/jsonrpc.js';
import { encodeMessage } from '../../message/raw-json.js';
import type { Transport } from '../../transport/transport.js';
import { httpRefusal, mediaType } from './http-refusal.js';
import type { HttpTransportOptions } from './http-transport-options.js';
import { Inbox } from './inbox.js';
import { drainResponse } from './drain-response.js';
import { readSse } from './read-sse.js';
import { networkCause, transportError } from './transport-error.js';
import { UpstreamAuthFailure } from './upstream-auth-failure.js';

const OWN_REQUEST_TIMEOUT_MS = 30_000;

/**
 * The client side of the legacy HTTP+SSE transport (MCP 2024-11-05): a GET opens an SSE stream
 * whose first event, `endpoint`, names the URL to POST messages to; every answer comes on the
 * stream. The stream *is* the session: when it breaks, the requests waiting on it fail at once
 * and the next message opens a new one and initializes the server again (with the client's own
 * parameters, log level and subscriptions).
 */
export class LegacySseClientTransport implements Transport {
  onmessage?: (value: unknown) => void;
  onmalformed?: (error: McpError, line: string | undefined) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #options: HttpTransportOptions;
  readonly #inbox: Inbox;
  /** Where to POST, once the stream named it. */
  #endpoint: URL | undefined;
  /** The endpoint once the session is usable (after re-initialization on a new stream). */
  #ready: URL | undefined;
  #connecting: Promise<URL> | undefined;
  #stream: AbortController | undefined;
  /** How many streams were opened: from the second on, the server must be initialized again. */
  #streams = 0;
  /** Requests posted and not yet answered on the stream. */
  readonly #awaiting = new Set<JsonRpcId>();
  #notified: Promise<void> = Promise.resolve();
  #closed = false;

  /** `inbox`: deliver through another transport's (the Streamable HTTP one that fell back to this). */
  constructor(options: HttpTransportOptions, inbox?: Inbox) {
    this.#options = options;
    this.#inbox = inbox ?? new Inbox(this);
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /** Opens the SSE stream and resolves once the server named its endpoint. */
  async connect(): Promise<void> {
    await this.#connect(false);
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): void {
    for (const one of Array.isArray(message) ? message : [message]) {
      const posted = this.#post(one, this.#notified, false);
      if ('method' in one && !('id' in one)) this.#notified = posted;
    }
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#stream?.abort();
    this.onclose?.();
    return Promise.resolve();
  }

  async #post(message: JsonRpcMessage, after: Promise<void>, own: boolean): Promise<void> {
    await after;
    const id = 'method' in message && 'id' in message ? message.id : undefined;
    const { server } = this.#options.target;
    let endpoint: URL;
    try {
      endpoint = own ? this.#ownEndpoint() : await this.#connect('method' in message && message.method === 'initialize');
    } catch (error) {
      this.#failed(message, error instanceof McpError ? error : transportError(server, networkCause(error)));
      return;
    }
    if (this.#closed) return;
    if (id !== undefined) this.#awaiting.add(id);
    let response: IncomingMessage;
    const { client, auth } = this.#options;
    const call = {
      method: 'POST',
      headers: { ...this.#options.target.headers, 'content-type': 'application/json' },
      body: encodeMessage(message),
      ...(this.#stream ? { signal: this.#stream.signal } : {}),
    } as const;
    try {
      response = await (auth ? auth.send(client, endpoint, call) : client.send(endpoint, call));
    } catch (error) {
      if (id !== undefined) this.#awaiting.delete(id);
      if (this.#closed) return;
      if (error instanceof UpstreamAuthFailure) {
        this.#failed(message, this.#authError(error));
        return;
      }
      const unreachable = `is unreachable: ${networkCause(error)}`;
      this.#options.status.down(unreachable);
      this.#failed(message, transportError(server, unreachable));
      return;
    }
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) {
      drainResponse(response);
      if (!own) this.#options.status.up(false);
      return;
    }
    if (id !== undefined) this.#awaiting.delete(id);
    this.#failed(message, await httpRefusal(response, server));
  }

  #ownEndpoint(): URL {
    if (this.#endpoint === undefined) throw transportError(this.#options.target.server, 'closed the SSE stream');
    return this.#endpoint;
  }

  /**
   * The endpoint of a usable session: opens the stream if there is none, and (except for the first
   * stream, or when the message is `initialize` itself) initializes the new server session.
   */
  #connect(initializing: boolean): Promise<URL> {
    if (this.#ready) return Promise.resolve(this.#ready);
    this.#connecting ??= (async () => {
      const endpoint = await this.#open();
      const restarted = this.#streams > 1;
      if (restarted && !initializing) {
        this.#options.log.info('the upstream SSE stream was reopened; initializing a new session');
        await this.#options.replay.restore({
          request: (message) => this.#inbox.request(message, (request) => void this.#post(request, Promise.resolve(), true), OWN_REQUEST_TIMEOUT_MS),
          notify: (message) => this.#post({ jsonrpc: '2.0', ...message }, Promise.resolve(), true),
        }, this.#options.log);
      }
      this.#ready = endpoint;
      this.#options.status.up(restarted);
      return endpoint;
    })().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** GETs the SSE stream and reads it in the background; resolves with the endpoint it names. */
  async #open(): Promise<URL> {
    const { target, client, log } = this.#options;
    const controller = new AbortController();
    this.#stream = controller;
    this.#streams++;
    let response: IncomingMessage;
    const { auth } = this.#options;
    const call = { method: 'GET', headers: { ...target.headers, accept: 'text/event-stream' }, signal: controller.signal } as const;
    try {
      response = await (auth ? auth.send(client, target.url, call) : client.send(target.url, call));
    } catch (error) {
      if (error instanceof UpstreamAuthFailure) throw this.#authError(error);
      const unreachable = `is unreachable: ${networkCause(error)}`;
      if (!this.#closed) this.#options.status.down(unreachable);
      throw transportError(target.server, unreachable);
    }
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300 || mediaType(response) !== 'text/event-stream') {
      drainResponse(response);
      throw transportError(target.server, `answered the SSE GET with HTTP ${status} ${mediaType(response) || 'without a body type'}`.trim(), { status });
    }
    return new Promise<URL>((resolve, reject) => {
      let named = false;
      const reading = readSse(response, {
        event: (event) => {
          if (event.event === 'endpoint') {
            let endpoint: URL;
            try {
              endpoint = new URL(event.data.trim(), target.url);
            } catch {
              reject(transportError(target.server, `named an invalid endpoint: ${event.data.slice(0, 100)}`));
              return;
            }
            if (endpoint.origin !== target.url.origin) {
              reject(transportError(target.server, `named an endpoint on another origin (${endpoint.origin})`));
              return;
            }
            named = true;
            this.#endpoint = endpoint;
            resolve(endpoint);
          } else if (event.event === undefined || event.event === 'message') {
            for (const message of this.#inbox.receive(event.data)) {
              const id = message.id;
              if (!('method' in message) && (typeof id === 'string' || typeof id === 'number')) this.#awaiting.delete(id);
            }
          }
        },
      }, target.maxMessageBytes);
      reading
        .catch((error: unknown) => networkCause(error))
        .then((broke) => {
          if (this.#stream === controller) this.#lost(typeof broke === 'string' ? broke : undefined);
          if (!named) reject(transportError(target.server, 'closed the SSE stream before naming its endpoint'));
        })
        .catch((error: unknown) => log.warn('reading the SSE stream failed', { error: String(error) }));
    });
  }

  /** The stream ended: every request waiting on it fails, and the next message opens a new one. */
  #lost(broke: string | undefined): void {
    this.#endpoint = undefined;
    this.#ready = undefined;
    this.#stream = undefined;
    if (this.#closed) return;
    this.#options.log.warn('the upstream SSE stream ended', broke === undefined ? {} : { error: broke });
    this.#options.status.down(broke === undefined ? 'closed the SSE stream' : `broke the SSE stream (${broke})`);
    const error = transportError(this.#options.target.server, broke === undefined ? 'closed the SSE stream before answering' : `broke the SSE stream before answering (${broke})`);
    const waiting = [...this.#awaiting];
    this.#awaiting.clear();
    for (const id of waiting) this.#inbox.fail(id, error);
  }

  /** The error of a request that could not be given an access token (`SessionAuth.error`). */
  #authError(failure: UpstreamAuthFailure): McpError {
    const { auth, target } = this.#options;
    if (!auth) return transportError(target.server, failure.message);
    return auth.error(failure, target.server, (notification) => {
      if (!this.#closed) this.#inbox.deliver(notification);
    });
  }

  #failed(message: JsonRpcMessage, error: McpError | JsonRpcErrorObject): void {
    const id = 'method' in message && 'id' in message ? message.id : undefined;
    if (id !== undefined) {
      this.#inbox.fail(id, error);
      return;
    }
    this.#options.log.warn('a message to the upstream was lost', { method: 'method' in message ? message.method : 'response', error: error.message });
  }
}

import type { Logger } from '../log/logger.js';
import type { JsonObject, McpMessage, Result } from '../message/jsonrpc.js';

/** How a fresh server instance is talked to while it is brought back to the session's state. */
export interface ReplayTarget {
  request(message: McpMessage): Promise<Result>;
  notify(message: McpMessage): void | Promise<void>;
}

/**
 * What a downstream session told its upstream that a *new* server instance must be told again:
 * the client's `initialize` parameters, whether `notifications/initialized` was sent, the log
 * level, and the resource subscriptions still in force. Used when a stdio server is restarted
 * after a crash, and when an HTTP server forgot the session (404) or its legacy SSE stream broke.
 */
export class SessionReplay {
  /** The client's `initialize` params, once it sent them. */
  initialize: JsonObject | undefined;
  /** Whether the client sent `notifications/initialized`. */
  initialized = false;
  #logLevel: JsonObject | undefined;
  readonly #subscriptions = new Set<string>();

  /** Notes a message on its way upstream (before it is answered). */
  sending(message: McpMessage): void {
    if (message.method === 'initialize') this.initialize = message.params ?? {};
    else if (message.method === 'notifications/initialized') this.initialized = true;
  }

  /** Whether `succeeded` needs to hear of this request (most need not: the hot path skips it). */
  static remembers(message: McpMessage): boolean {
    const { method } = message;
    return method === 'logging/setLevel' || method === 'resources/subscribe' || method === 'resources/unsubscribe';
  }

  /** Notes a request the upstream accepted. */
  succeeded(message: McpMessage): void {
    const params = message.params ?? {};
    if (message.method === 'logging/setLevel') this.#logLevel = params;
    else if (message.method === 'resources/subscribe' && typeof params.uri === 'string') this.#subscriptions.add(params.uri);
    else if (message.method === 'resources/unsubscribe' && typeof params.uri === 'string') this.#subscriptions.delete(params.uri);
  }

  /**
   * Initializes a new server instance with the client's own parameters, sends
   * `notifications/initialized` if the client had, then the log level and the subscriptions. A
   * refused `initialize` rejects; a refused log level or subscription is only logged. Does nothing
   * before the client initialized.
   */
  async restore(target: ReplayTarget, log: Logger): Promise<Result | undefined> {
    if (this.initialize === undefined) return undefined;
    const result = await target.request({ method: 'initialize', params: this.initialize });
    if (this.initialized) await target.notify({ method: 'notifications/initialized' });
    const replayed: McpMessage[] = [];
    if (this.#logLevel) replayed.push({ method: 'logging/setLevel', params: this.#logLevel });
    for (const uri of this.#subscriptions) replayed.push({ method: 'resources/subscribe', params: { uri } });
    for (const message of replayed) {
      try {
        await target.request(message);
      } catch (error) {
        log.warn('a restarted upstream refused session state', { method: message.method, error: String(error) });
      }
    }
    return result;
  }
}

import type { JsonObject, JsonRpcId, JsonRpcMessage, Result } from '../../../message/jsonrpc.js';
import { isJsonObject } from '../../../message/parse-message.js';
import { silentLogger } from '../../../log/stderr-logger.js';
import { Peer } from '../../../rpc/peer.js';
import { MemoryTransport } from '../../../transport/memory-transport.js';
import { requestScope } from '../../../core/request-scope.js';
import type { Upstream, UpstreamConnection } from '../../../core/upstream.js';
import { MessageWaiters } from '../../../testing/message-waiters.js';
import { withDeadline, type WaitOptions } from '../../../testing/with-deadline.js';

type Handler = (params: JsonObject, id: JsonRpcId) => Result | Promise<Result>;

/**
 * An in-process upstream seen from the wire, the way a stdio server is: a Peer on our side (ids
 * and progress tokens remapped, server→client requests without a relation), and on the other a
 * scripted server that records every raw message it receives.
 */
export class WireServer implements Upstream {
  connects = 0;
  closes = 0;
  /** Every message the server received, as sent on the wire. */
  readonly received: JsonObject[] = [];
  readonly #handlers = new Map<string, Handler>();
  readonly #waiters = new MessageWaiters();
  readonly #answers = new Map<JsonRpcId, (message: JsonObject) => void>();
  #server: MemoryTransport | undefined;
  #nextId = 1;

  constructor() {
    this.on('initialize', () => ({
      protocolVersion: '2025-11-25',
      capabilities: { resources: { subscribe: true }, logging: {}, tools: { listChanged: true } },
      serverInfo: { name: 'wire', version: '1.0.0' },
    }));
    for (const method of ['resources/subscribe', 'resources/unsubscribe', 'logging/setLevel']) this.on(method, () => ({}));
  }

  on(method: string, handler: Handler): this {
    this.#handlers.set(method, handler);
    return this;
  }

  connect(downstream: Parameters<Upstream['connect']>[0]): UpstreamConnection {
    this.connects += 1;
    const [client, server] = MemoryTransport.pair();
    const peer = new Peer(client, {
      request: (message, scope) => downstream.request(message, requestScope(scope.cancel, undefined)),
      notification: (message) => void downstream.notify(message),
      closed: () => undefined,
    }, { log: silentLogger, answerInvalid: false });
    server.onmessage = (value) => this.#receive(value);
    this.#server = server;
    void peer.start();
    return {
      request: (message, scope) => peer.request(message, scope),
      notify: (message) => {
        peer.notify(message);
        return Promise.resolve();
      },
      close: () => {
        this.closes += 1;
        return peer.close();
      },
    };
  }

  /** Sends a raw message to the client side. */
  send(message: JsonObject): void {
    this.#server?.send({ jsonrpc: '2.0', ...message } as unknown as JsonRpcMessage);
  }

  /**
   * Sends a server→client request (with no relation) and resolves with the whole response; fails
   * naming it if none comes within the wait timeout.
   */
  ask(method: string, params: JsonObject = {}, options: WaitOptions = {}): Promise<JsonObject> {
    const id = `s${this.#nextId++}`;
    const answered = new Promise<JsonObject>((resolve) => this.#answers.set(id, resolve));
    this.send({ id, method, params });
    return withDeadline(answered, { what: `the client's answer to ${method} (id ${id})`, ...options }, { onTimeout: () => this.#answers.delete(id) });
  }

  /** The next message received (after now) for which `predicate` holds (bounded: see MessageWaiters). */
  waitFor(predicate: (message: JsonObject) => boolean, options: WaitOptions = {}): Promise<JsonObject> {
    return this.#waiters.waitFor(predicate, options);
  }

  /** Messages received so far of `method`. */
  of(method: string): JsonObject[] {
    return this.received.filter((message) => message.method === method);
  }

  #receive(value: unknown): void {
    if (!isJsonObject(value)) return;
    this.received.push(value);
    this.#waiters.deliver(value);
    const { id, method } = value;
    if (typeof method !== 'string') {
      if (typeof id === 'string' || typeof id === 'number') {
        this.#answers.get(id)?.(value);
        this.#answers.delete(id);
      }
      return;
    }
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const handler = this.#handlers.get(method);
    if (!handler) {
      this.send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
      return;
    }
    void Promise.resolve()
      .then(() => handler(isJsonObject(value.params) ? value.params : {}, id))
      .then(
        (result) => this.send({ id, result }),
        (error: unknown) => this.send({ id, error: { code: -32603, message: String(error) } }),
      );
  }
}

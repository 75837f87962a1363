import { setMaxListeners } from 'node:events';
import { PassThrough } from 'node:stream';
import { McpError } from '../errors/mcp-error.js';
import type { Logger } from '../log/logger.js';
import type { JsonObject, JsonRpcId, McpMessage } from '../message/jsonrpc.js';
import { LineReader } from '../message/line-reader.js';
import { isJsonObject } from '../message/parse-message.js';
import { LATEST_SESSION_ERA_VERSION } from '../eras/versions.js';
import { Session, type SessionOptions } from '../session/session.js';
import type { ParamsOf, RequestMethod, ResultOf } from '../spec/methods.js';
import { StreamTransport } from '../transport/stream-transport.js';
import type { Upstream } from '../core/upstream.js';
import { MessageWaiters } from './message-waiters.js';
import { withDeadline, type WaitOptions } from './with-deadline.js';

export interface HarnessOptions extends SessionOptions {
  /** Send `initialize` and `notifications/initialized` before returning. Default true. */
  initialize?: boolean;
  protocolVersion?: string;
  capabilities?: JsonObject;
  maxMessageBytes?: number;
  log?: Logger;
  /**
   * How long a wait for a message from the chain (`request`, `call`, `next`, `waitFor`,
   * `notification`, `flowChange`) lasts before it fails naming what it waited for. Default 10 s:
   * a safety net, so a missed event fails the test instead of hanging it.
   */
  waitTimeoutMs?: number;
}

/**
 * The params of a request of `method`: the specification's for a method it defines (required
 * where the spec requires them), any object for others (custom methods, extensions).
 */
export type RequestParamsArgs<M extends string> = M extends RequestMethod
  ? undefined extends ParamsOf<M> ? [params?: ParamsOf<M>] : [params: ParamsOf<M>]
  : [params?: JsonObject];

/**
 * The result of a request of `method`: the specification's for a method it defines (with any
 * further members a server may add, as the spec's `Result` allows), else any object.
 */
export type RequestResult<M extends string> = M extends RequestMethod ? ResultOf<M> & JsonObject : JsonObject;

type ServerRequestHandler = (params: JsonObject) => JsonObject | Promise<JsonObject>;

/**
 * A scripted client in the same process, talking newline-delimited JSON-RPC to a real Session over
 * in-memory streams: for testing middleware and chains without spawning anything (the way Hono's
 * `app.request()` tests routes without a socket).
 *
 * @example
 * const h = await harness(chain().use(filter({ tools: { deny: ['rm'] } })).to(local({ tools })));
 * assert.deepEqual((await h.request('tools/list')).tools.map((t) => t.name), ['ls']);
 */
export class Harness {
  readonly session: Session;
  /** Every message the chain sent to the client, in order. */
  readonly received: unknown[] = [];
  readonly #input = new PassThrough();
  readonly #output = new PassThrough();
  readonly #waiting = new Map<JsonRpcId | null, Array<(message: JsonObject) => void>>();
  /** A real client answers `ping`; tests may replace any handler with `handle()`. */
  readonly #handlers = new Map<string, ServerRequestHandler>([['ping', () => ({})]]);
  readonly #waiters: MessageWaiters;
  readonly #waitTimeoutMs: number | undefined;
  /** Aborted on close: waits still pending then stop keeping the process alive. */
  readonly #closed = new AbortController();
  #nextId = 1;

  constructor(upstream: Upstream, options: HarnessOptions = {}) {
    const transport = new StreamTransport(
      this.#input,
      this.#output,
      options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes },
    );
    this.session = new Session(transport, upstream, options);
    this.#waitTimeoutMs = options.waitTimeoutMs;
    // Every wait listens for the close: many requests in flight are many listeners, not a leak.
    setMaxListeners(0, this.#closed.signal);
    this.#waiters = new MessageWaiters(options.waitTimeoutMs, this.#closed.signal);
    const reader = new LineReader({
      onValue: (value) => this.#onValue(value),
      onMalformed: (error) => {
        throw error;
      },
    }, 1 << 30);
    this.#output.on('data', (chunk: Buffer) => reader.push(chunk));
  }

  /**
   * Sends a request and resolves with its result; an error response rejects with an McpError.
   * For a method of the specification, params and result have its types
   * (`h.request('tools/list')` resolves to a `ListToolsResult`); any other method takes and gives
   * a plain object. To send what the spec does not allow, use `call` or `send`.
   */
  async request<M extends string>(method: M, ...[params]: RequestParamsArgs<M>): Promise<RequestResult<M>> {
    const response = await this.call(method, params as JsonObject | undefined);
    if (isJsonObject(response.error)) {
      const { code, message, data } = response.error;
      throw new McpError(Number(code), String(message), data);
    }
    return (isJsonObject(response.result) ? response.result : {}) as RequestResult<M>;
  }

  /** Sends a request and resolves with the whole response message. */
  call(method: string, params?: JsonObject, id: JsonRpcId = `h${this.#nextId++}`): Promise<JsonObject> {
    const reply = this.next(id, { what: () => `the response to ${method} (id ${JSON.stringify(id)})${this.#lastReceived()}` });
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return reply;
  }

  notify(method: string, params?: JsonObject): void {
    this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Writes one JSON value as a line. */
  send(value: unknown): void {
    this.sendRaw(JSON.stringify(value) + '\n');
  }

  /** Writes raw bytes, exactly as given (for framing and bad-input tests). */
  sendRaw(bytes: string | Buffer): void {
    this.#input.write(bytes);
  }

  /**
   * The next response with this id (`null` for errors about unreadable input); rejects, naming
   * the id, when none comes within the wait timeout.
   */
  next(id: JsonRpcId | null, options: WaitOptions = {}): Promise<JsonObject> {
    let waiter: ((message: JsonObject) => void) | undefined;
    const forget = (): void => {
      const list = this.#waiting.get(id);
      const at = waiter ? (list?.indexOf(waiter) ?? -1) : -1;
      if (at >= 0) list?.splice(at, 1);
      if (list?.length === 0) this.#waiting.delete(id);
    };
    const reply = new Promise<JsonObject>((resolve) => {
      waiter = resolve;
      const list = this.#waiting.get(id) ?? [];
      list.push(resolve);
      this.#waiting.set(id, list);
    });
    return withDeadline(reply, { timeoutMs: this.#waitTimeoutMs, what: () => `a response with id ${JSON.stringify(id)}${this.#lastReceived()}`, ...options }, {
      onTimeout: forget,
      release: this.#closed.signal,
    });
  }

  /**
   * Resolves with the first message (after now) for which `predicate` holds; rejects when none
   * comes within the wait timeout, naming `options.what` (default: the predicate's source).
   */
  waitFor(predicate: (message: JsonObject) => boolean, options: WaitOptions = {}): Promise<JsonObject> {
    return this.#waiters.waitFor(predicate, options);
  }

  /** Resolves with the next notification of `method`. */
  notification(method: string, options: WaitOptions = {}): Promise<JsonObject> {
    return this.waitFor((message) => message.method === method && !('id' in message), { what: `a ${method} notification`, ...options });
  }

  /** Answers server→client requests of `method` (sampling, elicitation, roots). */
  handle(method: string, handler: ServerRequestHandler): void {
    this.#handlers.set(method, handler);
  }

  /** Notifications received so far, optionally of one method. */
  notifications(method?: string): McpMessage[] {
    return this.received.filter(
      (m): m is McpMessage => isJsonObject(m) && typeof m.method === 'string' && !('id' in m) && (method === undefined || m.method === method),
    );
  }

  async initialize(protocolVersion: string = LATEST_SESSION_ERA_VERSION, capabilities: JsonObject = {}): Promise<RequestResult<'initialize'>> {
    const result = await this.request('initialize', {
      protocolVersion,
      capabilities,
      clientInfo: { name: 'mcp-chain-harness', version: '0.0.0' },
    });
    this.notify('notifications/initialized');
    return result;
  }

  /** Whether the chain has stopped reading from this client (flow control: an upstream is full). */
  get heldBack(): boolean {
    return this.#input.isPaused();
  }

  /** Resolves when the chain next stops reading from this client, or resumes. */
  flowChange(options: WaitOptions = {}): Promise<'paused' | 'resumed'> {
    let stop = (): void => undefined;
    const change = new Promise<'paused' | 'resumed'>((resolve) => {
      const paused = (): void => {
        stop();
        resolve('paused');
      };
      const resumed = (): void => {
        stop();
        resolve('resumed');
      };
      stop = () => {
        this.#input.off('pause', paused);
        this.#input.off('resume', resumed);
      };
      this.#input.on('pause', paused);
      this.#input.on('resume', resumed);
    });
    return withDeadline(change, { timeoutMs: this.#waitTimeoutMs, what: 'the chain to stop or resume reading from the client', ...options }, {
      onTimeout: () => stop(),
      release: this.#closed.signal,
    });
  }

  /** Ends the client side: the session sees its downstream go away. */
  async close(): Promise<void> {
    this.#closed.abort();
    this.#input.end();
    await this.session.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** For wait errors: how many messages came, and the last one (shortened). */
  #lastReceived(): string {
    const last = this.received.at(-1);
    if (last === undefined) return '; nothing was received';
    const text = JSON.stringify(last);
    return `; ${this.received.length} message(s) received, the last ${text.length > 300 ? `${text.slice(0, 297)}...` : text}`;
  }

  #onValue(value: unknown): void {
    this.received.push(value);
    const messages = Array.isArray(value) ? value : [value];
    for (const message of messages) {
      if (!isJsonObject(message)) continue;
      this.#waiters.deliver(message);
      if (typeof message.method === 'string' && 'id' in message) {
        void this.#answer(message);
        continue;
      }
      if (!('result' in message || 'error' in message)) continue;
      const id = message.id as JsonRpcId | null;
      const list = this.#waiting.get(id);
      const resolve = list?.shift();
      if (list?.length === 0) this.#waiting.delete(id);
      resolve?.(message);
    }
  }

  async #answer(message: JsonObject): Promise<void> {
    const handler = this.#handlers.get(String(message.method));
    if (!handler) {
      this.send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
      return;
    }
    try {
      const result = await handler(isJsonObject(message.params) ? message.params : {});
      this.send({ jsonrpc: '2.0', id: message.id, result });
    } catch (error) {
      this.send({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: String(error) } });
    }
  }
}

/** Starts a session in front of `upstream` with a scripted client; initializes it unless told not to. */
export async function harness(upstream: Upstream, options: HarnessOptions = {}): Promise<Harness> {
  const h = new Harness(upstream, options);
  await h.session.start();
  if (options.initialize ?? true) {
    try {
      await h.initialize(options.protocolVersion, options.capabilities);
    } catch (error) {
      await h.close();
      throw error;
    }
  }
  return h;
}

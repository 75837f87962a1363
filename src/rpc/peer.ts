import { ErrorCode } from '../errors/error-code.js';
import { CancelledError } from '../errors/cancelled-error.js';
import { McpError } from '../errors/mcp-error.js';
import { toWireError } from '../errors/to-wire-error.js';
import type { Logger } from '../log/logger.js';
import {
  errorResponse,
  resultResponse,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type McpMessage,
  type Result,
} from '../message/jsonrpc.js';
import { classifyMessage, isJsonObject } from '../message/parse-message.js';
import type { Transport } from '../transport/transport.js';
import type { Downstream } from '../core/downstream.js';
import { CancelScope, onAbort, type Abortable } from '../core/cancel-scope.js';
import { progressTokenOf, withProgressToken } from './progress-token.js';

/** What the owner of a Peer does with what the other side sends. */
export interface PeerHandlers {
  /** A request from the other side; resolve with its result or throw an McpError. */
  request(message: McpMessage, scope: IncomingScope): Promise<Result>;
  /**
   * A notification from the other side (cancellation and progress are handled by the Peer);
   * `related`: the channel of our request it belongs to, when the transport knows.
   */
  notification(message: McpMessage, related?: Downstream): void;
  /** The transport closed. The owner decides what error pending requests get (see `close`). */
  closed(): void;
}

export interface IncomingScope {
  /** The request's id as the other side sent it. */
  readonly id: JsonRpcId;
  /**
   * Aborted when the other side cancels the request, the peer closes, or a deadline passes
   * (`cancel.abort(...)`: the request is then still answered, with what the handler throws).
   */
  readonly cancel: CancelScope;
  /** The request's `_meta.progressToken`, if it has one. */
  readonly progressToken: string | number | undefined;
  /**
   * The `related` channel of our own request this one was made for (the server asks the client
   * while handling our call), when the transport knows which; see `Transport.onmessage`.
   */
  readonly related?: Downstream | undefined;
}

export interface PeerOptions {
  log: Logger;
  /** Answer structurally invalid messages with an error response (the downstream side does). */
  answerInvalid: boolean;
  /**
   * Whether a JSON-RPC batch is accepted now; a string is the reason it is not. Without it,
   * batches are refused.
   */
  acceptBatch?: () => true | string;
}

export interface OutgoingOptions {
  /** Aborting it cancels the request (a CancelScope is the cheaper kind). */
  signal?: Abortable | undefined;
  /** Preferred over `signal` when both are given. */
  cancel?: CancelScope | undefined;
  /** Receives notifications related to this request (its progress, with the original token). */
  related?: Downstream | undefined;
  /** The id of the other side's request this one is made for (see `Transport.send`). */
  relatedTo?: JsonRpcId | undefined;
}

interface Pending {
  resolve(result: Result): void;
  reject(error: unknown): void;
  /** The token the caller used, restored on progress notifications. */
  progressToken: string | number | undefined;
  related: Downstream | undefined;
  /** Detaches the abort listener. */
  cleanup(): void;
}

interface Incoming {
  cancel: CancelScope;
  cancelled: boolean;
  /** False for `initialize`, which the spec forbids cancelling: a cancellation of it is ignored. */
  cancellable: boolean;
}

type Reply = (response: JsonRpcResponse | undefined) => void;

/**
 * One end of a JSON-RPC connection: allocates ids for the requests it sends and matches the
 * responses, answers `ping`, turns `notifications/cancelled` into aborted signals (and aborted
 * signals into `notifications/cancelled`), and routes `notifications/progress` to the request whose
 * token it carries. Progress tokens are replaced by the Peer's own on the way out, so tokens never
 * collide however many callers share it. Used on both sides: the Session faces a client with one,
 * a stdio upstream faces a server with another.
 */
export class Peer {
  readonly #transport: Transport;
  readonly #handlers: PeerHandlers;
  readonly #options: PeerOptions;
  readonly #pending = new Map<JsonRpcId, Pending>();
  readonly #incoming = new Map<JsonRpcId, Incoming>();
  #nextId = 1;
  #closedWith: McpError | undefined;

  constructor(transport: Transport, handlers: PeerHandlers, options: PeerOptions) {
    this.#transport = transport;
    this.#handlers = handlers;
    this.#options = options;
    transport.onmessage = (value, relatedTo) => this.#receive(value, relatedTo);
    transport.onmalformed = (error, line) => {
      if (this.#options.answerInvalid) this.#send(errorResponse(null, error.toJSON()));
      else this.#options.log.warn('dropped a line that is not JSON-RPC', { line: line?.slice(0, 200), reason: error.message });
    };
    transport.onclose = () => this.#handlers.closed();
    transport.onerror = (error) => this.#options.log.warn('transport error', { error: error.message });
  }

  start(): Promise<void> {
    return this.#transport.start();
  }

  /** Requests waiting for an answer from the other side. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Sends a request and resolves with its result; an error response rejects with an McpError. */
  request(message: McpMessage, options: OutgoingOptions = {}): Promise<Result> {
    if (this.#closedWith) return Promise.reject(this.#closedWith);
    const { related, relatedTo } = options;
    const abortable = options.cancel ?? options.signal;
    if (abortable?.aborted) return Promise.reject(abortable.reason);
    const id = this.#nextId++;
    const progressToken = progressTokenOf(message.params);
    const params = progressToken === undefined ? message.params : withProgressToken(message.params, id);
    return new Promise<Result>((resolve, reject) => {
      const onAborted = (reason: unknown): void => {
        if (!this.#pending.delete(id)) return;
        // The spec forbids cancelling initialize; its late answer is dropped all the same.
        if (message.method !== 'initialize') {
          this.notify({
            method: 'notifications/cancelled',
            params: { requestId: id, reason: reason instanceof Error ? reason.message : 'Request cancelled' },
          }, relatedTo);
        }
        reject(reason);
      };
      const pending: Pending = { resolve, reject, progressToken, related, cleanup: noop };
      this.#pending.set(id, pending);
      if (abortable) pending.cleanup = onAbort(abortable, onAborted);
      const request: JsonRpcRequest = params === undefined
        ? { jsonrpc: '2.0', id, method: message.method }
        : { jsonrpc: '2.0', id, method: message.method, params };
      try {
        this.#send(request, relatedTo);
      } catch (error) {
        // Could not be written at all (nested too deeply to serialize): nothing is pending.
        this.#pending.delete(id);
        pending.cleanup();
        reject(error);
      }
    });
  }

  /** `relatedTo`: the id of the other side's request this notification belongs to, if any. */
  notify(message: McpMessage, relatedTo?: JsonRpcId): void {
    if (this.#closedWith) return;
    try {
      this.#send(message.params === undefined
        ? { jsonrpc: '2.0', method: message.method }
        : { jsonrpc: '2.0', method: message.method, params: message.params }, relatedTo);
    } catch (error) {
      // A notification has no answer to carry the error: it is dropped, and said so.
      this.#options.log.warn('dropped a notification that could not be sent', { method: message.method, reason: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * Fails every pending request with `error`, aborts every request being handled, and closes the
   * transport. Idempotent.
   */
  async close(error: McpError = new McpError(ErrorCode.ConnectionClosed, 'Connection closed')): Promise<void> {
    if (this.#closedWith) return;
    this.#closedWith = error;
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.cleanup();
      pending.reject(error);
    }
    for (const incoming of this.#incoming.values()) incoming.cancel.abort(error);
    this.#incoming.clear();
    await this.#transport.close();
  }

  #send(message: JsonRpcMessage | JsonRpcMessage[], relatedTo?: JsonRpcId): void {
    this.#transport.send(message, relatedTo);
  }

  #receive(value: unknown, relatedTo?: JsonRpcId): void {
    if (!Array.isArray(value)) {
      this.#dispatch(value, this.#replyAlone, relatedTo === undefined ? undefined : this.#pending.get(relatedTo)?.related);
      return;
    }
    const accepted = this.#options.acceptBatch?.() ?? 'batches are not supported';
    if (accepted !== true || value.length === 0) {
      const reason = value.length === 0 ? 'empty batch' : accepted;
      this.#send(errorResponse(null, { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${String(reason)}` }));
      return;
    }
    this.#batch(value);
  }

  /** How a message that came alone is answered (one function for all, not one per message). */
  readonly #replyAlone: Reply = (response) => {
    if (response) this.#send(response);
  };

  /** Answers of one batch are collected and sent as one array once every request has settled. */
  #batch(values: unknown[]): void {
    const answers: JsonRpcResponse[] = [];
    let open = values.length;
    const settle: Reply = (response) => {
      if (response) answers.push(response);
      open -= 1;
      if (open === 0 && answers.length > 0) this.#send(answers);
    };
    for (const value of values) this.#dispatch(value, settle);
  }

  /**
   * Handles one message; `reply` is called exactly once (with nothing for non-requests). `related`:
   * the channel of our request the message came for, if known.
   */
  #dispatch(value: unknown, reply: Reply, related?: Downstream): void {
    const classified = classifyMessage(value);
    switch (classified.kind) {
      case 'request':
        this.#onRequest(classified.message, reply, related);
        return;
      case 'notification':
        this.#onNotification(classified.message, related);
        reply(undefined);
        return;
      case 'response':
        this.#onResponse(classified.message);
        reply(undefined);
        return;
      case 'invalid':
        if (this.#options.answerInvalid) {
          reply(errorResponse(classified.id, classified.error));
          return;
        }
        this.#options.log.warn('dropped an invalid JSON-RPC message', { reason: classified.error.message });
        if (classified.id !== null) {
          this.#settle(classified.id, undefined, new McpError(ErrorCode.InternalError, 'Invalid response from the other side'));
        }
        reply(undefined);
        return;
    }
  }

  #onRequest(message: JsonRpcRequest, reply: Reply, related?: Downstream): void {
    const { id } = message;
    if (this.#closedWith) {
      reply(errorResponse(id, this.#closedWith.toJSON()));
      return;
    }
    if (this.#incoming.has(id)) {
      reply(errorResponse(id, {
        code: ErrorCode.InvalidRequest,
        message: `Invalid Request: id ${JSON.stringify(id)} is already in use by a request in flight`,
      }));
      return;
    }
    if (message.method === 'ping') {
      reply(resultResponse(id, {}));
      return;
    }
    const incoming: Incoming = { cancel: new CancelScope(), cancelled: false, cancellable: message.method !== 'initialize' };
    this.#incoming.set(id, incoming);
    const scope: IncomingScope = { id, cancel: incoming.cancel, progressToken: progressTokenOf(message.params), related };
    const mcpMessage: McpMessage = message.params === undefined
      ? { method: message.method }
      : { method: message.method, params: message.params };
    let handled: Promise<Result>;
    try {
      handled = this.#handlers.request(mcpMessage, scope);
    } catch (error) {
      handled = Promise.reject(error);
    }
    handled.then(
      (result) => {
        if (this.#finishIncoming(id, incoming)) reply(resultResponse(id, result));
        else reply(undefined);
      },
      (error: unknown) => {
        if (this.#finishIncoming(id, incoming)) {
          reply(errorResponse(id, toWireError(error, (cause) => this.#options.log.error('request failed', {
            method: message.method,
            error: cause instanceof Error ? (cause.stack ?? cause.message) : String(cause),
          }))));
        } else {
          reply(undefined);
        }
      },
    );
  }

  /** True when the request should still be answered (not cancelled, peer not closed). */
  #finishIncoming(id: JsonRpcId, incoming: Incoming): boolean {
    if (this.#incoming.get(id) === incoming) this.#incoming.delete(id);
    return !incoming.cancelled && this.#closedWith === undefined;
  }

  #onNotification(message: { method: string; params?: JsonObject }, related?: Downstream): void {
    if (message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      const incoming = typeof requestId === 'string' || typeof requestId === 'number' ? this.#incoming.get(requestId) : undefined;
      if (incoming?.cancellable) {
        incoming.cancelled = true;
        const reason = typeof message.params?.reason === 'string' ? message.params.reason : 'Cancelled by the other side';
        incoming.cancel.abort(new CancelledError(reason));
      } else {
        // Unknown, already answered, or initialize (which must not be cancelled): nothing to do.
        this.#options.log.debug('ignored a cancellation of no cancellable request in flight', { requestId: String(requestId) });
      }
      return;
    }
    if (message.method === 'notifications/progress') {
      const token = message.params?.progressToken;
      const pending = typeof token === 'string' || typeof token === 'number' ? this.#pending.get(token) : undefined;
      if (pending?.related && pending.progressToken !== undefined && message.params) {
        pending.related
          .notify({ method: message.method, params: { ...message.params, progressToken: pending.progressToken } })
          .catch((error: unknown) => this.#options.log.warn('progress delivery failed', { error: String(error) }));
      } else {
        this.#options.log.debug('dropped progress for no request in flight', { progressToken: String(token) });
      }
      return;
    }
    this.#handlers.notification(
      message.params === undefined ? { method: message.method } : { method: message.method, params: message.params },
      related,
    );
  }

  #onResponse(message: JsonRpcResponse): void {
    if (message.id === null) {
      const error = 'error' in message ? message.error : undefined;
      this.#options.log.warn('the other side reported an error without an id', { error });
      return;
    }
    if ('error' in message) {
      const { code, message: text, data } = message.error;
      this.#settle(message.id, undefined, new McpError(code, text, data));
    } else {
      this.#settle(message.id, message.result, undefined);
    }
  }

  #settle(id: JsonRpcId, result: Result | undefined, error: McpError | undefined): void {
    const pending = this.#pending.get(id);
    if (!pending) {
      this.#options.log.debug('dropped a response to no request in flight (late or cancelled)', { id });
      return;
    }
    this.#pending.delete(id);
    pending.cleanup();
    if (error) pending.reject(error);
    else pending.resolve(isJsonObject(result) ? result : {});
  }
}

function noop(): void {}

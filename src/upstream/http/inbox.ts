import { isUtf8 } from 'node:buffer';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import { errorResponse, type JsonObject, type JsonRpcErrorObject, type JsonRpcId, type JsonRpcRequest, type McpMessage, type Result } from '../../message/jsonrpc.js';
import { lazyMessage } from '../../message/lazy-message.js';
import { isJsonObject } from '../../message/parse-message.js';
import { RAW_THRESHOLD_BYTES, rememberRawMember } from '../../message/raw-json.js';
import type { Transport } from '../../transport/transport.js';

/**
 * Where an HTTP transport puts what the server sent: JSON bodies and SSE `data` are parsed and
 * handed to the transport's `onmessage` (the Peer above it), except answers to the transport's own
 * requests (a re-initialization), which never leave it. A failed HTTP exchange becomes an error
 * response for its request, so the Peer settles it like any other answer.
 */
export class Inbox {
  readonly #transport: Transport;
  /** Sees every message before it is delivered (the transport notes what it needs from answers). */
  inspect?: (message: JsonObject) => void;
  readonly #own = new Map<JsonRpcId, (response: JsonObject) => void>();
  #nextId = 1;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Parses one JSON text (a message or a batch) and delivers it; returns the messages delivered.
   * `relatedTo`: the id of the request on whose stream it came. A large one that is one JSON object
   * (SSE `data`) is read lazily from its UTF-8 bytes, as {@link receiveBytes} does: encoding it and
   * checking it costs less than parsing it, and it then goes out as those bytes, not encoded again.
   */
  receive(text: string, relatedTo?: JsonRpcId): JsonObject[] {
    if (text.length >= RAW_THRESHOLD_BYTES) {
      // A string decoded from bytes has no lone surrogate: its UTF-8 is valid, and decodes back to it.
      const lazy = lazyMessage(Buffer.from(text, 'utf8'));
      if (lazy !== undefined) return this.#deliverOne(lazy, relatedTo);
    }
    return this.#parse(text, relatedTo);
  }

  /**
   * {@link receive} for a JSON body as it came (not decoded). A large one that is one JSON object in
   * valid UTF-8 is read lazily (`lazyMessage`: checked without building anything, its `result` or
   * `params` parsed one member at a time when read, sent on as its own bytes when unchanged);
   * anything else is decoded and parsed as text, so it is taken or refused as it always was.
   */
  receiveBytes(body: Buffer, relatedTo?: JsonRpcId): JsonObject[] {
    if (body.length >= RAW_THRESHOLD_BYTES && isUtf8(body)) {
      const lazy = lazyMessage(body);
      if (lazy !== undefined) return this.#deliverOne(lazy, relatedTo);
    }
    return this.#parse(body.toString('utf8'), relatedTo);
  }

  #deliverOne(message: JsonObject, relatedTo: JsonRpcId | undefined): JsonObject[] {
    this.deliver(message, relatedTo);
    return [message];
  }

  #parse(text: string, relatedTo: JsonRpcId | undefined): JsonObject[] {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.#transport.onmalformed?.(new McpError(ErrorCode.ParseError, `Parse error: ${reason}`), text.slice(0, 200));
      return [];
    }
    const messages = (Array.isArray(value) ? value : [value]).filter(isJsonObject);
    if (text.length > RAW_THRESHOLD_BYTES && !Array.isArray(value) && isJsonObject(value)) rememberRawMember(value, text);
    for (const message of messages) this.deliver(message, relatedTo);
    return messages;
  }

  deliver(message: JsonObject, relatedTo?: JsonRpcId): void {
    this.inspect?.(message);
    const id = message.id;
    const own = (typeof id === 'string' || typeof id === 'number') && !('method' in message) ? this.#own.get(id) : undefined;
    if (own) own(message);
    else this.#transport.onmessage?.(message, relatedTo);
  }

  /** Answers request `id` with an error, as if the server had. */
  fail(id: JsonRpcId, error: McpError | JsonRpcErrorObject): void {
    this.deliver({ ...errorResponse(id, error instanceof McpError ? error.toJSON() : error) });
  }

  /**
   * Sends a request of the transport's own (not the Peer's: its id is a string the Peer never
   * uses) and resolves with its result; an error answer or `timeoutMs` rejects.
   */
  request(message: McpMessage, send: (request: JsonRpcRequest) => void, timeoutMs: number): Promise<Result> {
    const id = `mcp-chain-${this.#nextId++}`;
    return new Promise<Result>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#own.delete(id);
        reject(new McpError(ErrorCode.RequestTimeout, `${message.method} was not answered within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#own.set(id, (response) => {
        clearTimeout(timer);
        this.#own.delete(id);
        if (isJsonObject(response.error)) {
          const { code, message: text, data } = response.error;
          reject(new McpError(typeof code === 'number' ? code : ErrorCode.InternalError, String(text), data));
        } else {
          resolve(isJsonObject(response.result) ? response.result : {});
        }
      });
      send(message.params === undefined
        ? { jsonrpc: '2.0', id, method: message.method }
        : { jsonrpc: '2.0', id, method: message.method, params: message.params });
    });
  }
}

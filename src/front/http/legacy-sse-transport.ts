import type { ServerResponse } from 'node:http';
import type { McpError } from '../../errors/mcp-error.js';
import type { JsonRpcMessage } from '../../message/jsonrpc.js';
import { serializeMessage } from '../../message/raw-json.js';
import type { Transport } from '../../transport/transport.js';
import { SSE_HEADERS } from './sse-stream.js';

/**
 * The transport of one legacy HTTP+SSE session (protocol 2024-11-05): everything we send goes on
 * the one SSE stream the client opened with GET, as `message` events, after an `endpoint` event
 * that tells it where to POST. The session ends when that stream closes.
 */
export class LegacySseTransport implements Transport {
  onmessage?: (value: unknown) => void;
  onmalformed?: (error: McpError, line: string | undefined) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #res: ServerResponse;
  readonly #endpoint: string;
  #closed = false;

  constructor(res: ServerResponse, endpoint: string) {
    this.#res = res;
    this.#endpoint = endpoint;
  }

  start(): Promise<void> {
    this.#res.writeHead(200, SSE_HEADERS);
    this.#res.write(`event: endpoint\ndata: ${this.#endpoint}\n\n`);
    this.#res.on('close', () => void this.close());
    return Promise.resolve();
  }

  /** A message POSTed to the session's endpoint. */
  receive(value: unknown): void {
    if (!this.#closed) this.onmessage?.(value);
  }

  /** An SSE comment, so that idle proxies keep the stream open. */
  keepAlive(): void {
    if (!this.#closed) this.#res.write(': keep-alive\n\n');
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): void {
    if (this.#closed) return;
    this.#res.write(`event: message\ndata: ${serializeMessage(message)}\n\n`);
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#res.end();
    this.onclose?.();
    return Promise.resolve();
  }
}

import type { ServerResponse } from 'node:http';
import type { McpError } from '../../errors/mcp-error.js';
import type { JsonRpcMessage } from '../../message/jsonrpc.js';
import { serializeMessage } from '../../message/raw-json.js';
import type { Transport } from '../../transport/transport.js';
import { Congestion } from './congestion.js';
import { encodeEvent, KEEP_ALIVE, SSE_HEADERS } from './sse-stream.js';

/**
 * The server end of one legacy HTTP+SSE session (protocol 2024-11-05): everything we send goes
 * on the one SSE stream the client opened with GET, as `message` events, after an `endpoint`
 * event that tells it where to POST. The session ends when that stream closes. Events are encoded
 * by the same encoder as the Streamable HTTP front's, and a client that stops reading its stream
 * holds the session's upstream back (`oncongestion`) until it reads again, as there.
 */
export class LegacySseSessionTransport implements Transport {
  onmessage?: (value: unknown) => void;
  onmalformed?: (error: McpError, line: string | undefined) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  oncongestion?: (congested: boolean) => void;

  readonly #res: ServerResponse;
  readonly #endpoint: string;
  readonly #congestion = new Congestion((congested) => this.oncongestion?.(congested));
  #closed = false;

  constructor(res: ServerResponse, endpoint: string) {
    this.#res = res;
    this.#endpoint = endpoint;
  }

  start(): Promise<void> {
    this.#res.writeHead(200, SSE_HEADERS);
    this.#write(encodeEvent('endpoint', this.#endpoint));
    this.#res.on('close', () => void this.close());
    return Promise.resolve();
  }

  /** A message POSTed to the session's endpoint. */
  receive(value: unknown): void {
    if (!this.#closed) this.onmessage?.(value);
  }

  /** An SSE comment, so that idle proxies keep the stream open. */
  keepAlive(): void {
    if (!this.#closed) this.#write(KEEP_ALIVE);
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): void {
    if (this.#closed) return;
    this.#write(encodeEvent('message', serializeMessage(message)));
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#res.end();
    this.onclose?.();
    return Promise.resolve();
  }

  #write(text: string): void {
    this.#congestion.write(this.#res, text);
  }
}

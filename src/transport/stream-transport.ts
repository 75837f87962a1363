import type { Readable, Writable } from 'node:stream';
import type { McpError } from '../errors/mcp-error.js';
import type { JsonRpcMessage } from '../message/jsonrpc.js';
import { LineReader } from '../message/line-reader.js';
import { isJsonObject } from '../message/parse-message.js';
import { encodeMessage, RAW_THRESHOLD_BYTES, rememberRawMember } from '../message/raw-json.js';
import type { Transport } from './transport.js';

export interface StreamTransportOptions {
  maxMessageBytes?: number;
}

/**
 * Newline-delimited JSON over a pair of byte streams: the stdio front (our stdin/stdout) and a
 * stdio upstream (a child's stdout/stdin) both use it. When a write finds the output's buffer full
 * (the other side is not reading), `oncongestion(true)` is called, and `oncongestion(false)` once
 * it drains; `pause()`/`resume()` stop and restart reading, which holds the other side back.
 */
export class StreamTransport implements Transport {
  onmessage?: (value: unknown) => void;
  onmalformed?: (error: McpError, line: string | undefined) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  oncongestion?: (congested: boolean) => void;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #reader: LineReader;
  #closed = false;
  /** Lines waiting for the flush, each ending in a newline; a spliced message is three pieces. */
  #queued: (string | Buffer)[] = [];
  #queuedBytes = false;
  #congested = false;

  constructor(input: Readable, output: Writable, options: StreamTransportOptions = {}) {
    this.#input = input;
    this.#output = output;
    this.#reader = new LineReader(
      {
        onValue: (value, text, bytes) => {
          // A large object is read lazily and remembers its bytes itself; a large batch does here.
          if (text !== undefined && text.length >= RAW_THRESHOLD_BYTES && isJsonObject(value)) rememberRawMember(value, text, bytes);
          this.onmessage?.(value);
        },
        onMalformed: (error, line) => this.onmalformed?.(error, line),
      },
      options.maxMessageBytes,
      RAW_THRESHOLD_BYTES,
    );
  }

  start(): Promise<void> {
    this.#input.on('data', this.#onData);
    this.#input.on('end', this.#onEnd);
    this.#input.on('error', this.#onError);
    this.#output.on('error', this.#onError);
    return Promise.resolve();
  }

  /**
   * Queues the message; everything queued in one turn of the event loop goes out in a single
   * write, flushed right after the loop has handled all the input that was ready (one system call
   * for many messages under load, e.g. the requests of many HTTP connections, and no added latency
   * for one). A large result forwarded unchanged goes out at once, as the bytes it came in as.
   */
  send(message: JsonRpcMessage | JsonRpcMessage[]): void {
    if (this.#closed || this.#output.destroyed || this.#output.writableEnded) return;
    if (this.#queued.length === 0) setImmediate(this.#flush);
    const encoded = encodeMessage(message);
    if (typeof encoded === 'string') {
      this.#queued.push(encoded + '\n');
    } else {
      this.#queued.push(encoded.head, encoded.bytes, encoded.tail + '\n');
      this.#queuedBytes = true;
      // A large message is worth a system call of its own: it goes out now (after what was queued
      // before it), not after the rest of the loop's input (its latency, not the loop's throughput).
      this.#flush();
    }
  }

  readonly #flush = (): void => {
    const pieces = this.#queued;
    const bytes = this.#queuedBytes;
    this.#queued = [];
    this.#queuedBytes = false;
    const output = this.#output;
    if (pieces.length === 0 || output.destroyed || output.writableEnded) return;
    let room: boolean;
    if (!bytes) {
      room = output.write(pieces.length === 1 ? (pieces[0] as string) : pieces.join(''));
    } else {
      // One writev: the strings are encoded, the buffers are passed as they are.
      output.cork();
      room = true;
      for (const piece of pieces) room = output.write(piece);
      output.uncork();
    }
    if (!room && !this.#congested) {
      this.#congested = true;
      this.#output.once('drain', this.#onDrain);
      this.oncongestion?.(true);
    }
  };

  readonly #onDrain = (): void => {
    this.#congested = false;
    this.oncongestion?.(false);
  };

  pause(): void {
    this.#input.pause();
  }

  resume(): void {
    if (!this.#closed) this.#input.resume();
  }

  /** Stops reading; what was queued before is still written. */
  close(): Promise<void> {
    this.#flush();
    this.#finish();
    return Promise.resolve();
  }

  readonly #onData = (chunk: Buffer | string): void => {
    this.#reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  readonly #onEnd = (): void => this.#finish();

  readonly #onError = (error: Error): void => {
    // EPIPE on a vanished peer is a close, not an application error.
    if ((error as NodeJS.ErrnoException).code !== 'EPIPE') this.onerror?.(error);
    this.#finish();
  };

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onEnd);
    this.#output.off('drain', this.#onDrain);
    this.onclose?.();
  }
}

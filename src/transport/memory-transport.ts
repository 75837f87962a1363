import type { McpError } from '../errors/mcp-error.js';
import type { JsonRpcMessage } from '../message/jsonrpc.js';
import type { Transport } from './transport.js';

/**
 * One end of an in-memory pair: what one end sends, the other receives (as a structured clone, as
 * if it had crossed a wire), on a later microtask and in order. For tests and for wiring a chain
 * to an in-process peer without streams.
 */
export class MemoryTransport implements Transport {
  onmessage?: (value: unknown) => void;
  onmalformed?: (error: McpError, line: string | undefined) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #other: MemoryTransport | undefined;
  #closed = false;

  /** Two connected ends. */
  static pair(): [MemoryTransport, MemoryTransport] {
    const a = new MemoryTransport();
    const b = new MemoryTransport();
    a.#other = b;
    b.#other = a;
    return [a, b];
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): void {
    const other = this.#other;
    if (this.#closed || !other) return;
    const copy = structuredClone(message);
    queueMicrotask(() => {
      if (!other.#closed) other.onmessage?.(copy);
    });
  }

  /** Closes both ends. */
  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.onclose?.();
      void this.#other?.close();
    }
    return Promise.resolve();
  }
}

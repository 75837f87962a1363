import type { McpError } from '../errors/mcp-error.js';
import type { JsonRpcId, JsonRpcMessage } from '../message/jsonrpc.js';

/**
 * Framing only: moves JSON values in and out, knows nothing of MCP. A Session or an upstream
 * connection sits on top. `send` takes one message or a batch (an array of messages).
 */
export interface Transport {
  start(): Promise<void>;
  /**
   * `relatedTo` is the id of the other side's request that a notification or request belongs to
   * (progress of that request, a sampling request made while handling it). Transports with one
   * channel ignore it; Streamable HTTP sends the message on that request's stream.
   */
  send(message: JsonRpcMessage | JsonRpcMessage[], relatedTo?: JsonRpcId): void;
  close(): Promise<void>;
  /**
   * A JSON value arrived (not yet checked to be JSON-RPC). `relatedTo`: the id of our request it
   * came in answer to (Streamable HTTP: it arrived on that request's stream), when known.
   */
  onmessage?: (value: unknown, relatedTo?: JsonRpcId) => void;
  /** Bytes arrived that are not a JSON value: invalid JSON or UTF-8, or over the size limit. */
  onmalformed?: (error: McpError, line: string | undefined) => void;
  /** The other side went away, or `close()` was called. Called once. */
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /**
   * Flow control, where the transport has it. `oncongestion(true)`: what we send is piling up
   * because the other side is not reading; `oncongestion(false)`: it drained.
   */
  oncongestion?: (congested: boolean) => void;
  /** Stop delivering incoming messages until `resume()` (the other side is then held back). */
  pause?(): void;
  resume?(): void;
}

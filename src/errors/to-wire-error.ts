import { ErrorCode } from './error-code.js';
import { McpError } from './mcp-error.js';

/**
 * The one place where a thrown value becomes a JSON-RPC error object. An {@link McpError} keeps its
 * code, message and data; anything else becomes -32603 "Internal error" and its cause is handed to
 * `logCause` (never to the client).
 */
export function toWireError(error: unknown, logCause: (error: unknown) => void): WireError {
  if (error instanceof McpError) return error.toJSON();
  logCause(error);
  return { code: ErrorCode.InternalError, message: 'Internal error' };
}

/** A JSON-RPC error object, as it goes on the wire. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

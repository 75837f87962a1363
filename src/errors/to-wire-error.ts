import { ErrorCode } from './error-code.js';
import { McpError } from './mcp-error.js';
import type { JsonRpcErrorObject } from '../message/jsonrpc.js';

/**
 * The one place where a thrown value becomes a JSON-RPC error object. An {@link McpError} keeps its
 * code, message and data; anything else becomes -32603 "Internal error" and its cause is handed to
 * `logCause` (never to the client).
 */
export function toWireError(error: unknown, logCause: (error: unknown) => void): JsonRpcErrorObject {
  if (error instanceof McpError) return error.toJSON();
  logCause(error);
  return { code: ErrorCode.InternalError, message: 'Internal error' };
}

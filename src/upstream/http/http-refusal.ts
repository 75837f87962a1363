import type { IncomingMessage } from 'node:http';
import type { McpError } from '../../errors/mcp-error.js';
import type { JsonRpcErrorObject } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { readResponseText } from './read-response-text.js';
import { transportError } from './transport-error.js';

const ERROR_BODY_LIMIT = 64 * 1024;

/**
 * The error a request gets for a non-2xx answer. A body that is a JSON-RPC error passes through
 * unchanged (code, message, data); anything else is -32000 naming the server and the HTTP status.
 */
export async function httpRefusal(response: IncomingMessage, server: string): Promise<JsonRpcErrorObject | McpError> {
  const status = response.statusCode ?? 0;
  const body = await readResponseText(response, ERROR_BODY_LIMIT).catch(() => undefined);
  const error = body === undefined ? undefined : jsonRpcError(body);
  if (error) return error;
  const reason = response.statusMessage ? ` ${response.statusMessage}` : '';
  return transportError(server, `answered HTTP ${status}${reason}`, { status });
}

function jsonRpcError(body: string): JsonRpcErrorObject | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const error = isJsonObject(value) ? value.error : undefined;
  if (!isJsonObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') return undefined;
  return error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data };
}

/** The media type of a response, lower-cased, without parameters. */
export function mediaType(response: IncomingMessage): string {
  return (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

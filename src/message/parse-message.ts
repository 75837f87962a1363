import { ErrorCode } from '../errors/error-code.js';
import type {
  JsonObject,
  JsonRpcErrorObject,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from './jsonrpc.js';

/** What one JSON value turned out to be. Structural checks only: no schema validation. */
export type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: JsonRpcId | null; error: JsonRpcErrorObject };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function invalid(id: JsonRpcId | null, message: string): Classified {
  return { kind: 'invalid', id, error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${message}` } };
}

/**
 * Classifies a single (non-batch) JSON value as a JSON-RPC 2.0 message, or says exactly why it is
 * not one: -32600 with the id echoed when it is readable, null otherwise.
 */
export function classifyMessage(value: unknown): Classified {
  if (!isJsonObject(value)) return invalid(null, 'expected a JSON object');
  const id = isId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') return invalid(id, 'jsonrpc must be "2.0"');
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method === '') return invalid(id, 'method must be a non-empty string');
    if ('params' in value && !isJsonObject(value.params)) return invalid(id, 'params must be an object');
    if (!('id' in value)) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    if (!isId(value.id)) return invalid(null, 'id must be a string or a number');
    return { kind: 'request', message: value as unknown as JsonRpcRequest };
  }
  if ('result' in value || 'error' in value) {
    if ('result' in value && 'error' in value) return invalid(id, 'a response has either result or error');
    if ('result' in value) {
      if (!isId(value.id)) return invalid(null, 'response id must be a string or a number');
      if (!isJsonObject(value.result)) return invalid(id, 'result must be an object');
    } else {
      const error = value.error;
      if (!isJsonObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') {
        return invalid(id, 'error must have an integer code and a string message');
      }
      if (!isId(value.id) && value.id !== null) return invalid(null, 'response id must be a string, a number or null');
    }
    return { kind: 'response', message: value as unknown as JsonRpcResponse };
  }
  return invalid(id, 'neither a request, a notification nor a response');
}

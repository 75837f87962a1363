import type { JsonRpcId, JsonRpcMessage } from '../../message/jsonrpc.js';

/** The id of a request; undefined for a notification or a response (nothing will answer them). */
export function requestIdOf(message: JsonRpcMessage): JsonRpcId | undefined {
  return 'method' in message && 'id' in message ? message.id : undefined;
}

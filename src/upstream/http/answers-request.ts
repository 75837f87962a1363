import type { JsonObject, JsonRpcId } from '../../message/jsonrpc.js';

/** True if request `id` was answered (a result or an error) among `messages`. */
export function answersRequest(messages: JsonObject[], id: JsonRpcId | undefined): boolean {
  return id !== undefined && messages.some((message) => message.id === id && !('method' in message));
}

/**
 * JSON-RPC 2.0 message shapes as MCP uses them (plain JSON; nothing here is validated — see
 * `parse-message.ts` for the edge where bytes become these).
 */
export type JsonRpcId = string | number;

/** Params and results are JSON objects in MCP. */
export type JsonObject = { [key: string]: unknown };

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: JsonObject;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: JsonObject;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/**
 * A request or notification as middleware see it: a method and params, never a raw id
 * (correlation belongs to the Session).
 */
export interface McpMessage {
  method: string;
  params?: JsonObject;
}

/** The result of a request; a notification's "reply" is `undefined`. */
export type Result = JsonObject;
export type Reply = Result | undefined;

export function errorResponse(id: JsonRpcId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id, error };
}

export function resultResponse(id: JsonRpcId, result: JsonObject): JsonRpcResultResponse {
  return { jsonrpc: '2.0', id, result };
}

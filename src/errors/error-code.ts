/**
 * JSON-RPC and MCP error codes that mcp-chain puts on the wire.
 * The standard JSON-RPC 2.0 codes, plus the implementation-defined codes the official SDK uses.
 */
export const ErrorCode = {
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON sent is not a valid request object. */
  InvalidRequest: -32600,
  /** The method does not exist or is not available. */
  MethodNotFound: -32601,
  /** Invalid method parameters, including an unknown tool, prompt or resource. */
  InvalidParams: -32602,
  /** Internal error. */
  InternalError: -32603,
  /** The connection to the upstream closed, or the upstream crashed, before it answered. */
  ConnectionClosed: -32000,
  /** The request was not answered before its deadline. */
  RequestTimeout: -32001,
  /** MCP: the resource a request names does not exist (or is hidden): `resources/read`, `resources/subscribe`. */
  ResourceNotFound: -32002,
  /** MCP 2026-07-28: an HTTP header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) is missing or does not match the body (HTTP 400). */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request needs a client capability it did not declare; `data.requiredCapabilities` (HTTP 400). */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the request's protocol version is not served; `data: { supported, requested }` (HTTP 400). */
  UnsupportedProtocolVersion: -32022,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

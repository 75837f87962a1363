import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';

/**
 * The error a request gets when the HTTP exchange behind it failed (the server is unreachable,
 * answered with an HTTP error, or its stream broke): -32000, naming the server and the cause.
 */
export function transportError(server: string, cause: string, data?: unknown): McpError {
  return new McpError(ErrorCode.ConnectionClosed, `Upstream ${server} ${cause}`, data);
}

/** What went wrong with a socket, in a few words: `connect ECONNREFUSED 127.0.0.1:1234`. */
export function networkCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  if (error.message !== '' && code !== undefined && error.message.includes(code)) return error.message;
  return code === undefined ? error.message : `${error.message} (${code})`;
}

import { McpError } from '../../errors/mcp-error.js';

/**
 * The JSON-RPC error code of a call refused by `rateLimit`: in the implementation-defined range
 * (-32000 to -32099), chosen to read as HTTP's 429 and to stay clear of the codes the SDKs use
 * (-32000 connection closed, -32001 timeout, -32002 resource not found).
 */
export const RATE_LIMITED = -32029;

/** What a refusal's `data` carries: when to retry, and which limit refused. */
export interface RateLimitedData {
  /** Milliseconds after which the same call can succeed (for a rate limit: will, if nothing else takes the token). */
  readonly retryAfterMs: number;
  readonly limit: 'rate' | 'concurrency';
  readonly tool: string;
}

/** The error of a refused call: its message ends with when to retry, its data carries `retryAfterMs`. */
export function rateLimited(reason: string, data: RateLimitedData & Record<string, unknown>): McpError {
  return new McpError(RATE_LIMITED, `${reason}; retry in ${formatDelay(data.retryAfterMs)}`, data);
}

/** `250 ms`, `2 s`, `1.5 s`, `3 min`: rounded up, so a client that waits that long is not early. */
export function formatDelay(ms: number): string {
  if (ms < 1000) return `${Math.max(1, Math.ceil(ms))} ms`;
  if (ms < 60_000) return `${Math.ceil(ms / 100) / 10} s`;
  return `${Math.ceil(ms / 60_000)} min`;
}

import type { Context } from '../../chain/context.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { McpMessage, Result } from '../../message/jsonrpc.js';

/**
 * How asking ended: the client's `answer`, no answer in time (`timeout`), or an `error` answer
 * (the client does not implement the method, or refused the request).
 */
export type Asked = { kind: 'answer'; result: Result } | { kind: 'timeout' } | { kind: 'error'; error: unknown };

/**
 * Sends `question` to the client on behalf of the request of `ctx` (over Streamable HTTP, on that
 * request's own stream) and waits at most `timeoutMs` for the answer. The question is cancelled
 * (`notifications/cancelled` to the client) when the time is up or when the request itself is
 * cancelled; in the latter case this rejects with the request's abort reason.
 */
export async function askUser(ctx: Context, question: McpMessage, timeoutMs: number): Promise<Asked> {
  // A plain AbortSignal, not a CancelScope: it holds across copies of mcp-chain's modules (a
  // config file that imports this middleware from sources, served by the bundled CLI).
  const cancel = new AbortController();
  let timedOut = false;
  let aborted: { reason: unknown } | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    cancel.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out'));
  }, timeoutMs);
  const unlink = ctx.onAbort((reason) => {
    aborted = { reason };
    cancel.abort(reason);
  });
  try {
    const result = await (ctx.related ?? ctx.downstream).request(question, { signal: cancel.signal });
    if (aborted) throw aborted.reason;
    return { kind: 'answer', result };
  } catch (error) {
    if (aborted) throw aborted.reason;
    // Ours, or the session's own deadline for requests to the client, whichever came first.
    if (timedOut || (error instanceof McpError && error.code === ErrorCode.RequestTimeout)) return { kind: 'timeout' };
    return { kind: 'error', error };
  } finally {
    clearTimeout(timer);
    unlink();
  }
}

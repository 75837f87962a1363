import { CancelledError } from '../errors/cancelled-error.js';
import type { Reply } from '../message/jsonrpc.js';
import type { Context } from './context.js';
import type { Next } from './middleware.js';

/** How a request ended: answered (`isError`: a tool that ran and failed), failed, or cancelled by the client. */
export type Outcome = 'ok' | 'isError' | 'error' | 'cancelled';

/**
 * Runs the rest of the chain and calls `report` exactly once with how the request ended: its reply
 * (`ok`, or `isError` for a `tools/call` result that says so), its error, or an abort that came
 * first (`cancelled` when the client cancelled; `error` with the reason for a deadline or a session
 * that ended), which is reported at once, without waiting for an upstream that may never answer.
 * Resolves or rejects as `next()` does. For middleware that record calls (`log`, `audit`).
 */
export async function watchOutcome(ctx: Context, next: Next, report: (outcome: Outcome, error?: unknown) => void): Promise<Reply> {
  let done = false;
  const finish = (outcome: Outcome, error?: unknown): void => {
    if (done) return;
    done = true;
    report(outcome, error);
  };
  const unsubscribe = ctx.onAbort((reason) => {
    if (reason instanceof CancelledError) finish('cancelled');
    else finish('error', reason);
  });
  try {
    const reply = await next();
    finish(ctx.method === 'tools/call' && reply?.isError === true ? 'isError' : 'ok');
    return reply;
  } catch (error) {
    finish('error', error);
    throw error;
  } finally {
    unsubscribe();
  }
}

/**
 * @module
 * `retry`: calls to tools that are safe to repeat are tried again when they fail in a way a second
 * try can fix (the server's connection closed, a deadline passed), with exponential backoff and
 * full jitter. Nothing is retried unless configured.
 */
import { matchAny } from '../../chain/glob.js';
import type { Context } from '../../chain/context.js';
import type { Middleware } from '../../chain/middleware.js';
import type { SessionInfo } from '../../core/session-info.js';
import { ChainError } from '../../errors/chain-error.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { backoffDelay, sleep } from './backoff.js';
import type { RetryCodeOptions, RetryOn, RetryOptions } from './options.js';

export type { RetryCodeOptions, RetryOn, RetryOptions } from './options.js';

/** The tools each session's lists marked idempotent (released with the session). */
type HintTable = WeakMap<SessionInfo, Set<string>>;

/**
 * Retries `tools/call` requests to tools configured as safe to repeat, on the failures chosen in
 * `on`. Each retry waits a random time between 0 and a ceiling that starts at `initialDelayMs` and
 * grows by `multiplier` up to `maxDelayMs` (full jitter), then runs the rest of the chain again,
 * under the caller's signal: a call the client cancelled, or whose session deadline passed, is
 * never retried, and a wait in progress ends at once. The last failure is what the client gets.
 * Each retry is logged (info) with the tool, the attempt and the reason.
 *
 * Put `retry` before (outside) `timeout` so each attempt gets its own deadline. The session's own
 * deadline (`timeouts` in the config) still bounds the whole call, retries included.
 *
 * Throws a `ChainError` ('CONFIG') when `maxAttempts` is not a whole number of at least 1, or a
 * delay is negative.
 *
 * @example
 * chain()
 *   .use(retry({ tools: ['search_*', 'get_issue'], idempotentHint: true, maxAttempts: 4 }))
 *   .to(stdio({ command: 'jira-mcp' }));
 */
export function retry(options: RetryOptions & RetryCodeOptions = {}): Middleware {
  const named = matchAny(options.tools ?? []);
  const useHints = options.idempotentHint ?? false;
  const on = new Set<RetryOn>(options.on ?? ['connectionClosed', 'timeout']);
  const maxAttempts = options.maxAttempts ?? 3;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new ChainError('CONFIG', `retry.maxAttempts: expected a whole number of at least 1, found ${maxAttempts}`);
  const backoff = {
    initialDelayMs: nonNegative(options.initialDelayMs ?? 200, 'initialDelayMs'),
    maxDelayMs: nonNegative(options.maxDelayMs ?? 5000, 'maxDelayMs'),
    multiplier: nonNegative(options.multiplier ?? 2, 'multiplier'),
    random: options.random ?? Math.random,
  };
  const wait = options.sleep ?? sleep;
  const hints: HintTable = new WeakMap();
  const safe = (name: unknown, session: SessionInfo): name is string =>
    typeof name === 'string' && (named(name) || (useHints && (hints.get(session)?.has(name) ?? false)));

  /** The reason to retry this outcome, or undefined to give it to the client. */
  const reasonOf = (outcome: Outcome): RetryOn | undefined => {
    if (outcome.ok) return isJsonObject(outcome.reply) && outcome.reply.isError === true && on.has('isError') ? 'isError' : undefined;
    const { error } = outcome;
    if (!(error instanceof McpError)) return undefined;
    if (error.code === ErrorCode.ConnectionClosed && on.has('connectionClosed')) return 'connectionClosed';
    if (error.code === ErrorCode.RequestTimeout && on.has('timeout')) return 'timeout';
    return undefined;
  };

  return async function retry(ctx, next) {
    if (ctx.direction === 'toDownstream') {
      if (useHints && ctx.method === 'notifications/tools/list_changed') hints.delete(ctx.session);
      return next();
    }
    if (ctx.method === 'tools/list' && useHints) return learn(ctx, await next(), hints);
    if (ctx.method !== 'tools/call') return next();
    const name = ctx.message.params?.name;
    if (!safe(name, ctx.session) || maxAttempts === 1) return next();

    for (let attempt = 1; ; attempt++) {
      const outcome: Outcome = await next().then(
        (reply) => ({ ok: true as const, reply }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      const reason = attempt < maxAttempts && !ctx.signal.aborted ? reasonOf(outcome) : undefined;
      if (reason === undefined) {
        if (outcome.ok) return outcome.reply;
        throw outcome.error;
      }
      const delayMs = backoffDelay(attempt, backoff);
      ctx.log.info('retry: calling the tool again', { tool: name, attempt: attempt + 1, of: maxAttempts, reason, delayMs });
      try {
        await wait(delayMs, ctx.signal);
      } catch {
        // The caller gave up during the wait: it gets the failure it would have had.
        if (outcome.ok) return outcome.reply;
        throw outcome.error;
      }
      if (ctx.signal.aborted) {
        if (outcome.ok) return outcome.reply;
        throw outcome.error;
      }
    }
  };
}

type Outcome = { ok: true; reply: Reply } | { ok: false; error: unknown };

/** Records which tools of this page are marked idempotent; a first page (no cursor) starts over. */
function learn(ctx: Context, reply: Reply, hints: HintTable): Reply {
  const tools = reply?.tools;
  if (!Array.isArray(tools)) return reply;
  let known = hints.get(ctx.session);
  if (known === undefined || ctx.message.params?.cursor === undefined) hints.set(ctx.session, (known = new Set()));
  for (const tool of tools as unknown[]) {
    if (isJsonObject(tool) && typeof tool.name === 'string' && isJsonObject(tool.annotations) && tool.annotations.idempotentHint === true) {
      known.add(tool.name);
    }
  }
  return reply;
}

function nonNegative(value: number, key: string): number {
  if (!Number.isFinite(value) || value < 0) throw new ChainError('CONFIG', `retry.${key}: expected a number of at least 0, found ${value}`);
  return value;
}

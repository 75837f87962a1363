/**
 * @module
 * `limitResult`: a cap on the size of `tools/call` results, so one call cannot flood the model's
 * context: over the cap, the result is cut with a note the model can read, or replaced by an
 * `isError` result that says why.
 */
import { matchAny } from '../../chain/glob.js';
import type { Context } from '../../chain/context.js';
import type { Middleware, Next } from '../../chain/middleware.js';
import { ChainError } from '../../errors/chain-error.js';
import type { JsonObject, Reply } from '../../message/jsonrpc.js';
import { describeExcess, exceeds, measure, MIN_MAX_BYTES, truncateResult, type ResultLimit } from './truncate-result.js';
import type { LimitResultOptions, ResultCap } from './options.js';

export type { LimitResultOptions, ResultCap } from './options.js';

interface Rule extends ResultLimit {
  onExceed: 'truncate' | 'error';
}

/**
 * Caps the size of `tools/call` results. A result within its cap passes untouched (measuring it
 * is the only cost). Over the cap, with `onExceed: 'truncate'` (the default):
 * - text content is kept up to the cap and cut there (never inside a surrogate pair);
 * - non-text items (images, audio, embedded resources) that no longer fit are dropped;
 * - `structuredContent` is kept only if it still fits after the content;
 * - a last text item tells the model what happened:
 *   `[… truncated by the gateway: the result was 1.2 MB, over the gateway's limit of 100 KB; text cut to 101,888 of 1,258,291 characters]`.
 *
 * A tool with an `outputSchema` must return `structuredContent`, and clients that check (the
 * official SDKs) reject a successful result without it: cap such tools with `onExceed: 'error'`,
 * or high enough that their structured content fits. With `onExceed: 'error'`, the result is
 * `{ isError: true }` with one text item naming the tool and the limit.
 *
 * Throws a `ChainError` ('CONFIG') for a cap without a limit, or a limit that is not a positive
 * whole number (`maxBytes` at least 1024).
 *
 * @example
 * chain()
 *   .use(limitResult({ maxBytes: 100_000, tools: { 'github__*': { maxTextChars: 20_000 }, render_chart: { maxBytes: 2_000_000, onExceed: 'error' } } }))
 *   .to(stdio({ command: 'my-server' }));
 */
export function limitResult(options: LimitResultOptions): Middleware {
  const fallback = hasLimit(options) ? ruleOf(options, 'limitResult') : undefined;
  const entries = Object.entries(options.tools ?? {}).map(([pattern, cap]) => ({
    matches: matchAny([pattern]),
    rule: ruleOf(cap, `limitResult.tools[${JSON.stringify(pattern)}]`),
  }));
  if (fallback === undefined && entries.length === 0) {
    throw new ChainError('CONFIG', 'limitResult: set maxBytes or maxTextChars, for all tools or per tool');
  }
  const ruleFor = (name: string): Rule | undefined => entries.find((entry) => entry.matches(name))?.rule ?? fallback;

  async function capped(ctx: Context, next: Next, name: string, rule: Rule): Promise<Reply> {
    const result = await next();
    if (result === undefined) return result;
    const size = measure(result, rule);
    if (!exceeds(size, rule)) return result;
    ctx.log.debug('limitResult: a result over its cap', { tool: name, bytes: size.bytes, textChars: size.textChars, onExceed: rule.onExceed });
    return rule.onExceed === 'error' ? refusal(name, describeExcess(size, rule)) : truncateResult(result, rule, size);
  }

  // Not async: a message it does not cap gets next()'s own promise back, at no cost.
  return function limitResult(ctx, next) {
    if (ctx.method !== 'tools/call' || ctx.direction !== 'toUpstream') return next();
    const name = ctx.message.params?.name;
    const rule = typeof name === 'string' ? ruleFor(name) : undefined;
    return rule === undefined || typeof name !== 'string' ? next() : capped(ctx, next, name, rule);
  };
}

function refusal(tool: string, excess: string): JsonObject {
  return {
    content: [{ type: 'text', text: `The result of tool "${tool}" was withheld by the gateway: ${excess}. Ask for less (a narrower query, fewer items, a smaller page).` }],
    isError: true,
  };
}

function hasLimit(cap: ResultCap): boolean {
  return cap.maxBytes !== undefined || cap.maxTextChars !== undefined;
}

function ruleOf(cap: ResultCap, where: string): Rule {
  if (!hasLimit(cap)) throw new ChainError('CONFIG', `${where}: set maxBytes or maxTextChars`);
  const positive = (value: number | undefined, key: string, min: number): void => {
    if (value !== undefined && (!Number.isInteger(value) || value < min)) {
      throw new ChainError('CONFIG', `${where}.${key}: expected a whole number of at least ${min}, found ${value}`);
    }
  };
  positive(cap.maxBytes, 'maxBytes', MIN_MAX_BYTES);
  positive(cap.maxTextChars, 'maxTextChars', 1);
  return { maxBytes: cap.maxBytes, maxTextChars: cap.maxTextChars, onExceed: cap.onExceed ?? 'truncate' };
}

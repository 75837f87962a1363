/**
 * @module
 * `rateLimit`: token buckets and concurrency limits on tool calls. A call over a limit is refused
 * at once (never queued) with error -32029, whose message says when to retry and whose `data`
 * carries `retryAfterMs`.
 */
import { matchAny } from '../../chain/glob.js';
import type { Context } from '../../chain/context.js';
import type { Middleware, Next } from '../../chain/middleware.js';
import type { SessionInfo } from '../../core/session-info.js';
import { ChainError } from '../../errors/chain-error.js';
import type { Reply } from '../../message/jsonrpc.js';
import { BucketStore } from './bucket-store.js';
import { rateLimited } from './rate-limited-error.js';
import { fullBucket, refill, waitMs, type BucketShape, type TokenBucket } from './token-bucket.js';
import type { ConcurrencyRule, RateLimitCodeOptions, RateLimitKey, RateLimitOptions, RateLimitRule } from './options.js';

export type { ConcurrencyRule, RateLimitCodeOptions, RateLimitKey, RateLimitOptions, RateLimitRule } from './options.js';

export { RATE_LIMITED, type RateLimitedData } from './rate-limited-error.js';

const PER_MS = { second: 1000, minute: 60_000, hour: 3_600_000 } as const;

interface CompiledRule {
  readonly index: number;
  readonly covers: (tool: string) => boolean;
  readonly key: readonly RateLimitKey[];
  /** `key` without `session`: what tells buckets apart within one session's own store. */
  readonly sessionKey: readonly RateLimitKey[];
  readonly shape: BucketShape;
  readonly described: string;
  readonly shared: BucketStore<TokenBucket>;
}

interface CompiledConcurrency {
  readonly index: number;
  readonly covers: (tool: string) => boolean;
  readonly key: readonly RateLimitKey[];
  readonly max: number;
  readonly retryAfterMs: number;
}

/**
 * Limits tool calls (`tools/call` from the client; everything else passes untouched) with token
 * buckets per identity, session, tool and/or server, and with concurrency limits per tool. A call
 * over a limit is refused at once with -32029 (`RATE_LIMITED`): the message ends with
 * `retry in <delay>`, `data` is `{ retryAfterMs, limit: 'rate' | 'concurrency', tool, ... }`. A
 * refused call takes no token from any rule.
 *
 * A concurrency slot is freed when the call ends, or as soon as it is cancelled, times out or its
 * session ends. Buckets of a session (key `session`, or `identity` without one) live with the
 * session and go with it; shared buckets are bounded by `maxBuckets` per rule.
 *
 * @example
 * chain()
 *   .use(rateLimit({
 *     limits: [
 *       { key: ['identity'], rate: 60, per: 'minute', burst: 10 },
 *       { key: ['identity', 'tool'], tools: ['github__create_*'], rate: 5, per: 'hour' },
 *       { key: ['server'], rate: 20, per: 'second' },
 *     ],
 *     concurrency: [{ tools: ['db__query'], maxConcurrent: 4 }],
 *   }))
 *   .to(gateway);
 */
export function rateLimit(options: RateLimitOptions & RateLimitCodeOptions = {}): Middleware {
  const separator = options.separator ?? '__';
  const maxBuckets = options.maxBuckets ?? 10_000;
  const now = options.now ?? Date.now;
  if (separator === '') throw new ChainError('CONFIG', 'rateLimit: separator must not be empty');
  if (!Number.isInteger(maxBuckets) || maxBuckets < 1) throw new ChainError('CONFIG', `rateLimit: maxBuckets must be a positive integer (got ${maxBuckets})`);
  const limits = (options.limits ?? []).map((rule, index) => compileRule(rule, index, maxBuckets));
  const concurrency = (options.concurrency ?? []).map(compileConcurrency);
  /** Buckets that belong to one session, a store per rule (by its index): released with it. */
  const sessionBuckets = new WeakMap<SessionInfo, Array<BucketStore<TokenBucket>>>();
  /** Calls in flight per concurrency key; a key is deleted when its count returns to 0. */
  const inFlight = new Map<string, number>();

  const partsOf = (ctx: Context, tool: string, key: readonly RateLimitKey[]): string => {
    let parts = '';
    for (let i = 0; i < key.length; i++) parts += (i === 0 ? '' : '\u0000') + valueOf(ctx.session, tool, key[i] as RateLimitKey, separator);
    return parts;
  };

  /** The store of `rule`'s buckets for this call: the session's own (one per rule), or the rule's shared one. */
  const storeOf = (session: SessionInfo, rule: CompiledRule): BucketStore<TokenBucket> => {
    if (!perSession(session, rule.key)) return rule.shared;
    let stores = sessionBuckets.get(session);
    if (!stores) sessionBuckets.set(session, (stores = []));
    return (stores[rule.index] ??= new BucketStore(maxBuckets));
  };

  const bucketOf = (ctx: Context, tool: string, rule: CompiledRule, at: number): TokenBucket => {
    const store = storeOf(ctx.session, rule);
    // In a session's own store the session is implied; a key of one part left (the tool, say) is
    // that part itself: no string made per call.
    const parts = store === rule.shared ? rule.key : rule.sessionKey;
    const key = parts.length === 1 ? valueOf(ctx.session, tool, parts[0] as RateLimitKey, separator) : partsOf(ctx, tool, parts);
    return store.get(key) ?? store.add(key, fullBucket(rule.shape, at));
  };

  /** Runs a call that holds concurrency slots, and frees them when it ends, is cancelled, times out or its session ends. */
  async function holding(ctx: Context, next: Next, slots: readonly string[]): Promise<Reply> {
    for (const slot of slots) inFlight.set(slot, (inFlight.get(slot) ?? 0) + 1);
    // A server may never answer a cancelled call: whichever comes first frees them, once.
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      for (const slot of slots) {
        const count = (inFlight.get(slot) ?? 1) - 1;
        if (count <= 0) inFlight.delete(slot);
        else inFlight.set(slot, count);
      }
    };
    const unsubscribe = ctx.onAbort(release);
    try {
      return await next();
    } finally {
      unsubscribe();
      release();
    }
  }

  /** The concurrency slots `tool`'s call takes, one per rule that covers it; a full one refuses the call. */
  function slotsFor(ctx: Context, tool: string): string[] {
    const slots: string[] = [];
    for (const rule of concurrency) {
      if (!rule.covers(tool)) continue;
      const slot = `${rule.index}\u0000${partsOf(ctx, tool, rule.key)}`;
      if ((inFlight.get(slot) ?? 0) >= rule.max) {
        throw rateLimited(`Too many concurrent calls to tool "${tool}" (at most ${rule.max} at a time${scopeOf(rule.key, ' per ')})`, {
          retryAfterMs: rule.retryAfterMs,
          limit: 'concurrency',
          tool,
          maxConcurrent: rule.max,
        });
      }
      slots.push(slot);
    }
    return slots;
  }

  /** Takes a token from each bucket of the rules that cover `tool`, or none when one is empty: the call is refused with the longest wait. */
  function takeTokens(ctx: Context, tool: string): void {
    const at = now();
    const taken: TokenBucket[] = [];
    let refusal: { rule: CompiledRule; wait: number } | undefined;
    for (const rule of limits) {
      if (!rule.covers(tool)) continue;
      const bucket = bucketOf(ctx, tool, rule, at);
      refill(bucket, rule.shape, at);
      const wait = waitMs(bucket, rule.shape);
      if (wait > 0 && (refusal === undefined || wait > refusal.wait)) refusal = { rule, wait };
      taken.push(bucket);
    }
    if (refusal) {
      const { rule, wait } = refusal;
      throw rateLimited(`Rate limit exceeded for tool "${tool}" (${rule.described})`, {
        retryAfterMs: wait,
        limit: 'rate',
        tool,
        rate: rule.shape.rate,
        perMs: rule.shape.perMs,
        burst: rule.shape.capacity,
      });
    }
    for (const bucket of taken) bucket.tokens -= 1;
  }

  // Not async: a call within its limits and without concurrency slots gets next()'s own promise
  // back (a refusal thrown here becomes a rejection in compose).
  return function rateLimit(ctx, next) {
    if (ctx.method !== 'tools/call' || ctx.direction !== 'toUpstream') return next();
    const tool = ctx.message.params?.name;
    if (typeof tool !== 'string') return next();
    const slots = slotsFor(ctx, tool);
    if (limits.length > 0) takeTokens(ctx, tool);
    return slots.length === 0 ? next() : holding(ctx, next, slots);
  };
}

/** Whether a rule's buckets for this session are the session's own (released with it). */
function perSession(session: SessionInfo, key: readonly RateLimitKey[]): boolean {
  return key.includes('session') || (session.identity === undefined && key.includes('identity'));
}

function valueOf(session: SessionInfo, tool: string, part: RateLimitKey, separator: string): string {
  switch (part) {
    case 'identity':
      return session.identity === undefined ? `session:${session.id}` : `identity:${session.identity.id}`;
    case 'session':
      return session.id;
    case 'tool':
      return tool;
    case 'server': {
      const at = tool.indexOf(separator);
      return at === -1 ? '' : tool.slice(0, at);
    }
  }
}

function compileRule(rule: RateLimitRule, index: number, maxBuckets: number): CompiledRule {
  const where = `rateLimit: limits[${index}]`;
  const perMs = typeof rule.per === 'number' ? rule.per : PER_MS[rule.per];
  if (!(perMs > 0) || !Number.isFinite(perMs)) throw new ChainError('CONFIG', `${where}.per must be 'second', 'minute', 'hour' or a positive number of milliseconds`);
  if (!(rule.rate > 0) || !Number.isFinite(rule.rate)) throw new ChainError('CONFIG', `${where}.rate must be a positive number (got ${rule.rate})`);
  const capacity = rule.burst ?? Math.max(1, rule.rate);
  if (!(capacity >= 1) || !Number.isFinite(capacity)) throw new ChainError('CONFIG', `${where}.burst must be at least 1 (got ${capacity})`);
  const key = checkKey(rule.key ?? [], `${where}.key`);
  const per = typeof rule.per === 'number' ? `${rule.per} ms` : rule.per;
  return {
    index,
    covers: covering(rule.tools),
    key,
    sessionKey: key.filter((part) => part !== 'session'),
    shape: { rate: rule.rate, perMs, capacity },
    described: `${rule.rate} per ${per}${scopeOf(key, ', per ')}`,
    shared: new BucketStore(maxBuckets),
  };
}

function compileConcurrency(rule: ConcurrencyRule, index: number): CompiledConcurrency {
  const where = `rateLimit: concurrency[${index}]`;
  if (!Number.isInteger(rule.maxConcurrent) || rule.maxConcurrent < 1) throw new ChainError('CONFIG', `${where}.maxConcurrent must be a positive integer (got ${rule.maxConcurrent})`);
  const retryAfterMs = rule.retryAfterMs ?? 1000;
  if (!(retryAfterMs >= 0) || !Number.isFinite(retryAfterMs)) throw new ChainError('CONFIG', `${where}.retryAfterMs must be a number of milliseconds`);
  return { index, covers: covering(rule.tools), key: checkKey(rule.key ?? ['tool'], `${where}.key`), max: rule.maxConcurrent, retryAfterMs };
}

const KEYS: ReadonlySet<string> = new Set<RateLimitKey>(['identity', 'session', 'tool', 'server']);

function checkKey(key: readonly RateLimitKey[], where: string): readonly RateLimitKey[] {
  const unknown = key.find((part) => !KEYS.has(part));
  if (unknown !== undefined) throw new ChainError('CONFIG', `${where}: unknown key "${String(unknown)}" (identity, session, tool or server)`);
  return [...new Set(key)];
}

function covering(tools: readonly string[] | undefined): (tool: string) => boolean {
  return tools === undefined ? () => true : matchAny(tools);
}

/** `, per identity and tool` (with `lead`), or `` for one bucket for everything. */
function scopeOf(key: readonly RateLimitKey[], lead: string): string {
  if (key.length === 0) return '';
  const last = key[key.length - 1];
  return `${lead}${key.length === 1 ? String(last) : `${key.slice(0, -1).join(', ')} and ${String(last)}`}`;
}

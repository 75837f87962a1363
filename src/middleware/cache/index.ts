/**
 * @module
 * `cache`: answers repeated reads from memory for a while. List pages (tools, prompts, resources,
 * resource templates), `resources/read`, and calls of tools marked cacheable, each with a time to
 * live; kept per identity (or per session) unless shared; dropped when the server says the list
 * or the resource changed; bounded in entries and bytes.
 */
import type { Context } from '../../chain/context.js';
import { matchAny } from '../../chain/glob.js';
import type { Middleware, Next } from '../../chain/middleware.js';
import type { SessionInfo } from '../../core/session-info.js';
import { ChainError } from '../../errors/chain-error.js';
import type { JsonObject, Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { uriForms } from '../filter/normalize-uri.js';
import { canonicalJson } from './canonical-json.js';
import { immutableCopy, type Immutable } from './immutable-copy.js';
import { LruStore } from './lru-store.js';
import type { CacheCodeOptions, CacheOptions } from './options.js';

export type { CacheCodeOptions, CacheOptions, CacheTtl } from './options.js';

declare module '../../chain/context.js' {
  interface ContextState {
    /** Set by `cache` on the requests it may answer: `'hit'` answered from memory, `'miss'` forwarded. */
    cache: 'hit' | 'miss';
  }
}

/** What the cache has done since it was made. */
export interface CacheStats {
  /** Requests answered from memory. */
  hits: number;
  /** Cacheable requests forwarded upstream. */
  misses: number;
  /** Requests answered by an identical request already on its way (single flight); not in `hits`. */
  coalesced: number;
  /** Entries dropped to stay within `maxEntries` / `maxBytes`. */
  evictions: number;
  /** Entries dropped by `list_changed` and `resources/updated`. */
  invalidations: number;
  /** Entries held now. */
  entries: number;
  /** Bytes held now. */
  bytes: number;
}

/** The `cache` middleware, with its counters and a way to empty it. */
export interface CacheMiddleware extends Middleware {
  stats(): CacheStats;
  /** Drops every entry. */
  clear(): void;
}

const LIST_METHODS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/** The lists each `list_changed` makes stale. */
const STALE_LISTS: Readonly<Record<string, readonly string[]>> = {
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
};

const SEP = '\u0000';

/** What a request would be cached as. */
interface Target {
  readonly kind: string;
  readonly subject: string;
  readonly ttl: number;
}

/** An answer on its way, that identical requests wait for. */
interface Flight {
  readonly partition: string;
  readonly kind: string;
  readonly subject: string;
  readonly answer: Promise<JsonObject | undefined>;
}

/**
 * Serves repeated reads from memory: every page of the four lists (keyed by its cursor),
 * `resources/read` (by uri), and `tools/call` of the tools named in `tools` (or, with
 * `readOnly: true`, marked `readOnlyHint`), keyed by the tool's name and its arguments as canonical
 * JSON (the order of keys does not matter). Errors and results with `isError: true` are never kept.
 *
 * Entries belong to the caller's identity (or session) unless `shared`. They expire after their
 * kind's time to live, and go as soon as `notifications/<kind>/list_changed` (that list's pages) or
 * `notifications/resources/updated` (that uri, in any spelling of it: `FILE:///a/./b` is
 * `file:///a/b`) passes toward the client; an answer still on its way
 * when such a notification passes is not kept. A resource changed without a notification (nobody
 * subscribed) is served until it expires. Results from memory are deeply frozen: middleware in
 * front must not change them (none should: they return new objects).
 *
 * `stats()` counts hits, misses and evictions, and each request the cache could answer gets
 * `ctx.state.cache = 'hit' | 'miss'` for middleware in front of it (such as `log`).
 *
 * @example
 * const cached = cache({ tools: ['search_*', 'get_weather'], ttlMs: { tools: 30_000 }, maxBytes: 8 * 1024 * 1024 });
 * chain().use(log()).use(cached).to(stdio({ command: 'my-server' }));
 * cached.stats(); // { hits: 12, misses: 3, coalesced: 0, evictions: 0, invalidations: 1, entries: 3, bytes: 5120 }
 */
export function cache(options: CacheOptions & CacheCodeOptions = {}): CacheMiddleware {
  const ttl = {
    lists: duration('ttlMs.lists', options.ttlMs?.lists ?? 300_000),
    resources: duration('ttlMs.resources', options.ttlMs?.resources ?? 60_000),
    tools: duration('ttlMs.tools', options.ttlMs?.tools ?? 60_000),
  };
  const { shared = false, readOnly = false, singleFlight = true, now = Date.now } = options;
  const cacheable = matchAny(options.tools ?? []);
  const store = new LruStore<JsonObject>({
    maxEntries: count('maxEntries', options.maxEntries ?? 1000),
    maxBytes: count('maxBytes', options.maxBytes ?? 16 * 1024 * 1024),
  });
  /** Answers on their way, by key: the stored value once it arrives, `undefined` if it was not kept. */
  const inFlight = new Map<string, Flight>();
  /** Tools each session was last shown with `readOnlyHint: true`. */
  const readOnlyTools = new WeakMap<SessionInfo, Set<string>>();
  /** Bumped by every invalidation: an answer that was on its way across one is not kept. */
  let generation = 0;
  const counts = { hits: 0, misses: 0, coalesced: 0, invalidations: 0 };

  const partitionOf = (session: SessionInfo): string =>
    shared ? '*' : session.identity !== undefined ? `i:${session.identity.id}` : `s:${session.id}`;

  function targetOf(ctx: Context): Target | undefined {
    const params = ctx.message.params ?? {};
    if (LIST_METHODS.has(ctx.method)) {
      if (ttl.lists === 0) return undefined;
      const cursor = params.cursor;
      return { kind: ctx.method, subject: typeof cursor === 'string' ? cursor : '', ttl: ttl.lists };
    }
    if (ctx.method === 'resources/read') {
      return ttl.resources > 0 && typeof params.uri === 'string' ? { kind: ctx.method, subject: params.uri, ttl: ttl.resources } : undefined;
    }
    if (ctx.method === 'tools/call') {
      const name = params.name;
      if (ttl.tools === 0 || typeof name !== 'string') return undefined;
      if (!cacheable(name) && !(readOnly && readOnlyTools.get(ctx.session)?.has(name) === true)) return undefined;
      return { kind: ctx.method, subject: `${name}${SEP}${canonicalJson(params.arguments ?? {})}`, ttl: ttl.tools };
    }
    return undefined;
  }

  function invalidate(ctx: Context): void {
    const partition = partitionOf(ctx.session);
    const lists = STALE_LISTS[ctx.method];
    if (lists !== undefined) {
      if (ctx.method === 'notifications/tools/list_changed') readOnlyTools.delete(ctx.session);
      drop(partition, (kind) => lists.includes(kind), () => true);
      return;
    }
    const uri = ctx.message.params?.uri;
    if (ctx.method === 'notifications/resources/updated' && typeof uri === 'string') {
      drop(partition, (kind) => kind === 'resources/read', sameResource(uri));
    }
  }

  /** Whether a cached uri may name the resource `uri` names: spelt alike, or alike in normal or decoded form. */
  function sameResource(uri: string): (subject: string) => boolean {
    const updated = uriForms(uri);
    return (subject) => {
      if (subject === uri) return true;
      const cached = uriForms(subject);
      return cached.normal === updated.normal || cached.decoded === updated.decoded;
    };
  }

  function drop(partition: string, kinds: (kind: string) => boolean, subjects: (subject: string) => boolean): void {
    generation++;
    counts.invalidations += store.deleteWhere((entry) => entry.partition === partition && kinds(entry.kind) && subjects(entry.subject));
    for (const [key, flight] of inFlight) {
      if (flight.partition === partition && kinds(flight.kind) && subjects(flight.subject)) inFlight.delete(key);
    }
  }

  /** Remembers which tools of a `tools/list` page are read-only, for this session. */
  function learn(ctx: Context, reply: Reply): void {
    if (!readOnly || ctx.method !== 'tools/list' || !Array.isArray(reply?.tools)) return;
    let known = readOnlyTools.get(ctx.session);
    if (known === undefined) readOnlyTools.set(ctx.session, (known = new Set()));
    for (const tool of reply.tools) {
      if (!isJsonObject(tool) || typeof tool.name !== 'string') continue;
      const annotations = tool.annotations;
      if (isJsonObject(annotations) && annotations.readOnlyHint === true) known.add(tool.name);
      else known.delete(tool.name);
    }
  }

  /** Forwards the request and keeps its answer if it may be kept; `lead` lets identical requests wait for it. */
  async function fetch(ctx: Context, next: Next, key: string, target: Target, partition: string, lead: boolean): Promise<Reply> {
    counts.misses++;
    ctx.state.cache = 'miss';
    const started = generation;
    let settle: (value: JsonObject | undefined) => void = () => {};
    const pending = lead ? new Promise<JsonObject | undefined>((resolve) => (settle = resolve)) : undefined;
    const flight = pending === undefined ? undefined : { partition, kind: target.kind, subject: target.subject, answer: pending };
    if (flight !== undefined) inFlight.set(key, flight);
    try {
      const reply = await next();
      const kept = keepable(ctx, reply) ? copyOf(reply) : undefined;
      if (kept !== undefined && started === generation) {
        store.set(key, { value: kept.value, bytes: kept.bytes, expiresAt: now() + target.ttl, partition, kind: target.kind, subject: target.subject });
      }
      settle(kept?.value);
      return reply;
    } finally {
      settle(undefined);
      if (flight !== undefined && inFlight.get(key) === flight) inFlight.delete(key);
    }
  }

  const middleware: Middleware = async function cache(ctx, next) {
    if (ctx.direction === 'toDownstream') {
      if (ctx.kind === 'notification') invalidate(ctx);
      return next();
    }
    const target = targetOf(ctx);
    if (target === undefined) {
      if (!readOnly || ctx.method !== 'tools/list') return next();
      const reply = await next();
      learn(ctx, reply);
      return reply;
    }
    const partition = partitionOf(ctx.session);
    const key = `${partition}${SEP}${target.kind}${SEP}${target.subject}`;
    const entry = store.get(key, now());
    if (entry !== undefined) {
      counts.hits++;
      ctx.state.cache = 'hit';
      learn(ctx, entry.value);
      return entry.value;
    }
    const pending = singleFlight ? inFlight.get(key)?.answer : undefined;
    if (pending !== undefined) {
      const value = await pending;
      if (value !== undefined) {
        counts.coalesced++;
        ctx.state.cache = 'hit';
        learn(ctx, value);
        return value;
      }
    }
    const reply = await fetch(ctx, next, key, target, partition, singleFlight && pending === undefined);
    learn(ctx, reply);
    return reply;
  };

  return Object.assign(middleware, {
    stats: (): CacheStats => ({ ...counts, evictions: store.evictions, entries: store.size, bytes: store.bytes }),
    clear: (): void => {
      generation++;
      store.clear();
      inFlight.clear();
    },
  });
}

/** A successful answer: an object, and for a tool not `isError`. */
function keepable(ctx: Context, reply: Reply): reply is JsonObject {
  return isJsonObject(reply) && !(ctx.method === 'tools/call' && reply.isError === true);
}

/** The answer to keep, or `undefined` if it cannot be serialized (nested too deeply). */
function copyOf(reply: JsonObject): Immutable | undefined {
  try {
    return immutableCopy(reply);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

function duration(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new ChainError('USAGE', `cache: ${name} must be a number of milliseconds, 0 or more`);
  return value;
}

function count(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new ChainError('USAGE', `cache: ${name} must be a whole number, 0 or more`);
  return value;
}

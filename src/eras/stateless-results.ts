import { ErrorCode } from '../errors/error-code.js';
import type { JsonObject } from '../message/jsonrpc.js';

/**
 * The methods whose complete results carry caching hints (`ttlMs`, `cacheScope`): 2026-07-28
 * `server/utilities/caching.mdx` — "Servers MUST include caching hints on results with
 * `resultType: "complete"` returned by" these.
 */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** Who may share a cached result: anyone (`public`), or only the same authorization context (`private`). */
export type CacheScope = 'public' | 'private';

/** The caching hints of a 2026-07-28 result: how long it stays fresh, and who may share it. */
export interface CacheHints {
  readonly ttlMs: number;
  readonly cacheScope: CacheScope;
}

/** The per-response `_meta` key of the server's identity. */
export const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

/** The name and version a session-era `initialize` result gets when the stateless-era server did not say who it is. */
const UNKNOWN_SERVER: JsonObject = { name: 'unknown', version: '0.0.0' };

/**
 * A session-era result for a stateless-era client: `resultType: 'complete'` added when absent (kept when present),
 * and for CACHEABLE_METHODS `ttlMs`/`cacheScope` set from `hints` when absent or invalid
 * (ttlMs must be an integer >= 0; cacheScope one of the two). A negative integer `ttlMs` becomes 0
 * (the spec's reading of it) rather than the hint, so a bridge never lengthens what the server
 * allowed. Hints go only on complete results (an `input_required` one carries none). Returns the
 * same object when nothing changes, otherwise a new object with the added keys LAST (`{ ...result,
 * ... }`: a key that was there but invalid keeps its place). Never mutates `result`.
 */
export function toStatelessResult(method: string, result: JsonObject, hints: CacheHints): JsonObject {
  const added = statelessResultAdditions(method, result, hints);
  return added === undefined ? result : { ...result, ...added };
}

/**
 * What {@link toStatelessResult} adds to `result` (undefined: nothing), read without copying it: a
 * caller that keeps a large result as its bytes adds these to the bytes.
 */
export function statelessResultAdditions(method: string, result: JsonObject, hints: CacheHints): JsonObject | undefined {
  const added: JsonObject = {};
  let resultType = result.resultType;
  if (resultType === undefined) {
    resultType = 'complete';
    added.resultType = resultType;
  }
  if (resultType === 'complete' && CACHEABLE_METHODS.has(method)) {
    const ttlMs = result.ttlMs;
    if (!isValidTtl(ttlMs)) added.ttlMs = typeof ttlMs === 'number' && Number.isInteger(ttlMs) ? 0 : hints.ttlMs;
    if (!isCacheScope(result.cacheScope)) added.cacheScope = hints.cacheScope;
  }
  return Object.keys(added).length === 0 ? undefined : added;
}

/**
 * A session-era error for a stateless-era client. Retired codes MUST NOT reach it:
 * -32002 (resource not found) becomes -32602 with `data.uri` (from the error's data.uri, else from
 * `requestParams.uri` when a string), message kept; -32042 (URL elicitation required) becomes
 * -32603 with the original data kept under `data` and a message saying a URL elicitation is required
 * (the bridge may later turn it into input_required itself). Any other code in -32020..-32099 that
 * the 2026-07-28 spec does not define (only -32020, -32021, -32022 are defined) is also rewritten to -32603 (keep
 * message and data). Returns the same object when nothing changes.
 *
 * For -32002: an object `data` keeps its other keys; a `data` that is not an object is replaced by
 * `{ uri }` when a uri is known, and kept as it is when none is.
 */
export function toStatelessError(
  error: { code: number; message: string; data?: unknown },
  requestParams: JsonObject | undefined,
): { code: number; message: string; data?: unknown } {
  const { code, message, data } = error;
  if (code === ErrorCode.ResourceNotFound) {
    return { code: ErrorCode.InvalidParams, message, ...withData(resourceNotFoundData(data, requestParams)) };
  }
  if (code === URL_ELICITATION_REQUIRED) {
    const said = typeof message === 'string' && message !== '' ? `: ${message}` : '';
    return { code: ErrorCode.InternalError, message: `URL elicitation required${said}`, ...withData(data) };
  }
  if (isReservedRange(code) && !STATELESS_DEFINED_CODES.has(code)) {
    return { code: ErrorCode.InternalError, message, ...withData(data) };
  }
  return error;
}

/**
 * The `server/discover` result (schema DiscoverResult) built from a session-era `initialize` result:
 * resultType 'complete', supportedVersions, capabilities (from the result, `{}` if absent or not an
 * object), instructions (only when a string), `_meta["io.modelcontextprotocol/serverInfo"]`
 * (from result.serverInfo when an object; any other `_meta` keys of the result are kept), ttlMs, cacheScope.
 * serverInfo is NOT left in the body. The session era's `protocolVersion` and any other key are dropped;
 * `_meta` is there only when it has something in it.
 */
export function discoverResultFrom(
  initializeResult: JsonObject,
  options: { supportedVersions: readonly string[] } & CacheHints,
): JsonObject {
  const capabilities = isObject(initializeResult.capabilities) ? initializeResult.capabilities : {};
  const meta: JsonObject = isObject(initializeResult._meta) ? { ...initializeResult._meta } : {};
  if (isObject(initializeResult.serverInfo)) meta[SERVER_INFO_META] = initializeResult.serverInfo;
  const instructions = initializeResult.instructions;
  return {
    resultType: 'complete',
    supportedVersions: [...options.supportedVersions],
    capabilities,
    ...(typeof instructions === 'string' ? { instructions } : {}),
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
    ttlMs: options.ttlMs,
    cacheScope: options.cacheScope,
  };
}

/**
 * The reverse, for a session-era client in front of a stateless-era upstream (a later phase uses it): an
 * `initialize` result from a DiscoverResult, at `protocolVersion`: capabilities, serverInfo (from
 * `_meta[SERVER_INFO_META]`, else `{ name: 'unknown', version: '0.0.0' }`), instructions when a string.
 * No resultType/ttlMs/cacheScope/supportedVersions in it.
 *
 * The serverInfo is taken only when it is an object with a string `name` and `version` (a session-era
 * client's schema requires both, and would refuse the whole result otherwise). Other `_meta` keys
 * of the discover result are kept in the result's `_meta`.
 */
export function initializeResultFrom(discoverResult: JsonObject, protocolVersion: string): JsonObject {
  const capabilities = isObject(discoverResult.capabilities) ? discoverResult.capabilities : {};
  const { [SERVER_INFO_META]: serverInfo, ...otherMeta } = isObject(discoverResult._meta) ? discoverResult._meta : {};
  const instructions = discoverResult.instructions;
  return {
    protocolVersion,
    capabilities,
    serverInfo: isImplementation(serverInfo) ? serverInfo : { ...UNKNOWN_SERVER },
    ...(typeof instructions === 'string' ? { instructions } : {}),
    ...(Object.keys(otherMeta).length > 0 ? { _meta: otherMeta } : {}),
  };
}

/**
 * Merging cache hints of several members (the gateway's merged lists): the smallest ttlMs and the
 * most private scope ('private' wins). An empty list gives `fallback`.
 */
export function mergeCacheHints(hints: readonly CacheHints[], fallback: CacheHints): CacheHints {
  if (hints.length === 0) return fallback;
  let ttlMs = Infinity;
  let cacheScope: CacheScope = 'public';
  for (const hint of hints) {
    ttlMs = Math.min(ttlMs, hint.ttlMs);
    if (hint.cacheScope === 'private') cacheScope = 'private';
  }
  return { ttlMs, cacheScope };
}

/**
 * The hints a result carries, if valid (ttlMs integer >= 0 — a negative one counts as 0 per spec;
 * cacheScope valid), else undefined: both must be there (a float, NaN, a string or a missing
 * `ttlMs`, or a scope other than the two, gives undefined).
 */
export function cacheHintsOf(result: JsonObject): CacheHints | undefined {
  const { ttlMs, cacheScope } = result;
  if (typeof ttlMs !== 'number' || !Number.isInteger(ttlMs) || !isCacheScope(cacheScope)) return undefined;
  return { ttlMs: Math.max(0, ttlMs), cacheScope };
}

/** -32042, URL elicitation required (2025-11-25 only; retired in 2026-07-28). Not in ErrorCode: the chain never emits it. */
const URL_ELICITATION_REQUIRED = -32042;

/** The codes of -32020..-32099 that 2026-07-28 defines; any other code of the range MUST NOT be emitted. */
const STATELESS_DEFINED_CODES: ReadonlySet<number> = new Set([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
]);

function isReservedRange(code: number): boolean {
  return code >= -32099 && code <= -32020;
}

function resourceNotFoundData(data: unknown, requestParams: JsonObject | undefined): unknown {
  const fromError = isObject(data) ? data.uri : undefined;
  const fromRequest = requestParams?.uri;
  const uri = typeof fromError === 'string' ? fromError : typeof fromRequest === 'string' ? fromRequest : undefined;
  if (uri === undefined) return data;
  return isObject(data) ? (data.uri === uri ? data : { ...data, uri }) : { uri };
}

function withData(data: unknown): { data?: unknown } {
  return data === undefined ? {} : { data };
}

function isValidTtl(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isCacheScope(value: unknown): value is CacheScope {
  return value === 'public' || value === 'private';
}

function isImplementation(value: unknown): value is JsonObject {
  return isObject(value) && typeof value.name === 'string' && typeof value.version === 'string';
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

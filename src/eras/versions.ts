/**
 * The MCP protocol revisions mcp-chain speaks, listed here and nowhere else. Two eras:
 * - the session era (2024-11-05 … 2025-11-25): `initialize` makes a session, whose version holds
 *   for every request after it;
 * - the stateless era (2026-07-28): no `initialize`, every request names its version (and the
 *   client's capabilities and info) in its `params._meta` envelope.
 * Runtime constants, no dependencies.
 */

/** The session era's revisions, newest first: what `initialize` negotiates. */
export const SESSION_ERA_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** The stateless era's revisions, newest first: what a request's envelope may name. */
export const STATELESS_ERA_VERSIONS = ['2026-07-28'] as const;

/** A revision of the session era. */
export type SessionEraVersion = (typeof SESSION_ERA_VERSIONS)[number];

/** A revision of the stateless era. */
export type StatelessEraVersion = (typeof STATELESS_ERA_VERSIONS)[number];

/** Every revision the chain serves, of both eras, newest first: what `server/discover` lists. */
export const SERVED_VERSIONS: readonly (StatelessEraVersion | SessionEraVersion)[] = [...STATELESS_ERA_VERSIONS, ...SESSION_ERA_VERSIONS];

/** The newest session-era revision: what `initialize` offers a client asking for one not served. */
export const LATEST_SESSION_ERA_VERSION = '2025-11-25' satisfies SessionEraVersion;

/** The newest stateless-era revision: what the chain puts in the envelope of its requests to a stateless-era server. */
export const LATEST_STATELESS_ERA_VERSION = '2026-07-28' satisfies StatelessEraVersion;

/** Whether `v` is a revision of the session era the chain serves. */
export function isSessionEraVersion(v: unknown): v is SessionEraVersion {
  return typeof v === 'string' && (SESSION_ERA_VERSIONS as readonly string[]).includes(v);
}

/** Whether `v` is a revision of the stateless era the chain serves. */
export function isStatelessEraVersion(v: unknown): v is StatelessEraVersion {
  return typeof v === 'string' && (STATELESS_ERA_VERSIONS as readonly string[]).includes(v);
}

/**
 * The version the chain offers when a session-era client asks for `requested` in `initialize`: the
 * same one when the chain serves it, otherwise the latest it serves (the client then decides
 * whether to go on).
 */
export function negotiateVersion(requested: string): SessionEraVersion {
  return isSessionEraVersion(requested) ? requested : LATEST_SESSION_ERA_VERSION;
}

/**
 * Whether JSON-RPC batches (an array of messages in one frame) are allowed in revision `v`.
 * Only 2025-03-26 allowed them: 2024-11-05 did not have them and 2025-06-18 removed them.
 */
export function supportsBatches(v: string): boolean {
  return v === '2025-03-26';
}

/**
 * Whether a client at revision `v` takes SSE priming events (an event id with empty data, so that a
 * stream can be resumed before its first message): 2025-11-25 and later; older SDKs choke on them.
 */
export function supportsPriming(v: string): boolean {
  return v >= '2025-11-25';
}

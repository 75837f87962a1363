import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import type { JsonObject } from '../message/jsonrpc.js';

/** The `params._meta` keys of a 2026-07-28 request's envelope. */
export const ENVELOPE_META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
} as const;

/**
 * The `_meta` key under which the chain carries an input request's key (of `inputRequests`) on
 * the server→client request it becomes, so that a bridge back to a 2026-07-28 client keeps the
 * server's own key. Not part of the spec; removed before a stateless-era client sees the request.
 */
export const INPUT_KEY_META = 'dev.mcp-chain/inputKey';

/**
 * The `_meta` key of the `initialize` a bridge makes for a 2026-07-28 client, naming the client's
 * era (`'2026-07-28'`), so that an upstream connection can choose to speak that era to its server.
 * Not part of the spec; removed before the server sees the request.
 */
export const CLIENT_ERA_META = 'dev.mcp-chain/clientEra';

/** What a request of the stateless era says about its client, every time. */
export interface StatelessEnvelope {
  readonly protocolVersion: string;
  readonly clientCapabilities: JsonObject;
  /** SHOULD be there; a request without it is still served. */
  readonly clientInfo: JsonObject | undefined;
  /** Log messages are sent for the request only when it names a level. */
  readonly logLevel: string | undefined;
}

/**
 * Whether a request claims the stateless era: its `params._meta` names a protocol version (the
 * spec's "modern per-request `_meta`"). A request that does not is of the session era.
 */
export function claimsStatelessEra(params: JsonObject | undefined): boolean {
  const meta = params?._meta;
  return isObject(meta) && Object.prototype.hasOwnProperty.call(meta, ENVELOPE_META.protocolVersion);
}

/**
 * The envelope of a request of the stateless era, checked in the order the spec and its
 * conformance suite give: a missing or mistyped required key is -32602 (`data.envelope.missing`
 * or `.invalid` name it); a version not served is -32022 with `data: { supported, requested }`.
 * `supported`: the versions of that era the endpoint serves, as `server/discover` lists them.
 */
export function readStatelessEnvelope(params: JsonObject | undefined, supported: readonly string[]): StatelessEnvelope {
  const meta = params?._meta;
  if (!isObject(meta)) throw invalidEnvelope({ missing: ['_meta'] });
  const missing: string[] = [];
  const invalid: string[] = [];
  const protocolVersion = meta[ENVELOPE_META.protocolVersion];
  const clientCapabilities = meta[ENVELOPE_META.clientCapabilities];
  const clientInfo = meta[ENVELOPE_META.clientInfo];
  const logLevel = meta[ENVELOPE_META.logLevel];
  if (protocolVersion === undefined) missing.push(ENVELOPE_META.protocolVersion);
  else if (typeof protocolVersion !== 'string' || protocolVersion === '') invalid.push(ENVELOPE_META.protocolVersion);
  if (clientCapabilities === undefined) missing.push(ENVELOPE_META.clientCapabilities);
  else if (!isObject(clientCapabilities)) invalid.push(ENVELOPE_META.clientCapabilities);
  if (clientInfo !== undefined && !isObject(clientInfo)) invalid.push(ENVELOPE_META.clientInfo);
  if (logLevel !== undefined && typeof logLevel !== 'string') invalid.push(ENVELOPE_META.logLevel);
  if (missing.length > 0 || invalid.length > 0) {
    throw invalidEnvelope({ ...(missing.length > 0 ? { missing } : {}), ...(invalid.length > 0 ? { invalid } : {}) });
  }
  const version = protocolVersion as string;
  if (!supported.includes(version)) {
    throw new McpError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${version}`, { supported: [...supported], requested: version });
  }
  return {
    protocolVersion: version,
    clientCapabilities: clientCapabilities as JsonObject,
    clientInfo: clientInfo as JsonObject | undefined,
    logLevel: logLevel as string | undefined,
  };
}

function invalidEnvelope(envelope: { missing?: string[]; invalid?: string[] }): McpError {
  const names = [...(envelope.missing ?? []).map((key) => `missing ${key}`), ...(envelope.invalid ?? []).map((key) => `invalid ${key}`)];
  return new McpError(ErrorCode.InvalidParams, `Invalid params: the request's _meta envelope is not valid (${names.join(', ')})`, { envelope });
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

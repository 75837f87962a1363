import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import type { JsonObject } from '../message/jsonrpc.js';

/** The methods whose target a 2026-07-28 request also names in `Mcp-Name`, and where it is in the body. */
const NAMED: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** The headers of a POST of the stateless era, by lower-case name (as Node gives them). */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Checks the standard headers of a 2026-07-28 POST against its body (Streamable HTTP, "Request
 * Metadata"): `MCP-Protocol-Version` must equal the envelope's version, `Mcp-Method` the method,
 * and for `tools/call`, `prompts/get` and `resources/read` `Mcp-Name` the name or URI (after
 * decoding a `=?base64?…?=` value; whitespace around it is allowed). Names are case-insensitive,
 * values are not. A missing, mismatched or undecodable header throws -32020 (HTTP 400), whose
 * `data.mismatch` names the header and both values.
 */
export function checkStatelessHeaders(headers: RequestHeaders, method: string, params: JsonObject | undefined, protocolVersion: string): void {
  expect(headers, 'mcp-protocol-version', protocolVersion, false);
  expect(headers, 'mcp-method', method, false);
  const field = NAMED[method];
  if (field !== undefined) {
    const target = params?.[field];
    if (typeof target === 'string') expect(headers, 'mcp-name', target, true);
  }
}

function expect(headers: RequestHeaders, name: string, body: string, encoded: boolean): void {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (value === undefined) throw mismatch(name, undefined, body, `the ${name} header is missing`);
  const trimmed = value.trim();
  const header = encoded ? decodeHeaderValue(trimmed) : trimmed;
  if (header === undefined) throw mismatch(name, trimmed, body, `the ${name} header is not valid Base64`);
  if (header !== body) throw mismatch(name, header, body, `the ${name} header does not match the body`);
}

/**
 * A header value as the client meant it: `=?base64?<Base64 of UTF-8>?=` decoded (strictly: padding
 * and alphabet checked), anything else as it is; undefined for a sentinel that does not decode.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith('=?base64?') || !value.endsWith('?=') || value.length < 11) return value;
  const encoded = value.slice(9, -2);
  if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return undefined;
  const bytes = Buffer.from(encoded, 'base64');
  // Round trip: Node's decoder is lenient about what it skips; a valid value encodes back to itself.
  if (bytes.toString('base64') !== encoded) return undefined;
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return text.decode(bytes);
  } catch {
    return undefined;
  }
}

function mismatch(header: string, value: string | undefined, body: string, message: string): McpError {
  return new McpError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`, { mismatch: { header, value: value ?? null, body } });
}

/**
 * A value for `Mcp-Name` or `Mcp-Param-*` as a client must send it: as it is when it is plain
 * visible ASCII without surrounding whitespace, else (non-ASCII, control characters, surrounding
 * whitespace, or a value that looks like the sentinel itself) `=?base64?<Base64 of UTF-8>?=`.
 */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x20-\x7e]*$/.test(value) && value.trim() === value && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/**
 * The headers a 2026-07-28 POST of `method` carries, from its body: `MCP-Protocol-Version`,
 * `Mcp-Method`, and `Mcp-Name` for `tools/call`, `prompts/get` and `resources/read`.
 */
export function statelessRequestHeaders(method: string, params: JsonObject | undefined, protocolVersion: string): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': protocolVersion, 'mcp-method': method };
  const field = NAMED[method];
  const target = field === undefined ? undefined : params?.[field];
  if (typeof target === 'string') headers['mcp-name'] = encodeHeaderValue(target);
  return headers;
}

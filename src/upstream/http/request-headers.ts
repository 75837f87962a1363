import { ChainError } from '../../errors/chain-error.js';
import type { HttpOptions } from './http-options.js';
import { interpolateEnv } from './interpolate-env.js';

/** Headers mcp-chain sets itself; configured headers may not replace them. */
const RESERVED = new Set(['accept', 'content-type', 'content-length', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'host']);

/**
 * The static headers of every request to the server: the configured ones and the bearer token,
 * with `${NAME}` references resolved now (so a missing variable fails at startup, not on the first
 * call). Names are lower-cased; the values are secrets and are never logged.
 */
export function requestHeaders(options: Pick<HttpOptions, 'headers' | 'bearer' | 'env'>): Readonly<Record<string, string>> {
  const env = options.env ?? process.env;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const key = name.trim().toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(key)) throw new ChainError('CONFIG', `invalid header name ${JSON.stringify(name)}`);
    if (RESERVED.has(key)) throw new ChainError('CONFIG', `header ${name} is set by mcp-chain and cannot be configured`);
    headers[key] = checkValue(interpolateEnv(value, env, `header ${name}`), `header ${name}`);
  }
  if (options.bearer !== undefined) {
    if (headers.authorization !== undefined) throw new ChainError('CONFIG', 'give either a bearer token or an Authorization header, not both');
    const token = interpolateEnv(options.bearer, env, 'the bearer token').trim();
    if (token === '') throw new ChainError('CONFIG', 'the bearer token is empty');
    headers.authorization = `Bearer ${checkValue(token, 'the bearer token')}`;
  }
  return Object.freeze(headers);
}

function checkValue(value: string, what: string): string {
  if (/[\r\n\0]/.test(value)) throw new ChainError('CONFIG', `${what} contains a line break or NUL`);
  return value;
}

import { ChainError } from '../../errors/chain-error.js';
import { displayUrl } from './display-url.js';
import type { HttpOptions } from './http-options.js';
import { requestHeaders } from './request-headers.js';

/** An HttpOptions checked and resolved once, when the upstream is made. */
export interface HttpTarget {
  readonly url: URL;
  /** The URL as logs and error messages show it (no credentials, no query). */
  readonly server: string;
  /** The name in logs. */
  readonly name: string;
  /** Static headers, `${NAME}` references resolved. Secret: never logged. */
  readonly headers: Readonly<Record<string, string>>;
  readonly maxMessageBytes: number;
  readonly closeTimeoutMs: number;
}

/** Checks the options; a bad URL or an unset `${NAME}` throws a ChainError('CONFIG') at once. */
export function httpTarget(options: HttpOptions): HttpTarget {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new ChainError('CONFIG', `not a valid URL: ${String(options.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ChainError('CONFIG', `an HTTP upstream needs an http: or https: URL, got ${url.protocol}`);
  }
  url.hash = '';
  const headers = requestHeaders(options);
  if (options.auth !== undefined && options.oauth !== undefined) throw new ChainError('CONFIG', 'give either oauth or auth, not both');
  if ((options.auth !== undefined || options.oauth !== undefined) && headers.authorization !== undefined) {
    throw new ChainError('CONFIG', 'give either OAuth or a bearer token / Authorization header, not both');
  }
  return {
    url,
    server: displayUrl(url),
    name: options.name ?? url.host,
    headers,
    maxMessageBytes: options.maxMessageBytes ?? 4 * 1024 * 1024,
    closeTimeoutMs: options.closeTimeoutMs ?? 1000,
  };
}

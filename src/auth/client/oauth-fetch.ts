/**
 * @module
 * oauth4webapi's HTTP, through the gateway's bounded fetch: every URL it fetches (metadata,
 * registration, token endpoints, all learned from the network) passes the fetch policy (https
 * only except loopback, never link-local or cloud metadata, addresses pinned), within a deadline
 * and a size bound, and no redirect is followed.
 */
import { allowInsecureRequests, customFetch, type CustomFetchOptions } from 'oauth4webapi';
import { fetchBounded, type BoundedFetchLimits } from '../bounded-fetch.js';
import { isLoopbackAddress } from '../fetch-policy.js';

/** The bounds and policy of OAuth fetches. Defaults: 10 s, 256 KiB, plain http only to loopback. */
export interface OAuthFetchOptions extends Partial<BoundedFetchLimits> {
  /** Aborts every fetch made with these options. */
  readonly signal?: AbortSignal | undefined;
}

/** Default deadline of one OAuth fetch, ms. */
export const OAUTH_FETCH_TIMEOUT_MS = 10_000;
/** Default size bound of one OAuth answer, bytes. */
export const OAUTH_FETCH_MAX_BYTES = 256 * 1024;

/** The fetch oauth4webapi calls (its `[customFetch]`). */
export type OAuthFetch = (url: string, init: CustomFetchOptions<string, unknown>) => Promise<Response>;

/** The options with their defaults filled in. */
export function oauthFetchLimits(options: OAuthFetchOptions = {}): BoundedFetchLimits {
  return {
    timeoutMs: options.timeoutMs ?? OAUTH_FETCH_TIMEOUT_MS,
    maxBytes: options.maxBytes ?? OAUTH_FETCH_MAX_BYTES,
    ...(options.allowHttpLoopback === undefined ? {} : { allowHttpLoopback: options.allowHttpLoopback }),
    ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
  };
}

function bodyText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString('utf8');
  throw new TypeError('oauthFetch: unsupported request body');
}

/**
 * A fetch for oauth4webapi's `[customFetch]` (and for the metadata fetches of discovery) built on
 * `fetchBounded`: `GET` or `POST` with a string body, answered with a whole `Response`. Rejects
 * with a `FetchPolicyError` (URL refused) or a `BoundedFetchError` (timeout, too large, redirect,
 * network); a redirect is never followed.
 */
export function oauthFetch(options: OAuthFetchOptions = {}): OAuthFetch {
  const limits = oauthFetchLimits(options);
  return async (url, init) => {
    const method = init.method.toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new TypeError(`oauthFetch: method ${method} is not used by OAuth`);
    const signals = [options.signal, init.signal].filter((s): s is AbortSignal => s !== undefined);
    const body = bodyText(init.body);
    const answer = await fetchBounded(
      url,
      {
        method,
        headers: init.headers,
        ...(body === undefined ? {} : { body }),
        redirect: 'error',
        ...(signals.length === 0 ? {} : { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) }),
      },
      limits,
    );
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) headers.set(name, value);
    const status = answer.status >= 200 && answer.status <= 599 ? answer.status : 502;
    const empty = status === 204 || status === 205 || status === 304;
    return new Response(empty ? null : new Uint8Array(answer.body), { status, headers });
  };
}

/** Whether a URL is plain http to a loopback host (the only http oauth4webapi is allowed). */
function isHttpLoopback(url: string | URL | undefined): boolean {
  if (url === undefined) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:') return false;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host);
}

/** The HTTP options of an oauth4webapi call. */
export interface OAuthHttpOptions {
  [customFetch]: OAuthFetch;
  [allowInsecureRequests]?: boolean;
}

/**
 * oauth4webapi's HTTP options for a request to `endpoint`: our fetch, and `[allowInsecureRequests]`
 * only when the endpoint is plain http to loopback (the fetch policy refuses any other http).
 */
export function oauthHttpOptions(options: OAuthFetchOptions, endpoint: string | URL | undefined): OAuthHttpOptions {
  return {
    [customFetch]: oauthFetch(options),
    ...(isHttpLoopback(endpoint) && options.allowHttpLoopback !== false ? { [allowInsecureRequests]: true } : {}),
  };
}

import type { IncomingMessage } from 'node:http';
import { HttpError } from '../../errors/http-error.js';

export interface OriginGuardOptions {
  /**
   * Origins (`scheme://host[:port]`) a browser page may call from. Default: pages served from
   * loopback (`localhost`, `127.0.0.1`, `[::1]`, any port). `'*'` admits any origin.
   */
  allowedOrigins?: readonly string[];
  /**
   * Host names the server answers to. Default: when bound to a loopback address, only loopback
   * names (against DNS rebinding); otherwise any.
   */
  allowedHosts?: readonly string[];
  /** Whether the server listens on a loopback address only. */
  loopback: boolean;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * DNS-rebinding protection: checks `Host` (when bound to loopback, or when an allow-list is given)
 * and `Origin` (when present) on every request. Returns the origin to reflect in CORS headers
 * (only an admitted one; never a wildcard), or throws 403.
 */
export function checkOrigin(req: IncomingMessage, options: OriginGuardOptions): string | undefined {
  const hosts = valuesOf(req, 'host');
  if (hosts.length > 1) throw forbidden('more than one Host header');
  const [host] = hosts;
  if (host !== undefined && (options.allowedHosts !== undefined || options.loopback)) {
    const name = hostOf(host);
    const admitted = options.allowedHosts
      ? name !== undefined && options.allowedHosts.some((allowed) => allowed.toLowerCase() === name)
      : name !== undefined && LOOPBACK_NAMES.has(name);
    if (!admitted) throw forbidden(`Host ${host} is not allowed`);
  }

  const origins = valuesOf(req, 'origin');
  if (origins.length === 0) return undefined;
  if (origins.length !== 1) throw forbidden('more than one Origin header');
  const [origin = ''] = origins;
  if (origin === 'null') throw forbidden('Origin null is not allowed');
  const normalized = originOf(origin);
  if (normalized === undefined) throw forbidden(`Origin ${origin} is not a valid origin`);
  const allowed = options.allowedOrigins;
  if (allowed === undefined) {
    const name = hostnameOf(normalized);
    if (name !== undefined && LOOPBACK_NAMES.has(name)) return origin;
  } else if (allowed.includes('*') || allowed.some((entry) => originOf(entry) === normalized)) {
    return origin;
  }
  throw forbidden(`Origin ${origin} is not allowed`);
}

/**
 * Every value of a header as sent, duplicates included (Node joins or drops duplicates in
 * `req.headers`); read from `rawHeaders`, which the parser has built anyway.
 */
function valuesOf(req: IncomingMessage, lowerCaseName: string): string[] {
  const raw = req.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) values.push(raw[i + 1] ?? '');
  }
  return values;
}

/** Host names by `Host` header value: a client sends the same one every time (bounded). */
const hostNames = new Map<string, string | undefined>();

function hostOf(header: string): string | undefined {
  if (hostNames.has(header)) return hostNames.get(header);
  const name = hostnameOf(`http://${header}`);
  if (hostNames.size >= 256) hostNames.clear();
  hostNames.set(header, name);
  return name;
}

function forbidden(reason: string): HttpError {
  return new HttpError(403, `Forbidden: ${reason}`);
}

/** `scheme://host[:port]` of an http(s) origin, or undefined if it is not one (paths, userinfo). */
function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '')) return undefined;
    if (value.endsWith('/') || url.search !== '' || url.hash !== '') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

function hostnameOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.password !== '' || parsed.pathname !== '/') return undefined;
    return parsed.hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

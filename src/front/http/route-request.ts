import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../../errors/http-error.js';
import { writeRedirectPage, type RedirectPage } from '../../auth/client/redirect-page.js';
import type { Identity } from '../../core/session-info.js';
import type { Authenticator } from './authenticator.js';
import { answerCors } from './cors.js';
import type { LegacySseEndpoint } from './legacy-sse-endpoint.js';
import type { OriginGuardOptions } from './origin-guard.js';
import type { StreamableHttpEndpoint } from './streamable-http-endpoint.js';

export interface Routes {
  /** The Streamable HTTP endpoint's path. */
  path: string;
  streamable: StreamableHttpEndpoint;
  /** The legacy HTTP+SSE front, when it is served. */
  legacy: { endpoint: LegacySseEndpoint; ssePath: string; messagesPath: string } | undefined;
  guard: OriginGuardOptions;
  authenticate: Authenticator | undefined;
  /** The Protected Resource Metadata (RFC 9728) when the front is an OAuth resource server: its paths and its JSON. */
  metadata?: { readonly paths: readonly string[]; readonly body: string } | undefined;
  /**
   * Login redirects of remote servers' OAuth coming to this front (`deliverRedirect` of
   * redirect-router.ts): the page for a GET on a path a login waits on, else undefined.
   */
  redirects?: ((url: URL) => RedirectPage | undefined) | undefined;
}

/**
 * The HTTP front's request handler: the gate every request passes first (`Host`/`Origin` 403,
 * CORS and its preflight, then 404 for an unknown path, then authentication 401), then the
 * endpoint of its path. A GET on a path where a login to a remote server waits for its redirect
 * is answered before authentication (the browser has no token; the login's `state` is the
 * credential). Refusals are thrown as `HttpError`s for the caller to write.
 */
export function routeRequest(routes: Routes): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { path, streamable, legacy, guard, authenticate, metadata, redirects } = routes;
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mcp-chain.invalid');
    // Public by design (RFC 9728): any page may read it, before the origin and host checks.
    if (metadata !== undefined && metadata.paths.includes(url.pathname)) return answerMetadata(req, res, metadata.body);
    if (answerCors(req, res, guard)) return;
    const known = url.pathname === path || (legacy !== undefined && (url.pathname === legacy.ssePath || url.pathname === legacy.messagesPath));
    if (!known) {
      const page = req.method === 'GET' ? redirects?.(url) : undefined;
      if (page !== undefined) return writeRedirectPage(res, page);
      throw new HttpError(404, `Not Found: ${url.pathname}`);
    }
    const checked = authenticate?.(req);
    const identity: Identity | undefined = checked instanceof Promise ? await checked : checked;
    if (url.pathname === path) return streamable.handle(req, res, identity);
    if (url.pathname === legacy?.ssePath) return legacy.endpoint.open(req, res, identity);
    return legacy?.endpoint.post(req, res, url, identity);
  };
}

function answerMetadata(req: IncomingMessage, res: ServerResponse, body: string): void {
  const cors = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS', 'access-control-allow-headers': 'mcp-protocol-version' };
  if (req.method === 'OPTIONS') {
    res.writeHead(204, cors).end();
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, `Method Not Allowed: ${req.method ?? ''}`, { headers: { allow: 'GET, OPTIONS' } });
  res.writeHead(200, { ...cors, 'content-type': 'application/json', 'cache-control': 'public, max-age=300', 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../../errors/http-error.js';
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
}

/**
 * The HTTP front's request handler: the gate every request passes first (`Host`/`Origin` 403,
 * CORS and its preflight, then 404 for an unknown path, then authentication 401), then the
 * endpoint of its path. Refusals are thrown as `HttpError`s for the caller to write.
 */
export function routeRequest(routes: Routes): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { path, streamable, legacy, guard, authenticate } = routes;
  return async (req, res) => {
    if (answerCors(req, res, guard)) return;
    const url = new URL(req.url ?? '/', 'http://mcp-chain.invalid');
    const known = url.pathname === path || (legacy !== undefined && (url.pathname === legacy.ssePath || url.pathname === legacy.messagesPath));
    if (!known) throw new HttpError(404, `Not Found: ${url.pathname}`);
    const identity: Identity | undefined = authenticate?.(req);
    if (url.pathname === path) return streamable.handle(req, res, identity);
    if (url.pathname === legacy?.ssePath) return legacy.endpoint.open(req, res, identity);
    return legacy?.endpoint.post(req, res, url, identity);
  };
}

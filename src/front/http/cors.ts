import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkOrigin, type OriginGuardOptions } from './origin-guard.js';

/**
 * The first step of every request: `Host`/`Origin` are checked (403, see {@link checkOrigin}); an
 * admitted origin is reflected in the CORS headers, and its preflight (`OPTIONS`) is answered
 * here. Returns true when the request has been answered.
 */
export function answerCors(req: IncomingMessage, res: ServerResponse, guard: OriginGuardOptions): boolean {
  const origin = checkOrigin(req, guard);
  if (origin === undefined) return false;
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('vary', 'Origin');
  res.setHeader('access-control-expose-headers', 'mcp-session-id, www-authenticate');
  if (req.method !== 'OPTIONS') return false;
  res.writeHead(204, {
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-headers': 'content-type, accept, authorization, x-api-key, mcp-session-id, mcp-protocol-version, last-event-id',
    'access-control-max-age': '600',
  }).end();
  return true;
}

import { withEras } from '../../eras/era-connection.js';
import type { Upstream } from '../../core/upstream.js';
import type { HttpOptions } from './http-options.js';
import { StreamableHttpTransport } from './streamable-http-transport.js';
import { remoteUpstream } from './remote-upstream.js';

/**
 * A remote MCP server over Streamable HTTP, one HTTP session per downstream session; a server that
 * refuses `initialize` with 400, 404 or 405 is tried with the legacy HTTP+SSE transport instead.
 * Configuration mistakes (a bad URL, an unset `${NAME}`) throw a ChainError('CONFIG') at once.
 *
 * @example
 * chain().use(filter({ tools: { deny: ['delete_*'] } })).to(http({ url: 'https://mcp.example.com/mcp', bearer: '${API_TOKEN}' }))
 */
export function http(options: HttpOptions): Upstream {
  // A server that answers server/discover is spoken to in 2026-07-28 (see withEras).
  return withEras(remoteUpstream(options, (transport) => new StreamableHttpTransport({ ...transport, fallback: true })), { probe: 'discover' });
}

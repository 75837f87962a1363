import { SessionReplay } from '../session-replay.js';
import type { Upstream } from '../upstream.js';
import { HttpClient } from './http-client.js';
import { HttpConnection } from './http-connection.js';
import type { HttpOptions } from './http-options.js';
import { httpTarget } from './http-target.js';
import { StreamableHttpTransport } from './streamable-http-transport.js';

/**
 * A remote MCP server over Streamable HTTP, one HTTP session per downstream session; a server that
 * refuses `initialize` with 400, 404 or 405 is tried with the legacy HTTP+SSE transport instead.
 * Configuration mistakes (a bad URL, an unset `${NAME}`) throw a ChainError('CONFIG') at once.
 *
 * @example
 * chain().use(filter({ tools: { deny: ['delete_*'] } })).to(http({ url: 'https://mcp.example.com/mcp', bearer: '${API_TOKEN}' }))
 */
export function http(options: HttpOptions): Upstream {
  const target = httpTarget(options);
  const client = new HttpClient();
  return {
    connect: (downstream, session) => {
      const log = session.log.child({ upstream: target.name });
      const replay = new SessionReplay();
      const transport = new StreamableHttpTransport({ target, client, replay, log, fallback: true });
      return new HttpConnection(transport, replay, downstream, log, target.server);
    },
    close: () => {
      client.destroy();
      return Promise.resolve();
    },
  };
}

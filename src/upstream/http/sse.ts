import { SessionReplay } from '../session-replay.js';
import type { Upstream } from '../upstream.js';
import { HttpClient } from './http-client.js';
import { HttpConnection } from './http-connection.js';
import type { HttpOptions } from './http-options.js';
import { httpTarget } from './http-target.js';
import { LegacySseTransport } from './legacy-sse-transport.js';

/**
 * A remote MCP server over the legacy HTTP+SSE transport (2024-11-05) only: `url` is its SSE
 * endpoint (often `/sse`). Prefer {@link http}, which falls back to this by itself.
 */
export function sse(options: HttpOptions): Upstream {
  const target = httpTarget(options);
  const client = new HttpClient();
  return {
    connect: (downstream, session) => {
      const log = session.log.child({ upstream: target.name });
      const replay = new SessionReplay();
      return new HttpConnection(new LegacySseTransport({ target, client, replay, log }), replay, downstream, log, target.server);
    },
    close: () => {
      client.destroy();
      return Promise.resolve();
    },
  };
}

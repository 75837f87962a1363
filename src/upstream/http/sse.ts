import type { Upstream } from '../../core/upstream.js';
import type { HttpOptions } from './http-options.js';
import { LegacySseClientTransport } from './legacy-sse-client-transport.js';
import { remoteUpstream } from './remote-upstream.js';

/**
 * A remote MCP server over the legacy HTTP+SSE transport (2024-11-05) only: `url` is its SSE
 * endpoint (often `/sse`). Prefer {@link http}, which falls back to this by itself.
 */
export function sse(options: HttpOptions): Upstream {
  return remoteUpstream(options, (transport) => new LegacySseClientTransport(transport));
}

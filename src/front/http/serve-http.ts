import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError } from '../../errors/http-error.js';
import type { Logger } from '../../log/logger.js';
import { stderrLogger } from '../../log/stderr-logger.js';
import type { SessionOptions } from '../../session/session.js';
import type { Identity } from '../../core/session-info.js';
import type { Upstream } from '../../core/upstream.js';
import { authenticator, type AuthOptions, type Authenticator } from './authenticator.js';
import { MemoryEventStore, type EventStore } from './event-store.js';
import { LegacySseEndpoint } from './legacy-sse-endpoint.js';
import { checkOrigin } from './origin-guard.js';
import { StreamableHttpEndpoint } from './streamable-http-endpoint.js';

export interface ServeHttpOptions extends SessionOptions {
  /** Address to listen on. Default `127.0.0.1` (loopback only). */
  host?: string;
  /** Port; 0 picks a free one. Default 3000. */
  port?: number;
  /** The MCP endpoint (Streamable HTTP). Default `/mcp`. */
  path?: string;
  /** Also serve the legacy HTTP+SSE transport (2024-11-05) at `/sse` and `/messages`. Default false. */
  sse?: boolean | { path?: string; messagesPath?: string };
  /** Origins browsers may call from (default: loopback pages only); see {@link checkOrigin}. */
  allowedOrigins?: readonly string[];
  /** Host names accepted in `Host` (default: loopback names when bound to loopback). */
  allowedHosts?: readonly string[];
  /** Require a bearer token or API key. */
  auth?: AuthOptions;
  /** Largest request body. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Most live sessions. Default 1000. */
  maxSessions?: number;
  /** Most requests in flight per session. Default 100. */
  maxInFlightPerSession?: number;
  /** A session with no request and no open stream for this long ends. Default 30 minutes. */
  sessionTtlMs?: number;
  /** Where SSE events are kept for resumption; `false` disables resumption. Default: in memory, bounded. */
  eventStore?: EventStore | false;
  /** Offer the standalone GET stream. Default true. */
  standaloneSse?: boolean;
  /** How often open SSE streams get a keep-alive comment (idle proxies cut quiet ones); 0 never. Default 25 s. */
  sseKeepAliveMs?: number;
  log?: Logger;
}

export interface HttpFront {
  /** The MCP endpoint's URL. */
  readonly url: string;
  readonly server: Server;
  /** Live sessions, of both transports. */
  readonly sessions: number;
  /** Stops accepting, ends every session (closing their upstreams), and closes the server. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * Serves `upstream` (usually a Chain) over HTTP: Streamable HTTP on one endpoint, and optionally
 * the legacy HTTP+SSE transport. Every request passes the same gate first: `Host`/`Origin`
 * (403), CORS preflight, authentication (401); each client session gets its own upstream
 * connections.
 */
export async function serveHttp(upstream: Upstream, options: ServeHttpOptions = {}): Promise<HttpFront> {
  const log = options.log ?? stderrLogger();
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxSessions = options.maxSessions ?? 1000;
  const { allowedOrigins, allowedHosts, serverInfo, timeouts } = options;
  const sessionOptions: SessionOptions = { log, ...(serverInfo ? { serverInfo } : {}), ...(timeouts ? { timeouts } : {}) };
  const guard = { loopback: LOOPBACK.has(host), ...(allowedOrigins ? { allowedOrigins } : {}), ...(allowedHosts ? { allowedHosts } : {}) };
  const authenticate: Authenticator | undefined = options.auth && authenticator(options.auth);
  const sessionCount = (): number => streamable.size + (legacy?.size ?? 0);
  const admitSession = (): void => {
    if (sessionCount() >= maxSessions) {
      throw new HttpError(503, `Service Unavailable: the server already has ${maxSessions} sessions`, { headers: { 'retry-after': '5' } });
    }
  };

  const streamable = new StreamableHttpEndpoint({
    upstream,
    session: sessionOptions,
    log,
    store: options.eventStore === false ? undefined : (options.eventStore ?? new MemoryEventStore()),
    standaloneSse: options.standaloneSse ?? true,
    maxBodyBytes,
    admitSession,
    maxInFlightPerSession: options.maxInFlightPerSession ?? 100,
  });
  const sse = options.sse === true ? {} : options.sse || undefined;
  const ssePath = sse?.path ?? '/sse';
  const messagesPath = sse?.messagesPath ?? '/messages';
  const legacy = sse && new LegacySseEndpoint({ upstream, session: sessionOptions, messagesPath, maxBodyBytes, admitSession });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const origin = checkOrigin(req, guard);
    if (origin !== undefined) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'Origin');
      res.setHeader('access-control-expose-headers', 'mcp-session-id, www-authenticate');
    }
    if (req.method === 'OPTIONS' && origin !== undefined) {
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
        'access-control-allow-headers': 'content-type, accept, authorization, x-api-key, mcp-session-id, mcp-protocol-version, last-event-id',
        'access-control-max-age': '600',
      }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://mcp-chain.invalid');
    const known = url.pathname === path || (legacy !== undefined && (url.pathname === ssePath || url.pathname === messagesPath));
    if (!known) throw new HttpError(404, `Not Found: ${url.pathname}`);
    const identity: Identity | undefined = authenticate?.(req);
    if (url.pathname === path) return streamable.handle(req, res, identity);
    if (url.pathname === ssePath) return legacy?.open(req, res, identity);
    return legacy?.post(req, res, url, identity);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => respondWithError(res, error, log));
  });
  // Long SSE streams and slow tools: no idle timeout on responses; headers must still come quickly.
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}${path}`;

  const ttl = options.sessionTtlMs ?? 30 * 60_000;
  const sweeper = setInterval(() => streamable.expire(ttl), Math.max(1000, Math.min(ttl / 4, 60_000)));
  sweeper.unref();
  const keepAliveMs = options.sseKeepAliveMs ?? 25_000;
  const keepAlive = keepAliveMs > 0
    ? setInterval(() => {
        streamable.keepAlive();
        legacy?.keepAlive();
      }, keepAliveMs)
    : undefined;
  keepAlive?.unref();

  let closing: Promise<void> | undefined;
  return {
    url,
    server,
    get sessions() {
      return sessionCount();
    },
    close: () => (closing ??= (async () => {
      clearInterval(sweeper);
      clearInterval(keepAlive);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([streamable.close(), legacy?.close()]);
      server.closeAllConnections();
      await stopped;
    })()),
  };
}

/** The one place HTTP errors reach the wire. */
function respondWithError(res: ServerResponse, error: unknown, log: Logger): void {
  const httpError = error instanceof HttpError ? error : new HttpError(500, 'Internal Server Error', { code: -32603 });
  if (!(error instanceof HttpError)) log.error('HTTP request failed', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(httpError.status, { 'content-type': 'application/json', ...httpError.headers });
  res.end(httpError.body());
}

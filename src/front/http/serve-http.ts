import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { ChainError } from '../../errors/chain-error.js';
import { deliverRedirect, serveRedirects } from '../../auth/client/redirect-router.js';
import { HttpError } from '../../errors/http-error.js';
import type { Logger } from '../../log/logger.js';
import { stderrLogger } from '../../log/stderr-logger.js';
import type { SessionOptions } from '../../session/session.js';
import type { Upstream } from '../../core/upstream.js';
import { authenticator, type AuthOptions } from './authenticator.js';
import { metadataPaths, oauthAuthenticator, protectedResourceMetadata, scopeChallenge, type OAuthResourceOptions } from './oauth-resource.js';
import { applyConnectionPolicy } from './connection-policy.js';
import { MemoryEventStore, type EventStore } from './event-store.js';
import { LegacySseEndpoint } from './legacy-sse-endpoint.js';
import { isLoopbackHost } from './loopback-host.js';
import type { OriginGuardOptions } from './origin-guard.js';
import { routeRequest, type Routes } from './route-request.js';
import { SessionAdmission } from './session-admission.js';
import { SessionTable } from './session-table.js';
import { StreamableHttpEndpoint } from './streamable-http-endpoint.js';
import { StatelessHttpEndpoint } from './stateless-endpoint.js';
import { RequestStateCodec } from '../../eras/request-state.js';
import { ERA_BRIDGE_DEFAULTS } from '../../eras/era-bridge.js';

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
  /**
   * Be an OAuth resource server: serve the Protected Resource Metadata (RFC 9728) and accept the
   * access tokens its verifier accepts (beside `auth`'s static tokens, which keep working).
   */
  oauth?: OAuthResourceOptions;
  /**
   * Listen beyond loopback (any `host` but localhost, 127.0.0.0/8, ::1) without `auth`: refused
   * (a ChainError) unless this is true, and then said in one warning line. Default false.
   */
  allowUnauthenticated?: boolean;
  /** Largest request body. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Most live sessions. Default 1000. */
  maxSessions?: number;
  /**
   * Most sessions starting at once (their `initialize` received, not yet answered: a gateway
   * spawns its stdio servers then, which blocks the event loop while each child starts). The next
   * 256 wait their turn for up to 10 s; beyond, 503 with `Retry-After: 1`. Default: twice the
   * cores, at least 4.
   */
  maxStartingSessions?: number;
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
  /** Stops accepting, ends every session at once (closing their upstreams), and closes the server. */
  close(): Promise<void>;
  /**
   * Graceful shutdown, in front of `close()`. While it lasts the server still listens, but a new
   * session (`initialize`, or a legacy `GET /sse`) and a new request in a session get 503 with
   * `Retry-After` (a JSON-RPC error -32000 with the request's id in the body), and every response
   * says `Connection: close`; the client's answers to the server's requests (sampling, elicitation)
   * and its notifications (cancellations) are still taken, so the calls in flight can complete.
   * Each session ends as soon as nothing is in flight in it (an idle one at once). What is still
   * in flight after `deadlineMs` (0: at once) is cancelled upstream (`notifications/cancelled`)
   * and answered -32000 ("the call was cancelled after the drain deadline of N ms"); then the
   * front closes as `close()` does. Logs one info line when it starts (sessions and calls in
   * flight) and one when it is done. Calling it again returns the same promise; `close()` during
   * a drain cuts it short.
   */
  drain(deadlineMs: number): Promise<void>;
}

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
  const open = !isLoopbackHost(host) && (options.auth?.tokens.length ?? 0) === 0 && options.oauth === undefined;
  if (open && options.allowUnauthenticated !== true) {
    throw new ChainError('CONFIG', `serveHttp: ${host} listens beyond this machine without auth: give auth, or allowUnauthenticated: true to answer anyone who can reach it`);
  }
  // One table for both fronts: the session limit, expiry and shutdown cover them all.
  const sessions = new SessionTable({ maxSessions: options.maxSessions ?? 1000, log });
  const handle = routeRequest(routesOf(upstream, options, { log, host, path, sessions }));

  const server = createServer((req, res) => {
    // Draining: every response says Connection: close (clients reconnect elsewhere).
    if (sessions.draining) res.shouldKeepAlive = false;
    handle(req, res).catch((error: unknown) => respondWithError(res, error, log));
  });
  // Long SSE streams and slow tools: no idle timeout on responses; headers must still come quickly.
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;
  const connections = applyConnectionPolicy(server);
  const address = await listen(server, options.port ?? 3000, host);
  const url = endpointUrl(address, path);
  // Logins of remote servers' OAuth may redirect here (redirect-router.ts); on loopback, by this port.
  const stopRedirects = serveRedirects(answersLoopback(host) ? address.port : undefined);
  if (open) log.warn('unauthenticated by choice: this endpoint answers anyone who can reach it, without a token', { url });
  const stopUpkeep = sessions.startUpkeep(options.sessionTtlMs ?? 30 * 60_000, options.sseKeepAliveMs ?? 25_000);

  let closing: Promise<void> | undefined;
  let draining: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= (async () => {
    stopUpkeep();
    stopRedirects();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    const drained = connections.close();
    await sessions.close();
    await drained;
    await stopped;
  })());
  return {
    url,
    server,
    get sessions() {
      return sessions.size;
    },
    close,
    drain: (deadlineMs) => (draining ??= (async () => {
      if (closing === undefined) {
        const started = Date.now();
        log.info('draining: no new sessions or requests; calls in flight may finish', { sessions: sessions.size, inFlight: sessions.inFlight, deadlineMs });
        const { inFlight, cancelled } = await sessions.drain(deadlineMs);
        log.info('drained', { finished: inFlight - cancelled, cancelled, ms: Date.now() - started });
      }
      await close();
    })()),
  };
}

/** What {@link routesOf} needs beside the user's options. */
interface Basics {
  log: Logger;
  host: string;
  path: string;
  sessions: SessionTable;
}

/** The endpoints (Streamable HTTP, and legacy HTTP+SSE if asked for) and the gate before them. */
function routesOf(upstream: Upstream, options: ServeHttpOptions, basics: Basics): Routes {
  const { log, host, path, sessions } = basics;
  const { allowedOrigins, allowedHosts, serverInfo, timeouts } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const session: SessionOptions = { log, ...(serverInfo ? { serverInfo } : {}), ...(timeouts ? { timeouts } : {}) };
  const guard: OriginGuardOptions = { loopback: isLoopbackHost(host), ...(allowedOrigins ? { allowedOrigins } : {}), ...(allowedHosts ? { allowedHosts } : {}) };
  const streamable = new StreamableHttpEndpoint({
    upstream,
    session,
    log,
    store: options.eventStore === false ? undefined : (options.eventStore ?? new MemoryEventStore()),
    standaloneSse: options.standaloneSse ?? true,
    maxBodyBytes,
    sessions,
    maxInFlightPerSession: options.maxInFlightPerSession ?? 100,
    admission: new SessionAdmission({ maxStarting: options.maxStartingSessions ?? Math.max(4, 2 * availableParallelism()) }),
    // A lone -32004 of requireScopes becomes a 403 step-up challenge, where there is OAuth to step up with.
    scopeChallenge: options.oauth && scopeChallenge(options.oauth),
    stateless: new StatelessHttpEndpoint({
      upstream,
      session,
      log,
      sessions,
      codec: new RequestStateCodec({ ttlMs: ERA_BRIDGE_DEFAULTS.inputTimeoutMs }),
      maxInFlightPerSession: options.maxInFlightPerSession ?? 100,
      scopeChallenge: options.oauth && scopeChallenge(options.oauth),
    }),
  });
  const sse = options.sse === true ? {} : options.sse || undefined;
  const messagesPath = sse?.messagesPath ?? '/messages';
  const legacy = sse && {
    endpoint: new LegacySseEndpoint({ upstream, session, messagesPath, maxBodyBytes, sessions }),
    ssePath: sse.path ?? '/sse',
    messagesPath,
  };
  const { oauth, auth } = options;
  return {
    path,
    streamable,
    legacy,
    guard,
    authenticate: oauth ? oauthAuthenticator(oauth, auth) : auth && authenticator(auth),
    metadata: oauth && { paths: metadataPaths(oauth.resource), body: JSON.stringify(protectedResourceMetadata(oauth)) },
    redirects: deliverRedirect,
  };
}

/** Whether a front bound to `host` answers on a loopback address (a loopback or wildcard one). */
function answersLoopback(host: string): boolean {
  return isLoopbackHost(host) || host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** Listens on `host:port` (0: a free port), resolving once bound, rejecting if it cannot be. */
async function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}

/** The URL clients use, with the address actually bound (an IPv6 one in brackets). */
function endpointUrl(address: AddressInfo, path: string): string {
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shownHost}:${address.port}${path}`;
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

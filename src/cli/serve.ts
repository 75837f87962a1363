import { chain } from '../chain/chain.js';
import { ChainError } from '../errors/chain-error.js';
import { serveStdio } from '../front/serve-stdio.js';
import type { Logger } from '../log/logger.js';
import { stderrLogger } from '../log/stderr-logger.js';
import type { SessionOptions } from '../session/session.js';
import { http } from '../upstream/http/http.js';
import { shared } from '../upstream/shared/shared.js';
import type { SpawnedServer } from '../upstream/spawn-server.js';
import { stdio } from '../upstream/stdio.js';
import type { Upstream } from '../core/upstream.js';
import { loadChainFile } from './load-chain-file.js';
import { serveHttpUntilSignal } from './serve-http-until-signal.js';
import type { HttpListen, ServeRequest } from './serve-request.js';
import { version } from './version.js';

/**
 * Serves what the command line asked for, on stdio until the client goes away or on HTTP until a
 * signal; resolves with the exit code. `prestarted` is the server process the entry point already
 * started.
 */
export async function serve(request: ServeRequest, prestarted: SpawnedServer | undefined): Promise<number> {
  const log = stderrLogger(request.logLevel === undefined ? {} : { level: request.logLevel });
  const own = request.remote
    ? http(request.remote)
    : request.server && stdio({ ...request.server, ...(prestarted ? { prestarted } : {}) });
  const server = own && request.http?.shared ? shared(own, { log }) : own;
  let upstream: Upstream;
  let fileOptions: SessionOptions = {};
  if (request.file !== undefined) {
    const loaded = await loadChainFile(request.file);
    upstream = loaded.build(server);
    fileOptions = loaded.options;
  } else if (server) {
    upstream = chain().to(server);
  } else {
    return 2;
  }
  const options = sessionOptions(request, fileOptions, log);
  if (request.http) {
    const level = request.logLevel ?? process.env.MCP_CHAIN_LOG_LEVEL;
    await serveOnHttp(upstream, request.http, options, log, level === 'warn' || level === 'error', request.drainMs);
  } else {
    const front = await serveStdio(upstream, {
      ...options,
      ...(request.maxMessageBytes === undefined ? {} : { maxMessageBytes: request.maxMessageBytes }),
      ...(request.drainMs === undefined ? {} : { drainMs: request.drainMs }),
    });
    await front.closed;
  }
  await upstream.close?.();
  return 0;
}

function sessionOptions(request: ServeRequest, fileOptions: SessionOptions, log: Logger): SessionOptions {
  const { timeout, maxTimeout: max, name } = request;
  return {
    ...fileOptions,
    log,
    ...(name === undefined ? {} : { serverInfo: { name, version: version() } }),
    ...(timeout === undefined && max === undefined
      ? {}
      : { timeouts: { ...fileOptions.timeouts, ...(timeout === undefined ? {} : { request: timeout }), ...(max === undefined ? {} : { max }) } }),
  };
}

/** Serves on HTTP until SIGINT or SIGTERM, which drain it for `drainMs` (a second one exits at once). */
async function serveOnHttp(upstream: Upstream, http: HttpListen, options: SessionOptions, log: Logger, quietLevel: boolean, drainMs: number | undefined): Promise<void> {
  const tokens = http.tokenEnv.map((name) => {
    const token = process.env[name];
    if (token === undefined || token === '') throw new ChainError('USAGE', `--token-env ${name}: the variable is not set`);
    return { id: name, token };
  });
  await serveHttpUntilSignal(
    upstream,
    {
      ...options,
      host: http.host,
      port: http.port,
      sse: http.sse,
      ...(tokens.length > 0 ? { auth: { tokens } } : {}),
      // serveRequest refused a bind beyond loopback without a token unless --allow-unauthenticated;
      // serveHttp then says so in one warning line.
      allowUnauthenticated: http.allowUnauthenticated,
      ...(http.allowedOrigins ? { allowedOrigins: http.allowedOrigins } : {}),
      ...(http.allowedHosts ? { allowedHosts: http.allowedHosts } : {}),
      ...(http.sessionTtlMs === undefined ? {} : { sessionTtlMs: http.sessionTtlMs }),
      ...(http.maxSessions === undefined ? {} : { maxSessions: http.maxSessions }),
      ...(http.maxStartingSessions === undefined ? {} : { maxStartingSessions: http.maxStartingSessions }),
    },
    log,
    quietLevel,
    drainMs,
  );
}

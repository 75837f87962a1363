import { introspectionVerifier } from '../auth/introspection-verifier.js';
import { jwtVerifier } from '../auth/jwt-verifier.js';
import { buildGateway, type BuiltGateway } from '../config/build-gateway.js';
import { ConfigError } from '../config/config-error.js';
import type { FrontConfig, GatewayConfig, OAuthFrontConfig } from '../config/gateway-config.js';
import { loadConfig } from '../config/load-config.js';
import type { ServeHttpOptions } from '../front/http/serve-http.js';
import { isLoopbackHost } from '../front/http/loopback-host.js';
import type { OAuthResourceOptions } from '../front/http/oauth-resource.js';
import { serveStdio } from '../front/serve-stdio.js';
import type { Logger } from '../log/logger.js';
import { stderrLogger } from '../log/stderr-logger.js';
import type { SessionOptions } from '../session/session.js';
import { configFileOf, reportConfigError } from './config-file.js';
import { reloadConfig, type ConfigReloader } from './reload-config.js';
import { serveHttpUntilSignal } from './serve-http-until-signal.js';
import type { ConfigServeRequest, HttpOverrides } from './serve-request.js';
import { UsageError } from './usage-error.js';
import { version } from './version.js';
import { watchConfig, type ConfigWatcher } from './watch-config.js';

/**
 * `mcp-chain serve [config-file]`: the gateway a config file describes, on stdio until the client
 * goes away, or on HTTP (`--http`, or the file's `http` section) until SIGINT or SIGTERM; resolves
 * with the exit code. A file with problems is reported on stderr (every problem, exit 1) before
 * anything starts. With `--watch`, changes to the file are applied as they are saved (see
 * {@link reloadConfig}). Loaded only when a config file is served: the config formats' libraries
 * stay out of the one-liners.
 */
export async function serveConfig(request: ConfigServeRequest): Promise<number> {
  const log = stderrLogger(request.logLevel === undefined ? {} : { level: request.logLevel });
  const file = configFileOf(request.file, 'serve');
  let config: GatewayConfig;
  let front: Front;
  let built: BuiltGateway;
  try {
    config = await loadConfig(file, { log });
    // The front is checked before anything is built: a refused front starts nothing.
    front = frontOf(config.front, request.http, log);
    built = await buildGateway(config, { log });
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(error, `not serving ${file}`);
    throw error;
  }
  const options = sessionOptions(built.sessionOptions, request, log);
  // On SIGTERM or SIGINT: --drain-ms, else the file's drainMs, else the default.
  const drainMs = request.drainMs ?? config.drainMs;
  let reloader: ConfigReloader | undefined;
  let watcher: ConfigWatcher | undefined;
  if (request.watch) {
    const reload = reloadConfig(config, built, { log, overrides: request.http });
    reloader = reload;
    watcher = watchConfig([config.file], () => reload.reload(), { log });
    log.info('watching the config file', { file: config.file });
  }
  try {
    if (front.kind === 'http') {
      const level = request.logLevel ?? process.env.MCP_CHAIN_LOG_LEVEL;
      await serveHttpUntilSignal(built.upstream, { ...options, ...front.options }, log, level === 'warn' || level === 'error', drainMs);
    } else {
      const stdio = await serveStdio(built.upstream, {
        ...options,
        ...(request.maxMessageBytes === undefined ? {} : { maxMessageBytes: request.maxMessageBytes }),
        ...(drainMs === undefined ? {} : { drainMs }),
      });
      await stdio.closed;
    }
  } finally {
    watcher?.close();
    reloader?.close();
    // A reload under way finishes (or drops what it built) before the servers are closed.
    await reloader?.idle();
    await built.upstream.close?.();
  }
  return 0;
}

type Front = { kind: 'stdio' } | { kind: 'http'; options: ServeHttpOptions };

/**
 * The front to serve: the file's, with every HTTP option given on the command line in place of the
 * file's; `--http` serves HTTP whatever the file says. HTTP options without HTTP, a token variable
 * that is not set, and a bind beyond loopback without a token (unless allowed in so many words)
 * are usage errors.
 */
function frontOf(file: FrontConfig, flags: HttpOverrides, log: Logger): Front {
  const fail = (message: string): never => {
    throw new UsageError(message, 'serve');
  };
  if (file.kind === 'stdio' && flags.listen === undefined) {
    const given = Object.entries(flags).filter(([name, value]) => name !== 'listen' && value !== undefined);
    if (given.length > 0) fail(`HTTP options need HTTP: add --http [host:]port, or an http section to the file`);
    return { kind: 'stdio' };
  }
  const fromFile = file.kind === 'http' ? file : undefined;
  const host = flags.listen?.host ?? fromFile?.host ?? '127.0.0.1';
  const port = flags.listen?.port ?? fromFile?.port ?? 0;
  const tokens =
    flags.tokenEnv === undefined
      ? (fromFile?.tokens ?? [])
      : flags.tokenEnv.map((name) => {
          const token = process.env[name];
          if (token === undefined || token === '') fail(`--token-env ${name}: the variable is not set`);
          return { id: name, token: token as string };
        });
  const allowUnauthenticated = flags.allowUnauthenticated ?? fromFile?.allowUnauthenticated ?? false;
  const oauth = fromFile?.oauth === undefined ? undefined : oauthOptions(fromFile.oauth, log);
  if (tokens.length === 0 && oauth === undefined && !allowUnauthenticated && !isLoopbackHost(host)) {
    fail(
      `serving on ${host} listens beyond this machine without a token: add tokens (or oauth) to the file's http section or --token-env <VAR>, ` +
        'or allow it (--allow-unauthenticated, or allowUnauthenticated in the file) to answer anyone who can reach it',
    );
  }
  const allowedOrigins = flags.allowedOrigins ?? fromFile?.allowedOrigins;
  const allowedHosts = flags.allowedHosts ?? fromFile?.allowedHosts;
  const sessionTtlMs = flags.sessionTtlMs ?? fromFile?.sessionTtlMs;
  const maxSessions = flags.maxSessions ?? fromFile?.maxSessions;
  const maxStartingSessions = flags.maxStartingSessions ?? fromFile?.maxStartingSessions;
  return {
    kind: 'http',
    options: {
      host,
      port,
      path: fromFile?.path ?? '/mcp',
      sse: flags.sse ?? fromFile?.sse ?? false,
      ...(tokens.length > 0 ? { auth: { tokens: tokens.map((t) => ({ id: t.id, token: t.token })) } } : {}),
      ...(oauth === undefined ? {} : { oauth }),
      allowUnauthenticated,
      ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
      ...(allowedHosts === undefined ? {} : { allowedHosts }),
      ...(sessionTtlMs === undefined ? {} : { sessionTtlMs }),
      ...(maxSessions === undefined ? {} : { maxSessions }),
      ...(maxStartingSessions === undefined ? {} : { maxStartingSessions }),
    },
  };
}

/**
 * The front's OAuth resource server, from `http.oauth`: a JWT verifier against the issuer's keys or
 * an introspection verifier (which logs the endpoint's failures, never the token or the secret).
 * Nothing is fetched yet: the keys on the first token, introspection per token.
 */
function oauthOptions(oauth: OAuthFrontConfig, log: Logger): OAuthResourceOptions {
  const common = {
    audience: oauth.audience,
    ...(oauth.requiredScopes === undefined ? {} : { requiredScopes: oauth.requiredScopes }),
    ...(oauth.clockToleranceSec === undefined ? {} : { clockToleranceSec: oauth.clockToleranceSec }),
  };
  const check = oauth.tokens;
  const verifier =
    check.kind === 'jwt'
      ? jwtVerifier({ ...common, issuer: oauth.issuer, jwksUri: check.jwksUri, ...(check.algorithms === undefined ? {} : { algorithms: check.algorithms }) })
      : introspectionVerifier({
          ...common,
          endpoint: check.endpoint,
          clientId: check.clientId,
          clientSecret: check.clientSecret,
          ...(check.clientAuth === undefined ? {} : { clientAuth: check.clientAuth }),
          ...(check.cacheMs === undefined ? {} : { cacheMs: check.cacheMs }),
          logger: log,
        });
  return {
    resource: oauth.resource,
    authorizationServers: oauth.authorizationServers,
    verifier,
    ...(oauth.requiredScopes === undefined ? {} : { requiredScopes: oauth.requiredScopes }),
    ...(oauth.scopesSupported === undefined ? {} : { scopesSupported: oauth.scopesSupported }),
    ...(oauth.claims === undefined ? {} : { claims: oauth.claims }),
    ...(oauth.resourceName === undefined ? {} : { resourceName: oauth.resourceName }),
  };
}

/** The file's session options, with --name, --timeout and --max-timeout in place of what it says. */
function sessionOptions(fromFile: SessionOptions, request: ConfigServeRequest, log: Logger): SessionOptions {
  const { timeout, maxTimeout: max, name } = request;
  return {
    ...fromFile,
    log,
    // The gateway is its own server: mcp-chain and its version unless the file or --name say otherwise.
    serverInfo: { ...(fromFile.serverInfo ?? { name: 'mcp-chain', version: version() }), ...(name === undefined ? {} : { name }) },
    ...(timeout === undefined && max === undefined
      ? {}
      : { timeouts: { ...fromFile.timeouts, ...(timeout === undefined ? {} : { request: timeout }), ...(max === undefined ? {} : { max }) } }),
  };
}

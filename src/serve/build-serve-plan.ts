import type { GatewayConfig } from '../config/gateway-config.js';
import { ChainError } from '../errors/chain-error.js';
import { isLoopbackHost } from '../front/http/loopback-host.js';
import { DEFAULT_DRAIN_MS } from '../front/default-drain-ms.js';
import type { ServeFlags } from './serve-flags.js';
import type { FrontPlan, ServePlan, SessionPlan, UpstreamPlan } from './serve-plan.js';

/** What a plan is built from besides the flags: a loaded config file, or a chain in front of one server (as the plan holds it). */
export type PlanSource = { readonly kind: 'config'; readonly config: GatewayConfig } | Extract<UpstreamPlan, { kind: 'chain' }>;

/** Where a plan reads what it does not take as an argument. */
export interface PlanContext {
  /** Where `--token-env` variables are read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** mcp-chain's version: a gateway's default serverInfo, and a `--name`'s. */
  readonly version: string;
}

/**
 * The plan of a serving command: the source's settings with every flag given in place of what the
 * file says. Light (no config format or proxy code is loaded for it), and checked before anything
 * starts: HTTP flags without HTTP, a `--token-env` variable that is not set, and a front listening
 * beyond loopback without a token (unless allowed in so many words) throw a ChainError `USAGE`.
 */
export function buildServePlan(source: PlanSource, flags: ServeFlags, context: PlanContext): ServePlan {
  const config = source.kind === 'config' ? source.config : undefined;
  const upstream: UpstreamPlan = source.kind === 'config' ? { kind: 'gateway', config: source.config } : source;
  return {
    upstream,
    session: sessionPlan(config, flags, context.version),
    front: frontPlan(config, flags, context.env),
    drainMs: flags.drainMs ?? config?.drainMs ?? DEFAULT_DRAIN_MS,
    ...(flags.logLevel === undefined ? {} : { logLevel: flags.logLevel }),
    ...(flags.watch === true ? { watch: { frontFromFlags: flags.http.listen !== undefined } } : {}),
  };
}

/**
 * A gateway is its own server: mcp-chain and its version unless the file or `--name` say
 * otherwise; a chain shows its upstream's serverInfo unless `--name` is given.
 */
function sessionPlan(config: GatewayConfig | undefined, flags: ServeFlags, version: string): SessionPlan {
  const fromFile = config === undefined ? undefined : (config.serverInfo ?? { name: 'mcp-chain', version });
  const serverInfo = flags.name === undefined ? fromFile : { ...(fromFile ?? { version }), name: flags.name };
  const requestMs = flags.timeoutMs ?? config?.timeouts?.requestMs;
  const maxMs = flags.maxTimeoutMs ?? config?.timeouts?.maxMs;
  return {
    ...(serverInfo === undefined ? {} : { serverInfo: { ...serverInfo } }),
    timeouts: { ...(requestMs === undefined ? {} : { requestMs }), ...(maxMs === undefined ? {} : { maxMs }) },
    ...(flags.maxMessageBytes === undefined ? {} : { maxMessageBytes: flags.maxMessageBytes }),
  };
}

/** The file's front (stdio when there is no file) with every HTTP flag given in place of what it says. */
function frontPlan(config: GatewayConfig | undefined, flags: ServeFlags, env: PlanContext['env']): FrontPlan {
  const http = flags.http;
  const file = config?.front;
  if (file?.kind !== 'http' && http.listen === undefined) {
    const given = Object.entries(http).filter(([, value]) => value !== undefined);
    if (given.length > 0) usage(`HTTP options need HTTP: add --http [host:]port${config === undefined ? '' : ', or an http section to the file'}`);
    return { kind: 'stdio' };
  }
  const fromFile = file?.kind === 'http' ? file : undefined;
  const host = http.listen?.host ?? fromFile?.host ?? '127.0.0.1';
  const port = http.listen?.port ?? fromFile?.port ?? 0;
  const tokens =
    http.tokenEnv === undefined
      ? (fromFile?.tokens ?? [])
      : http.tokenEnv.map((name) => {
          const token = env[name];
          if (token === undefined || token === '') usage(`--token-env ${name}: the variable is not set`);
          return { id: name, token: token as string };
        });
  const oauth = fromFile?.oauth;
  const allowUnauthenticated = http.allowUnauthenticated ?? fromFile?.allowUnauthenticated ?? false;
  if (tokens.length === 0 && oauth === undefined && !allowUnauthenticated && !isLoopbackHost(host)) {
    const where = http.listen === undefined ? `serving on ${host}` : `--http ${host.includes(':') ? `[${host}]` : host}:${port}`;
    usage(
      config === undefined
        ? `${where} listens beyond this machine without a token: add --token-env <VAR> to require one, or --allow-unauthenticated to answer anyone who can reach it`
        : `${where} listens beyond this machine without a token: add tokens (or oauth) to the file's http section or --token-env <VAR>, ` +
            'or allow it (--allow-unauthenticated, or allowUnauthenticated in the file) to answer anyone who can reach it',
    );
  }
  const allowedOrigins = http.allowedOrigins ?? fromFile?.allowedOrigins;
  const allowedHosts = http.allowedHosts ?? fromFile?.allowedHosts;
  const sessionTtlMs = http.sessionTtlMs ?? fromFile?.sessionTtlMs;
  const maxSessions = http.maxSessions ?? fromFile?.maxSessions;
  const maxStartingSessions = http.maxStartingSessions ?? fromFile?.maxStartingSessions;
  return {
    kind: 'http',
    host,
    port,
    path: fromFile?.path ?? '/mcp',
    sse: http.sse ?? fromFile?.sse ?? false,
    tokens: tokens.map((t) => ({ id: t.id, token: t.token })),
    ...(oauth === undefined ? {} : { oauth }),
    allowUnauthenticated,
    ...(allowedOrigins === undefined ? {} : { allowedOrigins: [...allowedOrigins] }),
    ...(allowedHosts === undefined ? {} : { allowedHosts: [...allowedHosts] }),
    ...(sessionTtlMs === undefined ? {} : { sessionTtlMs }),
    ...(maxSessions === undefined ? {} : { maxSessions }),
    ...(maxStartingSessions === undefined ? {} : { maxStartingSessions }),
  };
}

function usage(message: string): never {
  throw new ChainError('USAGE', message);
}

import { chain } from '../chain/chain.js';
import type { BuiltGateway } from '../config/build-gateway.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { Upstream } from '../core/upstream.js';
import { ChainError } from '../errors/chain-error.js';
import { serveStdio } from '../front/serve-stdio.js';
import type { Logger } from '../log/logger.js';
import { stderrLogger } from '../log/stderr-logger.js';
import type { SessionOptions } from '../session/session.js';
import { http } from '../upstream/http/http.js';
import { shared } from '../upstream/shared/shared.js';
import type { SpawnedServer } from '../upstream/spawn-server.js';
import { stdio } from '../upstream/stdio.js';
import { httpFrontOptions } from './http-front-options.js';
import { loadChainFile } from './load-chain-file.js';
import type { ServePlan, SessionPlan } from './serve-plan.js';
import { serveHttpUntilSignal } from './serve-http-until-signal.js';

export interface ServeRunOptions {
  /** The server process the entry point already started (a stdio server, before mcp-chain loaded). */
  readonly prestarted?: SpawnedServer | undefined;
}

/** The upstream a plan serves, the session options its chain file adds, and what to do on the way out. */
interface Served {
  readonly upstream: Upstream;
  readonly fileOptions: SessionOptions;
  /** Starts watching the config file, if the plan says so; returns what stops it. */
  readonly watch: () => Promise<() => Promise<void>>;
}

/**
 * Serves a plan: on stdio until the client goes away, or on HTTP until SIGINT or SIGTERM (which
 * drain it for `plan.drainMs`; a second signal exits at once); resolves with the exit code. The one
 * serve path of `proxy`, `run` and `serve`. A gateway's config libraries are loaded only for a
 * gateway: the one-liners stay light.
 */
export async function serve(plan: ServePlan, options: ServeRunOptions = {}): Promise<number> {
  const log = stderrLogger(plan.logLevel === undefined ? {} : { level: plan.logLevel });
  const served = plan.upstream.kind === 'gateway' ? await gatewayOf(plan, plan.upstream.config, log) : await chainOf(plan, log, options.prestarted);
  const sessionOptions = sessionOptionsOf(plan.session, served.fileOptions, log);
  const unwatch = await served.watch();
  try {
    if (plan.front.kind === 'http') {
      const level = plan.logLevel ?? process.env.MCP_CHAIN_LOG_LEVEL;
      await serveHttpUntilSignal(served.upstream, { ...sessionOptions, ...httpFrontOptions(plan.front, log) }, log, level === 'warn' || level === 'error', plan.drainMs);
    } else {
      const front = await serveStdio(served.upstream, {
        ...sessionOptions,
        ...(plan.session.maxMessageBytes === undefined ? {} : { maxMessageBytes: plan.session.maxMessageBytes }),
        drainMs: plan.drainMs,
      });
      await front.closed;
    }
  } finally {
    await unwatch();
    await served.upstream.close?.();
  }
  return 0;
}

/** A config file's servers as one gateway; with `watch`, the file's changes applied as it is saved. */
async function gatewayOf(plan: ServePlan, config: GatewayConfig, log: Logger): Promise<Served> {
  const { buildGateway } = await import('../config/build-gateway.js');
  const built: BuiltGateway = await buildGateway(config, { log });
  const watch = async (): Promise<() => Promise<void>> => {
    if (plan.watch === undefined) return async () => {};
    const [{ reloadConfig }, { watchConfig }] = await Promise.all([import('./reload-config.js'), import('./watch-config.js')]);
    const reloader = reloadConfig(config, built, { log, overrides: plan.watch.frontFromFlags ? { listen: true } : {} });
    const watcher = watchConfig([config.file], () => reloader.reload(), { log });
    log.info('watching the config file', { file: config.file });
    return async () => {
      watcher.close();
      reloader.close();
      // A reload under way finishes (or drops what it built) before the servers are closed.
      await reloader.idle();
    };
  };
  return { upstream: built.upstream, fileOptions: {}, watch };
}

/** A chain (a chain file's, or an empty one) in front of one server: a command on stdio or a remote one. */
async function chainOf(plan: ServePlan, log: Logger, prestarted: SpawnedServer | undefined): Promise<Served> {
  if (plan.upstream.kind !== 'chain') throw new Error('chainOf: not a chain plan');
  const { server, chainFile } = plan.upstream;
  const own = server?.kind === 'http' ? http(server.options) : server && stdio({ ...server.command, ...(prestarted ? { prestarted } : {}) });
  const target = own && plan.upstream.shared ? shared(own, { log }) : own;
  const none = async (): Promise<() => Promise<void>> => async () => {};
  if (chainFile !== undefined) {
    const loaded = await loadChainFile(chainFile);
    return { upstream: loaded.build(target), fileOptions: loaded.options, watch: none };
  }
  if (target === undefined) throw new ChainError('USAGE', 'nothing to serve: give a command after --, or --url <url>');
  return { upstream: chain().to(target), fileOptions: {}, watch: none };
}

/** The sessions' options: a chain file's `options`, with the plan's serverInfo and deadlines over them. */
function sessionOptionsOf(session: SessionPlan, fileOptions: SessionOptions, log: Logger): SessionOptions {
  const { serverInfo, timeouts } = session;
  const deadlines = {
    ...(timeouts.requestMs === undefined ? {} : { request: timeouts.requestMs }),
    ...(timeouts.maxMs === undefined ? {} : { max: timeouts.maxMs }),
  };
  return {
    ...fileOptions,
    log,
    ...(serverInfo === undefined ? {} : { serverInfo: { ...serverInfo } }),
    ...(Object.keys(deadlines).length === 0 ? {} : { timeouts: { ...fileOptions.timeouts, ...deadlines } }),
  };
}

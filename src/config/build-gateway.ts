import { isDeepStrictEqual } from 'node:util';
import { dirname, isAbsolute } from 'node:path';
import { chain } from '../chain/chain.js';
import type { Middleware } from '../chain/middleware.js';
import type { UpstreamOAuthOptions } from '../auth/client/upstream-oauth-options.js';
import type { Upstream } from '../core/upstream.js';
import type { Logger } from '../log/logger.js';
import { filter } from '../middleware/filter/index.js';
import type { SessionOptions } from '../session/session.js';
import type { TimeoutOptions } from '../session/timeouts.js';
import { aggregate, type Aggregate } from '../upstream/aggregate/aggregate.js';
import { commands } from '../upstream/commands/commands.js';
import type { AggregateMember, AggregateOptions } from '../upstream/aggregate/aggregate-options.js';
import type { HttpOptions } from '../upstream/http/http-options.js';
import { http } from '../upstream/http/http.js';
import { sse } from '../upstream/http/sse.js';
import { shared } from '../upstream/shared/shared.js';
import { stdio } from '../upstream/stdio.js';
import { ConfigError } from './config-error.js';
import type { BreakerConfig, GatewayConfig, MiddlewareConfig, ServerConfig } from './gateway-config.js';
import { importModule } from './import-module.js';
import { BUILTIN_MIDDLEWARE, type MiddlewareContext } from './middleware-registry.js';

/** A gateway made from a config: what to serve, and the parts `--watch` needs. */
export interface BuiltGateway {
  /** The global middleware chain in front of the aggregate (the aggregate itself when there is none). */
  readonly upstream: Upstream;
  readonly aggregate: Aggregate;
  /** The enabled servers, in file order. */
  readonly members: readonly AggregateMember[];
  /** `serverInfo` and the request timeouts, for the front's sessions. */
  readonly sessionOptions: SessionOptions;
}

export interface BuildGatewayOptions {
  readonly log: Logger;
  /** A gateway built before from an earlier version of the config: its servers' upstreams are reused where unchanged. */
  readonly previous?: BuiltGateway | undefined;
}

/** The config each member's upstream was made from, to know on a rebuild whether it can be reused. */
const madeFrom = new WeakMap<Upstream, ServerConfig>();

/**
 * Makes the gateway a config describes, starting nothing (servers start when a session connects).
 * Each enabled server becomes an aggregate member, made from the inside out: its upstream
 * (`stdio()`, `http()`, `sse()`, or the object a TypeScript config gave), behind `filter` when it
 * has tool allow/deny lists (so they name tools as the server does), behind its own middleware, in
 * `shared()` for `isolation: 'shared'`. The gateway's own middleware go in a
 * chain in front of the aggregate. With `previous`, servers whose config did not change keep their
 * upstream objects (see {@link rebuildMembers}).
 *
 * Throws a ConfigError for what loading could not check: a middleware module without the export
 * named, an export that is not a middleware, options a built-in refuses.
 */
export async function buildGateway(config: GatewayConfig, options: BuildGatewayOptions): Promise<BuiltGateway> {
  const { log, previous } = options;
  const members = previous ? await rebuildMembers(config, previous, log) : await Promise.all(enabled(config).map((server) => memberOf(server, config, log)));
  const gateway = aggregate(members, aggregateOptions(config, log));
  const global = await middlewareOf(config.middleware, config, log);
  return {
    upstream: global.length === 0 ? gateway : chain(...global).to(gateway),
    aggregate: gateway,
    members,
    sessionOptions: sessionOptionsOf(config),
  };
}

/**
 * For `--watch`: the members of a new config, reusing the upstream object of every server whose
 * config is the same as when `previous` made it (compared deeply, leaving out what is not part
 * of the upstream: its place in the file, prefix and timeouts; functions and objects of a
 * TypeScript config compare by identity, so a reloaded TypeScript config remakes the servers that
 * have them). Hand the result to `previous.aggregate.update()`: running sessions keep the members
 * whose upstream is the same object and restart the others.
 */
export async function rebuildMembers(config: GatewayConfig, previous: BuiltGateway, log: Logger): Promise<readonly AggregateMember[]> {
  const before = new Map(previous.members.map((member) => [member.name, member]));
  return Promise.all(
    enabled(config).map(async (server) => {
      const old = before.get(server.name);
      const oldConfig = old === undefined ? undefined : madeFrom.get(old.upstream);
      if (old !== undefined && oldConfig !== undefined && sameUpstream(oldConfig, server)) return { ...memberSettings(server, config), upstream: old.upstream };
      return memberOf(server, config, log);
    }),
  );
}

function enabled(config: GatewayConfig): ServerConfig[] {
  return config.servers.filter((server) => !server.disabled);
}

/** Whether two configs of a server make the same upstream. */
function sameUpstream(a: ServerConfig, b: ServerConfig): boolean {
  const upstreamPart = ({ path: _path, prefix: _prefix, startupTimeoutMs: _startup, timeoutMs: _timeout, ...rest }: ServerConfig): object => rest;
  return isDeepStrictEqual(upstreamPart(a), upstreamPart(b));
}

/** What a member is besides its upstream. */
function memberSettings(server: ServerConfig, config: GatewayConfig): Omit<AggregateMember, 'upstream'> {
  return {
    name: server.name,
    prefix: server.prefix,
    startupTimeoutMs: server.startupTimeoutMs ?? config.timeouts?.startupMs,
    timeoutMs: server.timeoutMs,
  };
}

async function memberOf(server: ServerConfig, config: GatewayConfig, log: Logger): Promise<AggregateMember> {
  let upstream: Upstream;
  try {
    upstream = transportOf(server, config.file);
  } catch (error) {
    // What the upstream refuses that loading did not check (its messages name no secret).
    throw new ConfigError([{ file: config.file, path: server.path, message: error instanceof Error ? error.message : String(error) }], { cause: error });
  }
  const middleware = await middlewareOf(server.middleware, config, log, server.name);
  const { allow, deny } = server.tools ?? {};
  // Next to the server: its lists name tools as the server does, whatever its own middleware show.
  if (allow !== undefined || deny !== undefined) middleware.push(filter({ tools: { ...(allow ? { allow } : {}), ...(deny ? { deny } : {}) } }));
  if (middleware.length > 0) upstream = chain(...middleware).to(upstream);
  if (server.isolation === 'shared') upstream = shared(upstream, { log: log.child({ server: server.name }) });
  madeFrom.set(upstream, server);
  return { ...memberSettings(server, config), upstream };
}

/**
 * `http()` and `sse()` resolve `${NAME}` in header values themselves; the config's are resolved
 * already, so a reference that a value contains (a secret may) is left as it is.
 */
const RESOLVED: Readonly<Record<string, string | undefined>> = new Proxy({}, { get: (_target, name) => (typeof name === 'string' ? `\${${name}}` : undefined) });

function transportOf(server: ServerConfig, file: string): Upstream {
  switch (server.transport) {
    case 'stdio':
      return stdio({ name: server.name, command: server.command, args: server.args, env: { ...server.env }, cwd: server.cwd });
    case 'http':
      return http({ name: server.name, url: server.url, headers: server.headers, env: RESOLVED, ...oauthOf(server.name, server.oauth, file) });
    case 'sse':
      return sse({ name: server.name, url: server.url, headers: server.headers, env: RESOLVED, ...oauthOf(server.name, server.oauth, file) });
    case 'upstream':
      return server.upstream;
    case 'commands':
      return commands({ name: server.name, tools: server.commands, env: server.env, cwd: server.cwd });
  }
}

/**
 * A remote server's `oauth`, with the command that logs in to it: `mcp-chain auth login <name>
 * --config <file>`, the file by its absolute path, so that it works from any directory.
 */
function oauthOf(name: string, oauth: UpstreamOAuthOptions | undefined, file: string): Pick<HttpOptions, 'oauth' | 'loginCommand'> {
  if (oauth === undefined) return {};
  const config = isAbsolute(file) ? ` --config ${shellWord(file)}` : '';
  return { oauth, loginCommand: `mcp-chain auth login ${shellWord(name)}${config}` };
}

/** A word for a POSIX shell: as is when safe, single-quoted otherwise. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The middleware of a list, made: built-ins from the registry, modules imported, functions as they are. */
async function middlewareOf(entries: readonly MiddlewareConfig[], config: GatewayConfig, log: Logger, server?: string): Promise<Middleware[]> {
  const context: MiddlewareContext = { dir: dirname(config.file), file: config.file, ...(server === undefined ? {} : { server }), log };
  const made: Middleware[] = [];
  for (const entry of entries) made.push(await middlewareFrom(entry, config.file, context));
  return made;
}

async function middlewareFrom(entry: MiddlewareConfig, file: string, context: MiddlewareContext): Promise<Middleware> {
  const problem = (message: string, cause?: unknown): ConfigError => new ConfigError([{ file, path: entry.path, message }], { cause });
  switch (entry.kind) {
    case 'function':
      return entry.middleware;
    case 'builtin': {
      const builtin = BUILTIN_MIDDLEWARE[entry.name];
      if (builtin === undefined) throw problem(`unknown middleware ${JSON.stringify(entry.name)}`);
      try {
        return builtin.create(entry.options, context);
      } catch (error) {
        throw problem(error instanceof Error ? error.message : String(error), error);
      }
    }
    case 'module': {
      let mod: Record<string, unknown>;
      try {
        mod = await importModule(entry.module);
      } catch (error) {
        throw problem(`cannot load ${entry.module}: ${error instanceof Error ? error.message : String(error)}`, error);
      }
      const exported = mod[entry.export];
      if (typeof exported !== 'function') {
        throw problem(`${entry.module} ${exported === undefined ? `has no export named ${JSON.stringify(entry.export)}` : `exports ${JSON.stringify(entry.export)}, which is not a function`}`);
      }
      // `(ctx, next)` is the middleware; anything else makes one from options.
      if (exported.length >= 2 && Object.keys(entry.options).length === 0) return exported as Middleware;
      let made: unknown;
      try {
        made = await (exported as (options: Readonly<Record<string, unknown>>) => unknown)(entry.options);
      } catch (error) {
        throw problem(`${entry.module}: ${JSON.stringify(entry.export)} failed with these options: ${error instanceof Error ? error.message : String(error)}`, error);
      }
      if (typeof made !== 'function') throw problem(`${entry.module}: ${JSON.stringify(entry.export)} is neither a middleware (ctx, next) nor a function of options returning one`);
      return made as Middleware;
    }
  }
}

function aggregateOptions(config: GatewayConfig, log: Logger): AggregateOptions {
  const { naming, timeouts, serverInfo, breaker } = config;
  return {
    separator: naming.separator,
    maxNameLength: naming.maxNameLength,
    log,
    ...(naming.pageSize === undefined ? {} : { pageSize: naming.pageSize }),
    ...(timeouts?.listMs === undefined ? {} : { listTimeoutMs: timeouts.listMs }),
    ...(serverInfo === undefined ? {} : { serverInfo }),
    ...(breaker === undefined ? {} : { breaker: breaker === false ? false : withoutUndefined(breaker) }),
  };
}

/** `breaker` without its unset keys (the aggregate's options are exact). */
function withoutUndefined(breaker: BreakerConfig): NonNullable<Exclude<AggregateOptions['breaker'], false>> {
  return Object.fromEntries(Object.entries(breaker).filter(([, value]) => value !== undefined));
}

function sessionOptionsOf(config: GatewayConfig): SessionOptions {
  const { serverInfo, timeouts } = config;
  const sessionTimeouts: TimeoutOptions = {
    ...(timeouts?.requestMs === undefined ? {} : { request: timeouts.requestMs }),
    ...(timeouts?.maxMs === undefined ? {} : { max: timeouts.maxMs }),
  };
  return {
    ...(serverInfo === undefined ? {} : { serverInfo: { ...serverInfo } }),
    ...(Object.keys(sessionTimeouts).length === 0 ? {} : { timeouts: sessionTimeouts }),
  };
}

import type { LogLevel } from '../log/logger.js';
import { buildServePlan, type PlanSource } from '../serve/build-serve-plan.js';
import type { ServeFlags } from '../serve/serve-flags.js';
import type { ServePlan, ServerTarget } from '../serve/serve-plan.js';
import { version } from '../serve/version.js';
import type { HttpOptions } from '../upstream/http/http-options.js';
import { ChainError } from '../errors/chain-error.js';
import type { OptionValues } from './command.js';
import { oauthFlags, urlLoginCommand } from './oauth-flags.js';
import type { ConfigServeOptions, ServeOptions } from './serve-options.js';
import { UsageError } from './usage-error.js';

/** The values of the flags every serving command shares (`watch` is `serve`'s alone). */
export type ServeFlagValues = Omit<OptionValues<ConfigServeOptions>, 'watch'> & { readonly watch?: boolean | undefined };

/**
 * The serving flags of a command line, read once for `proxy`, `run` and `serve` alike; mistakes
 * throw a UsageError for `command` (whose help to point to). Light: nothing of the proxy is loaded.
 */
export function serveFlagsOf(command: string | undefined, values: ServeFlagValues): ServeFlags {
  const fail = (message: string): never => {
    throw new UsageError(message, command);
  };
  const positiveInt = (option: string, value: string | undefined): number | undefined => positiveInteger(option, value, fail);
  const ttl = positiveInt('--session-ttl', values['session-ttl']);
  return {
    name: values.name,
    timeoutMs: positiveInt('--timeout', values.timeout),
    maxTimeoutMs: positiveInt('--max-timeout', values['max-timeout']),
    maxMessageBytes: positiveInt('--max-message-bytes', values['max-message-bytes']),
    drainMs: nonNegativeInteger('--drain-ms', values['drain-ms'], fail),
    logLevel: logLevel(values['log-level'], fail),
    watch: values.watch,
    http: {
      listen: values.http === undefined ? undefined : listenAddress(values.http, fail),
      sse: values.sse,
      tokenEnv: values['token-env'] && [...values['token-env']],
      allowUnauthenticated: values['allow-unauthenticated'],
      allowedOrigins: values['allow-origin'] && [...values['allow-origin']],
      allowedHosts: values['allow-host'] && [...values['allow-host']],
      sessionTtlMs: ttl === undefined ? undefined : ttl * 1000,
      maxSessions: positiveInt('--max-sessions', values['max-sessions']),
      maxStartingSessions: positiveInt('--max-starting-sessions', values['max-starting-sessions']),
    },
  };
}

/**
 * What `proxy` and `run` serve: the chain file given, and the server after `--` (`command`) or
 * `--url`, shared by every session with `--shared`; mistakes throw a UsageError for `command`.
 */
export function chainSourceOf(command: string | undefined, values: OptionValues<ServeOptions>, chainFile: string | undefined, serverCommand: readonly string[]): PlanSource {
  const fail = (message: string): never => {
    throw new UsageError(message, command);
  };
  const remote = remoteServer(values, fail);
  const [cmd, ...args] = serverCommand;
  if (remote && cmd !== undefined) fail('give either --url or a command after --, not both');
  const server: ServerTarget | undefined =
    remote !== undefined
      ? { kind: 'http', options: remote }
      : cmd === undefined
        ? undefined
        : {
            kind: 'stdio',
            command: {
              command: cmd,
              args,
              env: environment(values.env ?? [], fail),
              ...(values['inherit-env'] ? { inheritEnv: true } : {}),
              ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
            },
          };
  return {
    kind: 'chain',
    ...(chainFile === undefined ? {} : { chainFile }),
    ...(server === undefined ? {} : { server }),
    shared: values.shared ?? false,
  };
}

/**
 * The plan of a serving command: its source with the flags over it, in this process's environment;
 * what the plan refuses (HTTP flags without HTTP, an unset `--token-env`, an open bind beyond
 * loopback) becomes a UsageError for `command`.
 */
export function servePlanOf(command: string | undefined, source: PlanSource, flags: ServeFlags): ServePlan {
  try {
    return buildServePlan(source, flags, { env: process.env, version: version() });
  } catch (error) {
    if (error instanceof ChainError && error.code === 'USAGE') throw new UsageError(error.message, command);
    throw error;
  }
}

function positiveInteger(option: string, value: string | undefined, fail: (message: string) => never): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) fail(`${option} must be a positive integer, got ${value}`);
  return n;
}

function nonNegativeInteger(option: string, value: string | undefined, fail: (message: string) => never): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0) fail(`${option} must be a whole number of milliseconds (0 or more), got ${value}`);
  return n;
}

/** `[host:]port`, `[::1]:port`. */
function listenAddress(value: string, fail: (message: string) => never): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(value);
  const port = Number(match?.[2]);
  if (!match || !Number.isInteger(port) || port > 65535) fail(`--http takes [host:]port, got ${value}`);
  const host = match?.[1] ?? '127.0.0.1';
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port };
}

const LOG_LEVELS: readonly string[] = ['silent', 'error', 'warn', 'info', 'debug'] satisfies LogLevel[];

/** The value of `--log-level`; a mistake is a UsageError of `command` (whose help to point to). */
export function logLevelOption(value: string | undefined, command: string | undefined): LogLevel | undefined {
  return logLevel(value, (message) => {
    throw new UsageError(message, command);
  });
}

function logLevel(value: string | undefined, fail: (message: string) => never): LogLevel | undefined {
  if (value === undefined || LOG_LEVELS.includes(value)) return value as LogLevel | undefined;
  return fail(`--log-level must be silent, error, warn, info or debug, got ${value}`);
}

function environment(pairs: readonly string[], fail: (message: string) => never): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) fail(`--env takes KEY=VALUE, got ${pair}`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

/**
 * `--url`, `--header`, `--bearer` and the OAuth options as HttpOptions (the values are interpolated
 * later, by http(); the OAuth client's secret is read from its variable here).
 */
function remoteServer(values: OptionValues<ServeOptions>, fail: (message: string) => never): HttpOptions | undefined {
  const { url, bearer } = values;
  if (url === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const line of values.header ?? []) {
    const colon = line.indexOf(':');
    if (colon <= 0) fail(`--header takes 'Name: value', got ${line.slice(0, 40)}`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  const oauth = oauthFlags(values, process.env, fail);
  if (oauth !== undefined) {
    const flag = values.oauth === true ? '--oauth' : '--oauth-client-id';
    if (bearer !== undefined) fail(`give either ${flag} or --bearer, not both: with OAuth the gateway gets the remote server's tokens itself`);
    if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
      fail(`give either ${flag} or an Authorization --header, not both: with OAuth the gateway gets the remote server's tokens itself`);
    }
  }
  return {
    url,
    headers,
    ...(bearer === undefined ? {} : { bearer }),
    ...(oauth === undefined ? {} : { oauth: oauth.oauth, loginCommand: urlLoginCommand(url, oauth.words) }),
  };
}

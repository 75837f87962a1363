import type { LogLevel } from '../log/logger.js';
import type { HttpOptions } from '../upstream/http/http-options.js';
import type { ServerCommand } from '../upstream/spawn-server.js';
import type { OptionValues } from './command.js';
import { isLoopbackHost } from '../front/http/loopback-host.js';
import { oauthFlags, urlLoginCommand } from './oauth-flags.js';
import type { ConfigServeOptions, ServeOptions } from './serve-options.js';
import { UsageError } from './usage-error.js';

/** What a serving command asks for. Building it is light: nothing of the proxy is loaded for it. */
export interface ServeRequest {
  /** The chain file of `mcp-chain run <file>`. */
  file: string | undefined;
  /** The server given after `--`. */
  server: ServerCommand | undefined;
  /** The remote server given with `--url`. */
  remote: HttpOptions | undefined;
  name: string | undefined;
  timeout: number | undefined;
  maxTimeout: number | undefined;
  maxMessageBytes: number | undefined;
  /** `--drain-ms`: on SIGTERM or SIGINT, how long calls in flight may take to finish. */
  drainMs: number | undefined;
  logLevel: LogLevel | undefined;
  /** Serve on HTTP instead of stdio. */
  http: HttpListen | undefined;
}

export interface HttpListen {
  host: string;
  port: number;
  sse: boolean;
  /** Environment variables that hold accepted tokens. */
  tokenEnv: string[];
  /** Listening beyond loopback without a token was asked for explicitly (`--allow-unauthenticated`). */
  allowUnauthenticated: boolean;
  allowedOrigins: string[] | undefined;
  allowedHosts: string[] | undefined;
  sessionTtlMs: number | undefined;
  maxSessions: number | undefined;
  maxStartingSessions: number | undefined;
  /** All sessions share one upstream connection (`--shared`). */
  shared: boolean;
}

/**
 * The ServeRequest of a serving command's options, its chain file and the server command after
 * `--`; mistakes throw a UsageError for `command` (whose help to point to).
 */
export function serveRequest(
  command: string | undefined,
  values: OptionValues<ServeOptions>,
  file: string | undefined,
  serverCommand: readonly string[],
): ServeRequest {
  const fail = (message: string): never => {
    throw new UsageError(message, command);
  };
  const positiveInt = (option: string, value: string | undefined): number | undefined => positiveInteger(option, value, fail);
  const remote = remoteServer(values, fail);
  const [cmd, ...args] = serverCommand;
  const server: ServerCommand | undefined =
    cmd === undefined
      ? undefined
      : {
          command: cmd,
          args,
          env: environment(values.env ?? [], fail),
          ...(values['inherit-env'] ? { inheritEnv: true } : {}),
          ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
        };
  if (remote && server) fail('give either --url or a command after --, not both');
  let http: HttpListen | undefined;
  if (values.http !== undefined) {
    const ttl = positiveInt('--session-ttl', values['session-ttl']);
    const { host, port } = listenAddress(values.http, fail);
    const tokenEnv = [...(values['token-env'] ?? [])];
    const allowUnauthenticated = values['allow-unauthenticated'] ?? false;
    if (tokenEnv.length === 0 && !allowUnauthenticated && !isLoopbackHost(host)) {
      fail(
        `--http ${values.http} listens beyond this machine without a token: ` +
          'add --token-env <VAR> to require one, or --allow-unauthenticated to answer anyone who can reach it',
      );
    }
    http = {
      host,
      port,
      sse: values.sse ?? false,
      tokenEnv,
      allowUnauthenticated,
      allowedOrigins: values['allow-origin'] && [...values['allow-origin']],
      allowedHosts: values['allow-host'] && [...values['allow-host']],
      sessionTtlMs: ttl === undefined ? undefined : ttl * 1000,
      maxSessions: positiveInt('--max-sessions', values['max-sessions']),
      maxStartingSessions: positiveInt('--max-starting-sessions', values['max-starting-sessions']),
      shared: values.shared ?? false,
    };
  }
  return {
    file,
    server,
    remote,
    name: values.name,
    timeout: positiveInt('--timeout', values.timeout),
    maxTimeout: positiveInt('--max-timeout', values['max-timeout']),
    maxMessageBytes: positiveInt('--max-message-bytes', values['max-message-bytes']),
    drainMs: nonNegativeInteger('--drain-ms', values['drain-ms'], fail),
    logLevel: logLevel(values['log-level'], fail),
    http,
  };
}

/** What `mcp-chain serve [config-file]` asks for. Building it is light: nothing of the config or the proxy is loaded for it. */
export interface ConfigServeRequest {
  /** The config file given; undefined: the one to find in the working directory. */
  file: string | undefined;
  /** Re-read the file when it changes. */
  watch: boolean;
  name: string | undefined;
  timeout: number | undefined;
  maxTimeout: number | undefined;
  maxMessageBytes: number | undefined;
  /** `--drain-ms` (instead of the file's `drainMs`). */
  drainMs: number | undefined;
  logLevel: LogLevel | undefined;
  /** What the command line says of the HTTP front: each field given replaces the file's. */
  http: HttpOverrides;
}

/** The HTTP options of `mcp-chain serve`; undefined: not given. */
export interface HttpOverrides {
  /** `--http [host:]port`: serve on HTTP, there, whatever the file says. */
  listen: { host: string; port: number } | undefined;
  sse: boolean | undefined;
  /** Environment variables that hold accepted tokens (instead of the file's tokens). */
  tokenEnv: string[] | undefined;
  allowUnauthenticated: boolean | undefined;
  allowedOrigins: string[] | undefined;
  allowedHosts: string[] | undefined;
  sessionTtlMs: number | undefined;
  maxSessions: number | undefined;
  maxStartingSessions: number | undefined;
}

/** The ConfigServeRequest of `mcp-chain serve`'s options and config file; mistakes throw a UsageError for `serve`. */
export function configServeRequest(values: OptionValues<ConfigServeOptions>, file: string | undefined): ConfigServeRequest {
  const fail = (message: string): never => {
    throw new UsageError(message, 'serve');
  };
  const positiveInt = (option: string, value: string | undefined): number | undefined => positiveInteger(option, value, fail);
  const ttl = positiveInt('--session-ttl', values['session-ttl']);
  return {
    file,
    watch: values.watch ?? false,
    name: values.name,
    timeout: positiveInt('--timeout', values.timeout),
    maxTimeout: positiveInt('--max-timeout', values['max-timeout']),
    maxMessageBytes: positiveInt('--max-message-bytes', values['max-message-bytes']),
    drainMs: nonNegativeInteger('--drain-ms', values['drain-ms'], fail),
    logLevel: logLevel(values['log-level'], fail),
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

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ChainError } from '../errors/chain-error.js';
import type { LogLevel } from '../log/logger.js';
import type { HttpOptions } from '../upstream/http/http-options.js';
import type { ServerCommand } from '../upstream/spawn-server.js';

export const USAGE = `mcp-chain — middleware proxy for MCP servers

Usage:
  mcp-chain [options] -- <command> [args...]   serve a stdio MCP server through a chain, on stdio
  mcp-chain --http [host:]port [options] -- <command> [args...]
                                               the same on Streamable HTTP at /mcp (one server
                                               process per HTTP session)
  mcp-chain [options] --url <http-url>         serve a remote MCP server (Streamable HTTP, or legacy
                                               HTTP+SSE) through a chain, on stdio
  mcp-chain run <chain-file.ts|.js> [options] [-- <command> [args...]]
                                               serve the chain exported by a file, on stdio or
                                               with --http (in front of <command> when the file
                                               leaves the upstream open)

HTTP front (with --http):
  --http [host:]port       listen there (host defaults to 127.0.0.1; port 0 picks a free one)
  --sse                    also serve the legacy HTTP+SSE transport at /sse and /messages
  --token-env <VAR>        require this bearer token (or X-API-Key) from the environment
                           variable VAR (repeatable; the identity is named VAR)
  --allow-origin <origin>  an Origin browsers may call from (repeatable; default: loopback pages)
  --allow-host <name>      a Host name to answer to (repeatable; default: loopback names when
                           bound to loopback, any otherwise)
  --session-ttl <seconds>  end sessions idle for this long (default 1800)
  --max-sessions <n>       most live sessions (default 1000)
  --shared                 one upstream (server process or remote session) for all sessions
                           instead of one per session (see docs/architecture.md, shared upstream)

Options:
  --name <name>            serverInfo.name shown to clients (default: the upstream's own)
  --timeout <ms>           deadline of each forwarded request (default 60000)
  --max-timeout <ms>       hard maximum even with progress (default 600000)
  --max-message-bytes <n>  largest message accepted from the client (default 4 MiB)
  --log-level <level>      silent | error | warn | info | debug (default info; logs go to stderr)
  --inherit-env            give the server our whole environment (default: a safe minimum plus --env)
  --env KEY=VALUE          set a variable for the server (repeatable)
  --cwd <dir>              working directory of the server
  --url <url>              the remote server (instead of a command after --)
  --header 'Name: value'   send this header to the remote server (repeatable)
  --bearer <token>         send Authorization: Bearer <token> to the remote server
                           (header values and the token may use \${NAME}: quote them so that the
                           shell leaves them to mcp-chain, and the secret stays out of ps)
  -h, --help               show this help
  -v, --version            show the version
`;


/** What the command line asks for. Parsing is light: nothing of the proxy is loaded for it. */
export type CliRequest =
  | { kind: 'help' | 'version' | 'usage' }
  | {
      kind: 'serve';
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
      logLevel: LogLevel | undefined;
      /** Serve on HTTP instead of stdio. */
      http: HttpListen | undefined;
    };

export interface HttpListen {
  host: string;
  port: number;
  sse: boolean;
  /** Environment variables that hold accepted tokens. */
  tokenEnv: string[];
  allowedOrigins: string[] | undefined;
  allowedHosts: string[] | undefined;
  sessionTtlMs: number | undefined;
  maxSessions: number | undefined;
  /** All sessions share one upstream connection (`--shared`). */
  shared: boolean;
}

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new ChainError('USAGE', `${name} must be a positive integer, got ${value}`);
  return n;
}

/** `[host:]port`, `[::1]:port`. */
function listenAddress(value: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(value);
  const port = Number(match?.[2]);
  if (!match || !Number.isInteger(port) || port > 65535) {
    throw new ChainError('USAGE', `--http takes [host:]port, got ${value}`);
  }
  const host = match[1] ?? '127.0.0.1';
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port };
}

function logLevel(value: string | undefined): LogLevel | undefined {
  if (value === undefined) return undefined;
  if (['silent', 'error', 'warn', 'info', 'debug'].includes(value)) return value as LogLevel;
  throw new ChainError('USAGE', `--log-level must be silent, error, warn, info or debug, got ${value}`);
}

function environment(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new ChainError('USAGE', `--env takes KEY=VALUE, got ${pair}`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

/** `--url`, `--header` and `--bearer` as HttpOptions (the values are interpolated later, by http()). */
function remoteServer(url: string | undefined, headerLines: readonly string[], bearer: string | undefined): HttpOptions | undefined {
  if (url === undefined) {
    if (headerLines.length > 0 || bearer !== undefined) throw new ChainError('USAGE', '--header and --bearer need --url');
    return undefined;
  }
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new ChainError('USAGE', `--header takes 'Name: value', got ${line.slice(0, 40)}`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { url, headers, ...(bearer === undefined ? {} : { bearer }) };
}

/** Parses `argv` (without node and the script); usage mistakes throw a ChainError('USAGE'). */
export function parseCli(argv: readonly string[]): CliRequest {
  const dashdash = argv.indexOf('--');
  const own = dashdash === -1 ? [...argv] : argv.slice(0, dashdash);
  const command = dashdash === -1 ? [] : argv.slice(dashdash + 1);
  const { values, positionals } = parseArgs({
    args: own,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      timeout: { type: 'string' },
      'max-timeout': { type: 'string' },
      'max-message-bytes': { type: 'string' },
      'log-level': { type: 'string' },
      'inherit-env': { type: 'boolean' },
      env: { type: 'string', multiple: true },
      cwd: { type: 'string' },
      http: { type: 'string' },
      sse: { type: 'boolean' },
      'token-env': { type: 'string', multiple: true },
      'allow-origin': { type: 'string', multiple: true },
      'allow-host': { type: 'string', multiple: true },
      'session-ttl': { type: 'string' },
      'max-sessions': { type: 'string' },
      shared: { type: 'boolean' },
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      bearer: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const request = {
    kind: 'serve' as const,
    file: undefined as string | undefined,
    server: undefined as ServerCommand | undefined,
    remote: remoteServer(values.url, values.header ?? [], values.bearer),
    name: values.name,
    timeout: positiveInt('--timeout', values.timeout),
    maxTimeout: positiveInt('--max-timeout', values['max-timeout']),
    maxMessageBytes: positiveInt('--max-message-bytes', values['max-message-bytes']),
    logLevel: logLevel(values['log-level']),
    http: undefined as HttpListen | undefined,
  };
  if (values.http !== undefined) {
    const ttl = positiveInt('--session-ttl', values['session-ttl']);
    request.http = {
      ...listenAddress(values.http),
      sse: values.sse ?? false,
      tokenEnv: values['token-env'] ?? [],
      allowedOrigins: values['allow-origin'],
      allowedHosts: values['allow-host'],
      sessionTtlMs: ttl === undefined ? undefined : ttl * 1000,
      maxSessions: positiveInt('--max-sessions', values['max-sessions']),
      shared: values.shared ?? false,
    };
  } else {
    const httpOnly = ['sse', 'token-env', 'allow-origin', 'allow-host', 'session-ttl', 'max-sessions', 'shared'] as const;
    const misplaced = httpOnly.find((name) => values[name] !== undefined);
    if (misplaced) throw new ChainError('USAGE', `--${misplaced} needs --http`);
  }
  const [cmd, ...args] = command;
  if (cmd !== undefined) {
    request.server = {
      command: cmd,
      args,
      env: environment(values.env ?? []),
      ...(values['inherit-env'] ? { inheritEnv: true } : {}),
      ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
    };
  }
  if (request.remote && request.server) throw new ChainError('USAGE', 'give either --url or a command after --, not both');
  if (positionals[0] === 'run') {
    if (positionals[1] === undefined || positionals.length > 2) {
      throw new ChainError('USAGE', 'usage: mcp-chain run <chain-file> [-- <command> [args...]]');
    }
    request.file = positionals[1];
    return request;
  }
  return (request.server ?? request.remote) && positionals.length === 0 ? request : { kind: 'usage' };
}

#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chain } from '../chain/chain.js';
import { ChainError } from '../errors/chain-error.js';
import { serveStdio } from '../front/serve-stdio.js';
import { stderrLogger } from '../log/stderr-logger.js';
import type { LogLevel } from '../log/logger.js';
import type { SessionOptions } from '../session/session.js';
import { stdio } from '../upstream/stdio.js';
import type { Upstream } from '../upstream/upstream.js';
import { loadChainFile } from './load-chain-file.js';

const USAGE = `mcp-chain — middleware proxy for MCP servers

Usage:
  mcp-chain [options] -- <command> [args...]   serve a stdio MCP server through a chain, on stdio
  mcp-chain run <chain-file.ts|.js> [options] [-- <command> [args...]]
                                               serve the chain exported by a file, on stdio
                                               (in front of <command> when the file leaves the
                                               upstream open)

Options:
  --name <name>            serverInfo.name shown to clients (default: the upstream's own)
  --timeout <ms>           deadline of each forwarded request (default 60000)
  --max-timeout <ms>       hard maximum even with progress (default 600000)
  --max-message-bytes <n>  largest message accepted from the client (default 4 MiB)
  --log-level <level>      silent | error | warn | info | debug (default info; logs go to stderr)
  --inherit-env            give the server our whole environment (default: a safe minimum plus --env)
  --env KEY=VALUE          set a variable for the server (repeatable)
  --cwd <dir>              working directory of the server
  -h, --help               show this help
  -v, --version            show the version
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new ChainError('USAGE', `${name} must be a positive integer, got ${value}`);
  return n;
}

function logLevel(value: string | undefined): LogLevel | undefined {
  if (value === undefined) return undefined;
  if (['silent', 'error', 'warn', 'info', 'debug'].includes(value)) return value as LogLevel;
  throw new ChainError('USAGE', `--log-level must be silent, error, warn, info or debug, got ${value}`);
}

interface CommandValues {
  env?: string[] | undefined;
  'inherit-env'?: boolean | undefined;
  cwd?: string | undefined;
}

function stdioCommand(command: string[], values: CommandValues): Upstream {
  const [cmd, ...args] = command as [string, ...string[]];
  const env: Record<string, string> = {};
  for (const pair of values.env ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new ChainError('USAGE', `--env takes KEY=VALUE, got ${pair}`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return stdio({
    command: cmd,
    args,
    env,
    ...(values['inherit-env'] ? { inheritEnv: true } : {}),
    ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
  });
}

export async function main(argv: string[]): Promise<number> {
  const dashdash = argv.indexOf('--');
  const own = dashdash === -1 ? argv : argv.slice(0, dashdash);
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
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.help) {
    process.stderr.write(USAGE);
    return 0;
  }
  if (values.version) {
    process.stderr.write(`${version()}\n`);
    return 0;
  }
  const timeout = positiveInt('--timeout', values.timeout);
  const max = positiveInt('--max-timeout', values['max-timeout']);
  const maxMessageBytes = positiveInt('--max-message-bytes', values['max-message-bytes']);
  const level = logLevel(values['log-level']);
  const log = stderrLogger(level === undefined ? {} : { level });
  const commandUpstream = command.length > 0 ? stdioCommand(command, values) : undefined;
  let upstream: Upstream;
  let fileOptions: SessionOptions = {};
  if (positionals[0] === 'run') {
    const file = positionals[1];
    if (file === undefined || positionals.length > 2) throw new ChainError('USAGE', 'usage: mcp-chain run <chain-file> [-- <command> [args...]]');
    const loaded = await loadChainFile(file);
    upstream = loaded.build(commandUpstream);
    fileOptions = loaded.options;
  } else if (commandUpstream && positionals.length === 0) {
    upstream = chain().to(commandUpstream);
  } else {
    process.stderr.write(USAGE);
    return 2;
  }
  const front = await serveStdio(upstream, {
    ...fileOptions,
    log,
    ...(values.name === undefined ? {} : { serverInfo: { name: values.name, version: version() } }),
    ...(timeout === undefined && max === undefined
      ? {}
      : { timeouts: { ...fileOptions.timeouts, ...(timeout === undefined ? {} : { request: timeout }), ...(max === undefined ? {} : { max }) } }),
    ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
  });
  await front.closed;
  await upstream.close?.();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ChainError || (error instanceof Error && error.name === 'TypeError' && 'code' in error)) {
      process.stderr.write(`mcp-chain: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`mcp-chain: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

/**
 * @module
 * `log`: one structured JSON line per call (or per message), to stderr, a JSONL file, or a
 * {@link Logger}. Arguments and results are never written unless asked for.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Context, Direction } from '../../chain/context.js';
import type { Middleware } from '../../chain/middleware.js';
import { ErrorCode } from '../../errors/error-code.js';
import { watchOutcome } from '../../chain/watch-outcome.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Logger } from '../../log/logger.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import type { LogCodeOptions, LogOptions } from './options.js';

export type { LogCodeOptions, LogOptions } from './options.js';

/** One line of the log. */
export interface LogEntry {
  /** When the message arrived here (ISO 8601). */
  time: string;
  /** The first 8 characters of the session id, as the session's own log lines have it. */
  session: string;
  direction: Direction;
  kind: 'request' | 'notification';
  method: string;
  /** The tool of `tools/call`. */
  tool?: string;
  /** The prompt of `prompts/get`. */
  prompt?: string;
  /** The resource of `resources/read`, `/subscribe`, `/unsubscribe` and `notifications/resources/updated`. */
  uri?: string;
  durationMs: number;
  /** `isError`: a tool that ran and failed. `cancelled`: cancelled by the client, or the session ended. */
  outcome: 'ok' | 'error' | 'isError' | 'cancelled';
  /** Why it failed (also for a timeout, -32001). */
  error?: { code: number; message: string };
  params?: JsonObject;
  /** Whether `cache` (behind `log` in the chain) answered it from memory. */
  cache?: 'hit' | 'miss';
}

/** The `log` middleware, with a way to flush and close its file. */
export interface LogMiddleware extends Middleware {
  /** Flushes and closes the file (a later line opens it again). A no-op for stderr and a logger. */
  close(): Promise<void>;
}

/**
 * Logs every call (or every message) passing this point of the chain, with its duration and
 * outcome. Place it first to see what the client asked, last to see what the upstream was asked.
 *
 * @example
 * const audit = log({ destination: '/var/log/mcp/calls.jsonl' });
 * const gateway = chain().use(audit).to(stdio({ command: 'my-server' }));
 * // {"time":"2025-11-25T10:00:00.000Z","session":"3f2a9c1e","direction":"toUpstream","kind":"request",
 * //  "method":"tools/call","tool":"search","durationMs":12.5,"outcome":"ok"}
 * await audit.close(); // on shutdown
 */
export function log(options: LogOptions & LogCodeOptions = {}): LogMiddleware {
  const { destination = 'stderr', level = 'call', includeParams = false, logger } = options;
  const out = logger ? toLogger(logger) : destination === 'stderr' ? toStderr() : toFile(destination);

  // Not async: a message it does not log gets next()'s own promise back, at no cost.
  const middleware: Middleware = function log(ctx, next) {
    if (level === 'call' && ctx.kind !== 'request') return next();
    const time = new Date().toISOString();
    const start = performance.now();
    return watchOutcome(ctx, next, (outcome, error) => {
      const line = entry(ctx, time, performance.now() - start, outcome, error, includeParams);
      try {
        out.write(line);
      } catch {
        // params nested too deeply to serialize: the line is still written, without them.
        out.write({ ...line, params: { unloggable: 'nested too deeply to serialize' } });
      }
    });
  };
  return Object.assign(middleware, { close: out.close });
}

function entry(ctx: Context, time: string, ms: number, outcome: LogEntry['outcome'], error: unknown, includeParams: boolean): LogEntry {
  const params = ctx.message.params;
  return {
    time,
    session: ctx.session.id.slice(0, 8),
    direction: ctx.direction,
    kind: ctx.kind,
    method: ctx.method,
    ...subjectOf(ctx),
    durationMs: Math.round(ms * 1000) / 1000,
    outcome,
    ...(error === undefined ? {} : { error: toError(error) }),
    ...(includeParams && params !== undefined ? { params } : {}),
    ...(ctx.state.cache === undefined ? {} : { cache: ctx.state.cache }),
  };
}

const URI_METHODS = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe', 'notifications/resources/updated']);

/** What the message acts on: its tool, prompt or resource. */
function subjectOf({ method, message }: Context): Pick<LogEntry, 'tool' | 'prompt' | 'uri'> {
  const { name, uri } = message.params ?? {};
  if (method === 'tools/call' && typeof name === 'string') return { tool: name };
  if (method === 'prompts/get' && typeof name === 'string') return { prompt: name };
  if (URI_METHODS.has(method) && typeof uri === 'string') return { uri };
  return {};
}

/** The error as the client sees it; a local failure's own message (the client sees "Internal error"). */
function toError(error: unknown): { code: number; message: string } {
  if (error instanceof McpError) return { code: error.code, message: error.message };
  return { code: ErrorCode.InternalError, message: error instanceof Error ? error.message : String(error) };
}

interface Output {
  write(entry: LogEntry): void;
  close(): Promise<void>;
}

function toStderr(): Output {
  return {
    write: (entry) => void process.stderr.write(JSON.stringify(entry) + '\n'),
    close: () => Promise.resolve(),
  };
}

function toLogger(logger: Logger): Output {
  return {
    write: (entry) => logger.info('mcp message', { ...entry }),
    close: () => Promise.resolve(),
  };
}

/** Appends to `path`, opened on the first line; a failure is reported once on stderr and later lines dropped. */
function toFile(path: string): Output {
  let stream: WriteStream | undefined;
  let failed = false;
  return {
    write(entry) {
      if (failed) return;
      stream ??= createWriteStream(path, { flags: 'a' }).on('error', (error) => {
        failed = true;
        console.error(`mcp-chain log: cannot write ${path}: ${error.message}`);
      });
      stream.write(JSON.stringify(entry) + '\n');
    },
    close() {
      const closing = stream;
      stream = undefined;
      if (!closing || closing.destroyed) return Promise.resolve();
      return new Promise((resolve) => closing.end(resolve));
    },
  };
}

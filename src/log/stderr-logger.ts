import { pino, destination as pinoDestination, type Logger as PinoLogger } from 'pino';
import type { LogFields, Logger, LogLevel } from './logger.js';

class PinoAdapter implements Logger {
  readonly #pino: PinoLogger;
  constructor(logger: PinoLogger) {
    this.#pino = logger;
  }
  error(message: string, fields?: LogFields): void {
    this.#pino.error(fields ?? {}, message);
  }
  warn(message: string, fields?: LogFields): void {
    this.#pino.warn(fields ?? {}, message);
  }
  info(message: string, fields?: LogFields): void {
    this.#pino.info(fields ?? {}, message);
  }
  debug(message: string, fields?: LogFields): void {
    this.#pino.debug(fields ?? {}, message);
  }
  child(bindings: LogFields): Logger {
    return new PinoAdapter(this.#pino.child(bindings));
  }
}

export interface StderrLoggerOptions {
  level?: LogLevel;
  /** Where to write; defaults to file descriptor 2. A path writes JSON lines to that file. */
  destination?: number | string;
}

/**
 * The default logger: JSON lines on stderr through pino, written asynchronously so that a slow or
 * full stderr pipe never blocks the event loop (lines are dropped past 16 MiB of backlog).
 * The level comes from `options.level`, else `MCP_CHAIN_LOG_LEVEL`, else `info`.
 */
export function stderrLogger(options: StderrLoggerOptions = {}): Logger {
  const level = options.level ?? parseLevel(process.env.MCP_CHAIN_LOG_LEVEL) ?? 'info';
  const destination = pinoDestination({
    dest: options.destination ?? 2,
    sync: false,
    maxLength: 16 * 1024 * 1024,
    mkdir: true,
  });
  return new PinoAdapter(pino({ level, base: { name: 'mcp-chain' } }, destination));
}

function parseLevel(value: string | undefined): LogLevel | undefined {
  return value === 'silent' || value === 'error' || value === 'warn' || value === 'info' || value === 'debug'
    ? value
    : undefined;
}

/** A logger that drops everything (for tests and embedding). */
export const silentLogger: Logger = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
  child: () => silentLogger,
};

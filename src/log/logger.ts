/**
 * The logging interface mcp-chain and its middleware write to. Everything goes to stderr (or a file),
 * never to stdout, which carries the protocol on stdio.
 */
export interface Logger {
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  /** A logger that adds `bindings` to every line. */
  child(bindings: LogFields): Logger;
}

export type LogFields = Record<string, unknown>;

export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';

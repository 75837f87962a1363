import type { LogFields, Logger } from '../../src/log/logger.js';

export interface CapturedLine {
  level: 'error' | 'warn' | 'info' | 'debug';
  message: string;
  fields: LogFields;
}

/** A Logger that keeps every line, and lets a test wait for one. */
export class CaptureLogger implements Logger {
  readonly lines: CapturedLine[];
  readonly #bindings: LogFields;
  readonly #waiters: Set<{ match: (line: CapturedLine) => boolean; resolve: (line: CapturedLine) => void }>;

  constructor(lines: CapturedLine[] = [], bindings: LogFields = {}, waiters = new Set<never>()) {
    this.lines = lines;
    this.#bindings = bindings;
    this.#waiters = waiters;
  }

  error(message: string, fields?: LogFields): void {
    this.#add('error', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.#add('warn', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.#add('info', message, fields);
  }
  debug(message: string, fields?: LogFields): void {
    this.#add('debug', message, fields);
  }
  child(bindings: LogFields): Logger {
    return new CaptureLogger(this.lines, { ...this.#bindings, ...bindings }, this.#waiters as Set<never>);
  }

  /** Resolves with the first line (already logged or to come) whose message matches. */
  waitFor(pattern: RegExp): Promise<CapturedLine> {
    const found = this.lines.find((line) => pattern.test(line.message));
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const waiter = {
        match: (line: CapturedLine) => pattern.test(line.message),
        resolve: (line: CapturedLine) => {
          this.#waiters.delete(waiter);
          resolve(line);
        },
      };
      this.#waiters.add(waiter);
    });
  }

  #add(level: CapturedLine['level'], message: string, fields: LogFields = {}): void {
    const line = { level, message, fields: { ...this.#bindings, ...fields } };
    this.lines.push(line);
    for (const waiter of [...this.#waiters]) if (waiter.match(line)) waiter.resolve(line);
  }
}

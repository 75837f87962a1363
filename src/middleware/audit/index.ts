/**
 * @module
 * `audit`: an append-only JSON Lines record of every `tools/call` (or every request): who called
 * which tool of which server with which (redacted) arguments, how long it took and how it ended.
 * Writing never blocks a call: records go through a bounded queue to one async writer; records
 * that do not fit are counted and the count written to the file. The file rotates by size and age.
 */
import { watchOutcome } from '../../chain/watch-outcome.js';
import type { Middleware } from '../../chain/middleware.js';
import type { Logger } from '../../log/logger.js';
import { stderrLogger } from '../../log/stderr-logger.js';
import { createRedactor, type Redactor } from '../redact/redactor.js';
import { auditLine } from './audit-line.js';
import { AuditWriter } from './audit-writer.js';
import type { AuditCodeOptions, AuditOptions } from './options.js';

export type { AuditCodeOptions, AuditOptions } from './options.js';

export type { AuditRecord } from './audit-line.js';

declare module '../../chain/context.js' {
  interface ContextState {
    /**
     * Fields a middleware behind `audit` adds to this call's audit record, such as
     * `{ decision: 'approved', approver: 'alice' }`. Set it (or add to it) before the call returns;
     * the record's own fields win over these.
     */
    auditExtra: Record<string, unknown>;
  }
}

/** The `audit` middleware, with a way to flush its queue. */
export interface AuditMiddleware extends Middleware {
  /** Resolves when every record so far (and the count of dropped ones) is in the file. The chain's close() calls it. */
  close(): Promise<void>;
}

/**
 * Records every tool call passing this point of the chain. Place it first to record what clients
 * asked (and, with middleware behind it, what they decided through `ctx.state.auditExtra`).
 *
 * @example
 * const gateway = chain()
 *   .use(audit({ file: '/var/log/mcp/audit.jsonl', maxBytes: 50_000_000, keep: 5 }))
 *   .to(aggregate({ github: stdio({ command: 'github-mcp' }) }));
 * // {"time":"2025-11-25T10:00:00.000Z","session":"3f2a9c1e-…","identity":{"id":"alice","method":"bearer"},
 * //  "method":"tools/call","server":"github","tool":"github__search","arguments":{"q":"[REDACTED:email]"},
 * //  "durationMs":12.5,"outcome":"ok"}
 */
export function audit(options: AuditOptions & AuditCodeOptions): AuditMiddleware {
  const { scope = 'tools', separator = '__', redact = true } = options;
  const redactor: Redactor | undefined = redact === false ? undefined : createRedactor(redact === true ? {} : redact);
  const writer = new AuditWriter({
    file: options.file,
    maxBytes: options.maxBytes,
    maxAgeMs: options.maxAgeMs,
    keep: options.keep,
    maxQueue: options.maxQueue,
    dropReportMs: options.dropReportMs,
    flushIntervalMs: options.flushIntervalMs,
    logger: options.logger ?? lazyStderr(),
    now: options.now,
    append: options.append,
  });
  const now = options.now ?? Date.now;

  // Not async: a message it does not record gets next()'s own promise back, at no cost.
  const middleware: Middleware = function audit(ctx, next) {
    if (ctx.kind !== 'request' || ctx.direction !== 'toUpstream') return next();
    if (scope === 'tools' ? ctx.method !== 'tools/call' : ctx.method === 'initialize') return next();
    const time = now();
    const start = performance.now();
    return watchOutcome(ctx, next, (outcome, error) => {
      writer.push(auditLine(ctx, { time, durationMs: performance.now() - start, outcome, error }, separator, redactor));
    });
  };
  return Object.assign(middleware, { close: () => writer.close() });
}

/** The stderr logger, made only when there is something to report. */
function lazyStderr(): Logger {
  let made: Logger | undefined;
  const get = (): Logger => (made ??= stderrLogger());
  const logger: Logger = {
    error: (message, fields) => get().error(message, fields),
    warn: (message, fields) => get().warn(message, fields),
    info: (message, fields) => get().info(message, fields),
    debug: (message, fields) => get().debug(message, fields),
    child: (bindings) => get().child(bindings),
  };
  return logger;
}

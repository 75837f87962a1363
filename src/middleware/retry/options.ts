/**
 * @module
 * `retry`'s options, described once: this schema checks config files and is where the JSON Schema,
 * docs/middleware.md and the {@link RetryOptions} type come from. The middleware imports the types alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';

const retryOn = z.enum(['connectionClosed', 'timeout', 'isError']);

export const retryOptions = z.strictObject({
  tools: z
    .array(z.string())
    .optional()
    .describe('Tools safe to call twice: names or globs (`*` any characters, `?` one character) as the client calls them (`github__get_*`); default none'),
  idempotentHint: z
    .boolean()
    .optional()
    .describe('Also retry tools whose annotations.idempotentHint is true in the session\'s tools/list (forgotten on list_changed); default false: a server\'s hint is its own claim'),
  on: z
    .array(retryOn)
    .optional()
    .describe('Which failures are retried: connectionClosed (-32000: the server went away or restarted), timeout (-32001: a deadline passed), isError (the tool ran and reported a failure); default ["connectionClosed", "timeout"]'),
  maxAttempts: z.number().int().min(1).optional().describe('Attempts in all, the first included; default 3'),
  initialDelayMs: z.number().min(0).optional().describe('The ceiling of the first wait, in milliseconds; default 200'),
  maxDelayMs: z.number().min(0).optional().describe('The ceiling of any wait, in milliseconds; default 5000'),
  multiplier: z.number().min(1).optional().describe('How much the ceiling grows per retry; default 2'),
});

/** Which failures are retried. */
export type RetryOn = z.infer<typeof retryOn>;
/** `retry`'s options (see {@link retryOptions}). */
export interface RetryOptions extends OptionsOf<typeof retryOptions> {}

/** What code may give `retry` besides its {@link RetryOptions}, which a config file cannot write: hooks for tests. */
export interface RetryCodeOptions {
  /** A number in [0, 1) (default `Math.random`). */
  readonly random?: () => number;
  /** Waits `ms` or rejects when `signal` aborts (default a timer). */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

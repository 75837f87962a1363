import * as z from 'zod';
import { retry, type RetryOptions } from '../../middleware/retry/index.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `retry`: tool calls safe to repeat, tried again on failures a second try can fix. */
export const retryBuiltin = builtin(
  'Retries calls to tools configured safe to repeat (never by default) on chosen failures, with exponential backoff and full jitter',
  z.strictObject({
    tools: z.array(z.string()).optional().describe('Tools safe to call twice: names or globs as the client calls them (`github__get_*`); default none'),
    idempotentHint: z.boolean().optional().describe('Also retry tools whose annotations.idempotentHint is true in tools/list; default false'),
    on: z
      .array(z.enum(['connectionClosed', 'timeout', 'isError']))
      .optional()
      .describe('Which failures are retried: connectionClosed (-32000), timeout (-32001), isError (the tool reported a failure); default ["connectionClosed", "timeout"]'),
    maxAttempts: z.number().int().min(1).optional().describe('Attempts in all, the first included; default 3'),
    initialDelayMs: z.number().min(0).optional().describe('The ceiling of the first wait, in milliseconds; default 200'),
    maxDelayMs: z.number().min(0).optional().describe('The ceiling of any wait, in milliseconds; default 5000'),
    multiplier: z.number().min(1).optional().describe('How much the ceiling grows per retry; default 2'),
  }),
  (options) => retry(options as RetryOptions),
);

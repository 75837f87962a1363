/**
 * @module
 * `log`'s options, described once: this schema checks config files and is where the JSON Schema,
 * docs/middleware.md and the {@link LogOptions} type come from. The middleware imports the type alone.
 */
import * as z from 'zod';
import type { Logger } from '../../log/logger.js';
import type { OptionsOf } from '../options-of.js';

export const logOptions = z.strictObject({
  destination: z
    .string()
    .min(1)
    .optional()
    .describe('"stderr" (the default) or a JSONL file to append to (relative to the config file; in code, to the working directory); never stdout'),
  level: z.enum(['call', 'message']).optional().describe('"call" (the default): one line per request, both directions; "message": notifications too'),
  includeParams: z.boolean().optional().describe('Adds each message\'s params (tool arguments: may carry secrets) to its line'),
});

/** `log`'s options (see {@link logOptions}). */
export interface LogOptions extends OptionsOf<typeof logOptions> {}

/** What code may give `log` besides its {@link LogOptions}, which a config file cannot write. */
export interface LogCodeOptions {
  /** Writes each entry to this logger (at `info`) instead of to `destination`. */
  readonly logger?: Logger;
}

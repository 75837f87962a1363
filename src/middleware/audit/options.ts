/**
 * @module
 * `audit`'s options, described once: this schema checks config files and is where the JSON Schema,
 * docs/middleware.md and the {@link AuditOptions} type come from. The middleware imports the types alone.
 */
import * as z from 'zod';
import type { Logger } from '../../log/logger.js';
import type { OptionsOf } from '../options-of.js';
import { redactorOptions, type RedactorOptions } from '../redact/options.js';

const positive = z.number().int().positive();

export const auditOptions = z.strictObject({
  file: z.string().min(1).describe('The JSONL file to append to (relative to the config file; in code, to the working directory)'),
  scope: z.enum(['tools', 'requests']).optional().describe('"tools" (the default): tools/call only; "requests": every request from the client'),
  separator: z.string().min(1).optional().describe('Between a server\'s name and a tool\'s name on a gateway (default "__"): the record\'s `server`'),
  redact: z
    .union([z.boolean(), redactorOptions.describe('Which detectors mask the recorded arguments')])
    .optional()
    .describe('Masks secrets in the recorded arguments: true (the default) with every built-in detector, or { detectors, custom, mask }; false records them as sent'),
  maxBytes: positive.optional().describe('Rotate before a record would take the file past this many bytes (default: never)'),
  maxAgeMs: positive.optional().describe('Rotate once the file has been written to for this many milliseconds (default: never)'),
  keep: z.number().int().nonnegative().optional().describe('How many rotated files (`<file>.<time>`) to keep; older ones are deleted. Default 10'),
  maxQueue: positive.optional().describe('How many records may wait for the disk; more are dropped, counted and the count recorded. Default 10000'),
  dropReportMs: positive.optional().describe('Dropped records are reported on stderr at most once per this many milliseconds. Default 10000'),
  flushIntervalMs: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('How long a record may wait for others to share its write, ms; shutdown writes at once, a crash loses at most this window. Default 50; 0: at once'),
});

/** `audit`'s options (see {@link auditOptions}); in code, a custom detector's pattern may be a `RegExp`. */
export interface AuditOptions extends Omit<OptionsOf<typeof auditOptions>, 'redact'> {
  readonly redact?: boolean | RedactorOptions | undefined;
}

/** What code may give `audit` besides its {@link AuditOptions}, which a config file cannot write. */
export interface AuditCodeOptions {
  /** Where drops and write failures are reported. Default: stderr. */
  readonly logger?: Logger;
  /** The clock, in ms since the epoch. For tests. */
  readonly now?: () => number;
  /** Appends text to a file. For tests (a stalled disk). Default: a handle kept open in append mode. */
  readonly append?: (file: string, text: string) => Promise<void>;
}

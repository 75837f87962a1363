import { isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { audit, type AuditOptions } from '../../middleware/audit/index.js';
import { BUILTIN_DETECTOR_NAMES } from '../../middleware/redact/detectors.js';
import type { RedactorOptions } from '../../middleware/redact/redactor.js';
import { builtin } from '../builtin-middleware.js';
import { customDetector } from './redact.js';

const redactor = z
  .strictObject({
    detectors: z
      .array(z.enum(BUILTIN_DETECTOR_NAMES))
      .optional()
      .describe(`The built-in detectors to use; default: all (${BUILTIN_DETECTOR_NAMES.join(', ')}); [] for none`),
    custom: z.array(customDetector).optional().describe('More detectors: { name, pattern, ignoreCase? }, tried after the built-in ones'),
    mask: z.string().optional().describe('What replaces a secret; `{name}` becomes the detector\'s name. Default "[REDACTED:{name}]"'),
  })
  .describe('Which detectors mask the recorded arguments');

const positive = z.number().int().positive();

/** The config file's `audit`: an append-only JSONL record of every tool call. */
export const auditBuiltin = builtin(
  'An append-only JSON Lines record of every tool call (who, which server and tool, redacted arguments, duration, outcome), rotated by size and age',
  z.strictObject({
    file: z.string().min(1).describe('The JSONL file to append to, relative to the config file'),
    scope: z.enum(['tools', 'requests']).optional().describe('"tools" (the default): tools/call only; "requests": every request from the client'),
    separator: z.string().min(1).optional().describe('Between a server\'s name and a tool\'s name on a gateway (default "__"): the record\'s `server`'),
    redact: z
      .union([z.boolean(), redactor])
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
  }),
  (options, context) => {
    const { file, redact, ...rest } = options;
    const resolved: AuditOptions = {
      ...(rest as Omit<AuditOptions, 'file' | 'redact'>),
      file: isAbsolute(file) ? file : resolve(context.dir, file),
      ...(redact === undefined ? {} : { redact: redact as boolean | RedactorOptions }),
      logger: context.log,
    };
    return audit(resolved);
  },
);

/**
 * @module
 * `limitResult`'s options, described once: this schema checks config files and is where the JSON
 * Schema, docs/middleware.md and the {@link LimitResultOptions} type come from. The middleware
 * imports the types alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';

const maxBytes = z.number().int().min(1024).describe('Bytes of the whole result serialized as JSON (UTF-8); at least 1024');
const maxTextChars = z.number().int().positive().describe('Characters (UTF-16 code units) of its text content, all text items together');
const onExceed = z
  .enum(['truncate', 'error'])
  .describe('"truncate" (the default): cut it down, with a note the model can read; "error": an isError result saying so instead');

export const resultCap = z
  .strictObject({ maxBytes: maxBytes.optional(), maxTextChars: maxTextChars.optional(), onExceed: onExceed.optional() })
  .refine((value) => value.maxBytes !== undefined || value.maxTextChars !== undefined, 'set maxBytes or maxTextChars')
  .describe('A cap: maxBytes and/or maxTextChars');

export const limitResultOptions = z.strictObject({
  maxBytes: maxBytes.optional(),
  maxTextChars: maxTextChars.optional(),
  onExceed: onExceed.optional(),
  tools: z
    .record(z.string(), resultCap)
    .optional()
    .describe('Caps per tool, keyed by name or glob as the client calls it (`github__*`: a whole server); the first match wins, others get the top-level cap'),
});

/** A cap on a result: `maxBytes` and/or `maxTextChars`. */
export interface ResultCap extends OptionsOf<typeof resultCap> {}
/** `limitResult`'s options (see {@link limitResultOptions}). */
export interface LimitResultOptions extends OptionsOf<typeof limitResultOptions> {}

import * as z from 'zod';
import { limitResult, type LimitResultOptions } from '../../middleware/limit-result/index.js';
import { builtin } from '../builtin-middleware.js';

const maxBytes = z.number().int().min(1024).describe('Bytes of the whole result serialized as JSON (UTF-8); at least 1024');
const maxTextChars = z.number().int().positive().describe('Characters (UTF-16 code units) of its text content, all text items together');
const onExceed = z
  .enum(['truncate', 'error'])
  .describe('"truncate" (the default): cut it down, with a note the model can read; "error": an isError result saying so instead');

const cap = z
  .strictObject({ maxBytes: maxBytes.optional(), maxTextChars: maxTextChars.optional(), onExceed: onExceed.optional() })
  .refine((value) => value.maxBytes !== undefined || value.maxTextChars !== undefined, 'set maxBytes or maxTextChars')
  .describe('A cap: maxBytes and/or maxTextChars');

/** The config file's `limitResult`: a cap on the size of tool results. */
export const limitResultBuiltin = builtin(
  'Caps the size of tool results (bytes or text characters): cut with a note the model can read, or an isError result',
  z.strictObject({
    maxBytes: maxBytes.optional(),
    maxTextChars: maxTextChars.optional(),
    onExceed: onExceed.optional(),
    tools: z
      .record(z.string(), cap)
      .optional()
      .describe('Caps per tool, keyed by name or glob as the client calls it (`github__*`: a whole server); the first match wins, others get the top-level cap'),
  }),
  (options) => limitResult(options as LimitResultOptions),
);

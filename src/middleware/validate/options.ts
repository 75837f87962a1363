/**
 * @module
 * `validate`'s options, described once: this schema checks config files and is where the JSON
 * Schema, docs/middleware.md and the {@link ValidateOptions} type come from. The middleware imports
 * the type alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';

const names = z.array(z.string()).describe('Tool names or globs (`*` any characters, `?` one character)');

export const validateOptions = z.strictObject({
  tools: z
    .strictObject({
      allow: names.optional().describe('Only these tools are checked; absent or empty: every tool'),
      deny: names.optional().describe('These tools are never checked; deny wins over allow'),
    })
    .optional()
    .describe('Which tools are checked (the others pass unchecked)'),
  output: z.boolean().optional().describe('Check structuredContent against outputSchema (a result that breaks it becomes an isError result); default true'),
  strict: z.boolean().optional().describe('A schema using a format ajv-formats does not know counts as a schema that does not compile; default false (the format is ignored)'),
  invalidSchema: z
    .enum(['allow', 'refuse'])
    .optional()
    .describe('A tool whose schema does not compile (not a schema, an unsupported $schema, a $ref that does not resolve): "allow" (the default) logs it once and lets its calls through unchecked; "refuse" refuses its calls with -32603'),
  invalidArguments: z
    .enum(['error', 'result'])
    .optional()
    .describe('Arguments that break the inputSchema: "result" (the default, as MCP 2025-11-25 asks) answers with an isError tool result the model can read; "error" refuses the call with -32602. Either way the call never reaches the server'),
  maxErrors: z.number().int().positive().optional().describe('How many errors an error message lists (all, up to 50, are in its data); default 3'),
});

/** `validate`'s options (see {@link validateOptions}). */
export interface ValidateOptions extends OptionsOf<typeof validateOptions> {}

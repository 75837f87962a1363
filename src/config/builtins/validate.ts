import * as z from 'zod';
import { validate } from '../../middleware/validate/index.js';
import { builtin } from '../builtin-middleware.js';

const names = z.array(z.string()).describe('Tool names or globs (`*` any characters, `?` one character)');

/** The config file's `validate`: tool arguments checked against inputSchema, structuredContent against outputSchema. */
export const validateBuiltin = builtin(
  'Checks tool arguments against the tool\'s inputSchema (refused with -32602 naming the field and the rule) and structuredContent against its outputSchema',
  z.strictObject({
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
      .describe('A tool whose schema does not compile: "allow" (the default) logs it once and lets its calls through unchecked; "refuse" refuses its calls with -32603'),
    invalidArguments: z
      .enum(['error', 'result'])
      .optional()
      .describe('Arguments that break the inputSchema: "result" (the default, as MCP 2025-11-25 asks) answers with an isError tool result the model can read; "error" refuses the call with -32602'),
    maxErrors: z.number().int().positive().optional().describe('How many errors an error message lists (all, up to 50, are in its data); default 3'),
  }),
  (options) => validate(options),
);

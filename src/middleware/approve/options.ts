/**
 * @module
 * `approve`'s options, described once: this schema checks config files and is where the JSON
 * Schema, docs/middleware.md and the {@link ApproveOptions} type come from. The middleware imports
 * the types alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';

const hint = (name: string, meaning: string, fallback: string): z.ZodOptional<z.ZodBoolean> =>
  z.boolean().optional().describe(`Match tools whose ${name} is this (${meaning}); a tool that does not say has ${fallback}`);

export const approvalHints = z
  .strictObject({
    destructiveHint: hint('destructiveHint', 'true: may destroy data', 'true, and a read-only tool false'),
    readOnlyHint: hint('readOnlyHint', 'true: changes nothing', 'false'),
    idempotentHint: hint('idempotentHint', 'true: repeating it does no more', 'false, and a read-only tool true'),
    openWorldHint: hint('openWorldHint', 'true: reaches the outside world', 'true'),
  })
  .describe(
    'Tools that need approval by their annotations as this session\'s tools/list showed them, every hint given must match; { "destructiveHint": true } also asks about tools that say nothing (the spec\'s defaults) and tools called before any tools/list',
  );

export const approveOptions = z
  .strictObject({
    tools: z
      .array(z.string())
      .optional()
      .describe(
        "Tools that need approval: names or globs as the client calls them here (`github__delete_*` in the gateway's middleware, the server's own names in a server's); a call matching tools OR annotations is asked about",
      ),
    annotations: approvalHints.optional(),
    fallback: z
      .enum(['deny', 'allow'])
      .optional()
      .describe('When the client cannot be asked (no form elicitation) or answers the question with an error: "deny" (the default) or "allow" (runs, with a warning in the log)'),
    onDeny: z
      .enum(['result', 'error'])
      .optional()
      .describe('A denied call is "result" (the default): an isError tool result saying why, for the model; or "error": JSON-RPC error -32003 with data { tool, reason }'),
    timeoutMs: z
      .number()
      .positive()
      .optional()
      .describe('How long the user has to answer, in milliseconds; then the question is cancelled and the call denied. Default 50000, under the 60 s request deadline of the session (--timeout) and of SDK clients, which also apply: raise those too when you raise this'),
    message: z.string().min(1).optional().describe('The question; {tool} and {arguments} (compact JSON, long strings cut) are filled in'),
    rememberForSession: z.boolean().optional().describe('Offer "Always allow <tool> for this session" (a checkbox in the form); default true'),
  })
  .refine(
    (value) => (value.tools?.length ?? 0) > 0 || Object.values(value.annotations ?? {}).some((v) => typeof v === 'boolean'),
    'set tools and/or annotations: which calls need approval',
  );

/** The annotations `approve` can match on (MCP `ToolAnnotations` hints). */
export interface ApprovalHints extends OptionsOf<typeof approvalHints> {}
/** `approve`'s options (see {@link approveOptions}). */
export interface ApproveOptions extends OptionsOf<typeof approveOptions> {}

/**
 * @module
 * `transform`'s options, described once: this schema checks config files (with the checks that
 * need only the options, `transformProblems`) and is where the JSON Schema, docs/middleware.md and
 * the {@link TransformOptions} type come from. The middleware imports the types alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';
import { transformProblems } from './transform-options.js';

const templated = (what: string): z.ZodOptional<z.ZodString> =>
  z.string().optional().describe(`The ${what}'s description as the client sees it; \`{description}\` stands for the original ("{description} Only for ACME's staging data.")`);

export const argumentTransform = z
  .strictObject({
    name: z.string().min(1).optional().describe('The name the client sees; calls are mapped back to the original name, which the client can no longer use'),
    description: templated('argument'),
    default: z.unknown().optional().describe('Added to the schema (and taken out of `required`); sent when a call leaves the argument out'),
    hide: z.boolean().optional().describe('true: removed from the schema the client sees; every call sends `value` (or `default`), and a call that sets it is refused (-32602)'),
    value: z.unknown().optional().describe('What a hidden argument is pinned to on every call'),
    enum: z.array(z.unknown()).min(1).optional().describe("Only these values; a subset of the tool's own enum when it has one"),
    minimum: z.number().optional().describe('The smallest number allowed'),
    maximum: z.number().optional().describe('The largest number allowed'),
    minLength: z.number().int().nonnegative().optional().describe('The fewest characters a string may have (Unicode code points)'),
    maxLength: z.number().int().nonnegative().optional().describe('The most characters a string may have (Unicode code points)'),
    pattern: z.string().optional().describe('A regular expression (ECMAScript, not anchored) strings must match'),
  })
  .describe('How an argument looks to the client, and what a call may set');

const annotations = z
  .looseObject({
    title: z.string().optional().describe('A display name'),
    readOnlyHint: z.boolean().optional().describe('true: the tool does not change its environment'),
    destructiveHint: z.boolean().optional().describe('true: the tool may delete or overwrite (meaningful when not read-only)'),
    idempotentHint: z.boolean().optional().describe('true: calling it again with the same arguments has no further effect'),
    openWorldHint: z.boolean().optional().describe('true: the tool reaches an open world (the web); false: a closed domain'),
  })
  .describe("Merged over the tool's own annotations");

export const toolTransform = z
  .strictObject({
    name: z.string().optional().describe('The name the client sees (1 to 128 of A-Z a-z 0-9 _ - .); the original name becomes unknown'),
    title: z.string().optional().describe('The title the client sees'),
    description: templated('tool'),
    annotations: annotations.optional(),
    enabled: z.boolean().optional().describe('false: hidden from the client, and calls to it refused as an unknown tool'),
    arguments: z.record(z.string(), argumentTransform).optional().describe("Keyed by the argument's original name"),
  })
  .describe('How a tool looks to the client');

export const transformOptions = z
  .strictObject({
    tools: z
      .record(z.string(), toolTransform)
      .optional()
      .describe("Keyed by the tool's name as the client sees it at this point (in the gateway's middleware: <server>__<tool>)"),
  })
  .superRefine((options, ctx) => {
    for (const problem of transformProblems(options)) ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
  });

/** How one argument of a tool looks to the client, and what a call may set. */
export interface ArgumentTransform extends OptionsOf<typeof argumentTransform> {}
/** How one tool looks to the client. */
export interface ToolTransform extends OptionsOf<typeof toolTransform> {}
/** `transform`'s options (see {@link transformOptions}). */
export interface TransformOptions extends OptionsOf<typeof transformOptions> {}

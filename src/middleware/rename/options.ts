/**
 * @module
 * `rename`'s options, described once: this schema checks config files and is where the JSON Schema,
 * docs/middleware.md and the {@link RenameOptions} type come from. The middleware imports the type alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';

export const renaming = z.union([
  z.string().describe('The new name'),
  z.strictObject({
    name: z.string().optional().describe('The name clients see and call'),
    title: z.string().optional().describe('The title clients show'),
    description: z.string().optional().describe('The description the model reads'),
  }),
]);

export const renameOptions = z.strictObject({
  tools: z.record(z.string(), renaming).optional().describe("Keyed by the tool's name on the server"),
  prompts: z.record(z.string(), renaming).optional().describe("Keyed by the prompt's name on the server"),
});

/** A new name, or overrides of the name, title and description. */
export type Renaming = OptionsOf<typeof renaming>;
/** `rename`'s options (see {@link renameOptions}). */
export interface RenameOptions extends OptionsOf<typeof renameOptions> {}

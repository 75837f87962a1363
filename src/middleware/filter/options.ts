/**
 * @module
 * `filter`'s options, described once: this schema checks config files and is where the JSON Schema,
 * docs/middleware.md and the {@link FilterOptions} type come from. Loaded by config files only:
 * the middleware imports the type alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';

const names = z.array(z.string()).describe('Names or globs (`*` any characters, `?` one character)');

export const filterRule = z
  .strictObject({
    allow: names.optional().describe('Only these (names or globs); absent or empty: everything'),
    deny: names.optional().describe('Never these (names or globs); deny wins over allow'),
  })
  .describe('Names or globs to allow and deny');

export const filterOptions = z.strictObject({
  tools: filterRule.optional().describe("Matched against the tool's name"),
  prompts: filterRule.optional().describe("Matched against the prompt's name"),
  resources: filterRule
    .optional()
    .describe(
      "Matched against a resource's uri or name, a template's uriTemplate or name. A uri is matched in every form a server could read it as: denied when any form is, allowed only when its normal form and its form with %2F, %5C and \\ read as / both are; write uri rules in normal form (lower-case scheme and host, no dot segments)",
    ),
});

/** Names or globs to allow and deny: deny wins over allow; an absent or empty `allow` allows everything. */
export interface FilterRule extends OptionsOf<typeof filterRule> {}
/** `filter`'s options (see {@link filterOptions}). */
export interface FilterOptions extends OptionsOf<typeof filterOptions> {}

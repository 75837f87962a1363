/**
 * @module
 * `discover`'s options, described once: this schema checks config files and is where the JSON
 * Schema, docs/middleware.md and the {@link DiscoverOptions} type come from. The middleware imports
 * the type alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';

const name = z.string().min(1);

export const discoverOptions = z.strictObject({
  names: z
    .strictObject({
      search: name.optional().describe('The search tool\'s name; default "search_tools"'),
      describe: name.optional().describe('The describe tool\'s name; default "describe_tool"'),
      call: name.optional().describe('The call tool\'s name; default "call_tool"'),
    })
    .refine((value) => new Set(Object.values(value)).size === Object.values(value).length, 'the meta-tools need different names')
    .optional()
    .describe('The meta-tools\' names'),
  alwaysShow: z
    .array(z.string())
    .optional()
    .describe('Tools listed as they are next to the meta-tools: names or globs as the client calls them (`memory__*`); default none'),
  minTools: z.number().int().min(0).optional().describe('A catalog of at most this many tools is listed unchanged, without meta-tools; default 0 (always the meta-tools)'),
  defaultLimit: z.number().int().min(1).optional().describe('How many tools a search returns when it does not say; default 10'),
  maxLimit: z.number().int().min(1).optional().describe('The most tools a search returns, whatever it asks; default 50'),
});

/** `discover`'s options (see {@link discoverOptions}). */
export interface DiscoverOptions extends OptionsOf<typeof discoverOptions> {}

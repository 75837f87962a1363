/**
 * @module
 * `cache`'s options, described once: this schema checks config files and is where the JSON Schema,
 * docs/middleware.md and the {@link CacheOptions} type come from. The middleware imports the types alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';

const ms = (what: string): z.ZodOptional<z.ZodNumber> => z.number().min(0).optional().describe(`${what} (milliseconds; 0: never cached)`);

export const cacheTtl = z
  .strictObject({
    lists: ms('How long a page of tools/list, prompts/list, resources/list or resources/templates/list is kept; default 300000'),
    resources: ms('How long a resources/read is kept, by uri; default 60000'),
    tools: ms('How long a cacheable tool\'s result is kept, by name and arguments; default 60000'),
  })
  .describe('Time to live per kind of answer');

export const cacheOptions = z.strictObject({
  ttlMs: cacheTtl.optional(),
  tools: z
    .array(z.string())
    .optional()
    .describe('Tools whose results may be cached: names or globs (`*` any characters, `?` one character); default none'),
  readOnly: z
    .boolean()
    .optional()
    .describe('Also cache tools the server marks annotations.readOnlyHint: true (as the session last saw them in tools/list); default false: the hint is the server\'s claim, not a promise'),
  shared: z
    .boolean()
    .optional()
    .describe('One cache for every client; default false: per identity, or per session where there is none, so no client sees what was fetched for another'),
  maxEntries: z.number().int().min(0).optional().describe('The most entries kept (the least recently used evicted first); default 1000'),
  maxBytes: z.number().int().min(0).optional().describe('The most bytes of serialized results kept (the least recently used evicted first); default 16777216 (16 MiB)'),
  singleFlight: z
    .boolean()
    .optional()
    .describe('Identical requests on their way at once share one upstream call (a failure of the first sends the others upstream on their own); default true'),
});

/** Time to live per kind of answer, ms. */
export interface CacheTtl extends OptionsOf<typeof cacheTtl> {}
/** `cache`'s options (see {@link cacheOptions}). */
export interface CacheOptions extends OptionsOf<typeof cacheOptions> {}

/** What code may give `cache` besides its {@link CacheOptions}, which a config file cannot write. */
export interface CacheCodeOptions {
  /** The clock for time to live (ms); for tests. Default `Date.now`. */
  readonly now?: () => number;
}

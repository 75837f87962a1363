import * as z from 'zod';
import { cache, type CacheOptions } from '../../middleware/cache/index.js';
import { builtin } from '../builtin-middleware.js';

const ms = (what: string): z.ZodOptional<z.ZodNumber> => z.number().min(0).optional().describe(`${what} (milliseconds; 0: never cached)`);

/** The config file's `cache`: a TTL cache for lists, resource reads and cacheable tool calls. */
export const cacheBuiltin = builtin(
  'Serves list pages, resources/read and cacheable tool calls from memory for a while (per identity unless shared; dropped on list_changed and resources/updated)',
  z.strictObject({
    ttlMs: z
      .strictObject({
        lists: ms('How long a page of tools/list, prompts/list, resources/list or resources/templates/list is kept; default 300000'),
        resources: ms('How long a resources/read is kept, by uri; default 60000'),
        tools: ms('How long a cacheable tool\'s result is kept, by name and arguments; default 60000'),
      })
      .optional()
      .describe('Time to live per kind of answer'),
    tools: z
      .array(z.string())
      .optional()
      .describe('Tools whose results may be cached: names or globs (`*` any characters, `?` one character); default none'),
    readOnly: z.boolean().optional().describe('Also cache tools the server marks annotations.readOnlyHint: true; default false'),
    shared: z.boolean().optional().describe('One cache for every client; default false: per identity, or per session where there is none'),
    maxEntries: z.number().int().min(0).optional().describe('The most entries kept (the least recently used evicted first); default 1000'),
    maxBytes: z.number().int().min(0).optional().describe('The most bytes of serialized results kept (the least recently used evicted first); default 16777216 (16 MiB)'),
    singleFlight: z.boolean().optional().describe('Identical requests on their way at once share one upstream call; default true'),
  }),
  (options) => cache(options as CacheOptions),
);

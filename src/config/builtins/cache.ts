import { cache } from '../../middleware/cache/index.js';
import { cacheOptions } from '../../middleware/cache/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `cache`: a TTL cache for lists, resource reads and cacheable tool calls. */
export const cacheBuiltin = builtin(
  'Serves list pages, resources/read and cacheable tool calls from memory for a while (per identity unless shared; dropped on list_changed and resources/updated)',
  cacheOptions,
  (options) => cache(options),
);

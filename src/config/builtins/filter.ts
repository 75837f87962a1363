import { filter } from '../../middleware/filter/index.js';
import { filterOptions } from '../../middleware/filter/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `filter`: tools, prompts and resources hidden by name. */
export const filterBuiltin = builtin('Hides tools, prompts and resources by name', filterOptions, (options) => filter(options));

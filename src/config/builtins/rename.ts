import { rename } from '../../middleware/rename/index.js';
import { renameOptions } from '../../middleware/rename/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `rename`: tools and prompts under new names, titles and descriptions. */
export const renameBuiltin = builtin('Shows tools and prompts under new names, titles and descriptions', renameOptions, (options) => rename(options));

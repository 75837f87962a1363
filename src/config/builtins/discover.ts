import { discover } from '../../middleware/discover/index.js';
import { discoverOptions } from '../../middleware/discover/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `discover`: search_tools, describe_tool and call_tool in place of a large catalog. */
export const discoverBuiltin = builtin(
  'Progressive discovery for large catalogs: the client sees search_tools, describe_tool and call_tool instead of every tool; calls go through the rest of the chain as ordinary calls',
  discoverOptions,
  (options) => discover(options),
);

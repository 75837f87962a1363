import { transform } from '../../middleware/transform/index.js';
import { transformOptions } from '../../middleware/transform/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `transform`: tools renamed, redescribed, hidden; arguments renamed, defaulted, hidden (pinned) and narrowed. */
export const transformBuiltin = builtin(
  'Tools renamed, retitled, redescribed and hidden; their arguments renamed, defaulted, hidden (pinned to a value) and narrowed',
  transformOptions,
  (options) => transform(options),
);

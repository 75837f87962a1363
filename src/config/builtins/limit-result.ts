import { limitResult } from '../../middleware/limit-result/index.js';
import { limitResultOptions } from '../../middleware/limit-result/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `limitResult`: a cap on the size of tool results. */
export const limitResultBuiltin = builtin(
  'Caps the size of tool results (bytes or text characters): cut with a note the model can read, or an isError result',
  limitResultOptions,
  (options) => limitResult(options),
);

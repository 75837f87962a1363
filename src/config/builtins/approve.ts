import { approve } from '../../middleware/approve/index.js';
import { approveOptions } from '../../middleware/approve/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `approve`: the user says yes before chosen tools run. */
export const approveBuiltin = builtin(
  'Asks the user (elicitation, form mode) before chosen tools run, by name or by annotations; "always for this session"; denied calls get an isError result',
  approveOptions,
  (options) => approve(options),
);

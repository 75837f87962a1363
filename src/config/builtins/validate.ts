import { validate } from '../../middleware/validate/index.js';
import { validateOptions } from '../../middleware/validate/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `validate`: tool arguments checked against inputSchema, structuredContent against outputSchema. */
export const validateBuiltin = builtin(
  "Checks tool arguments against the tool's inputSchema (refused with -32602 naming the field and the rule) and structuredContent against its outputSchema",
  validateOptions,
  (options) => validate(options),
);

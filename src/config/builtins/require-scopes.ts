import { requireScopes } from '../../middleware/require-scopes/index.js';
import { requireScopesOptions } from '../../middleware/require-scopes/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `requireScopes`: tools, prompts and resources allowed by the caller's OAuth scopes. */
export const requireScopesBuiltin = builtin(
  "Allows tools, prompts and resources by the caller's OAuth scopes: what they do not cover is hidden, or listed and refused naming the scope",
  requireScopesOptions,
  (options) => requireScopes(options),
);

import type { BuiltinMiddleware } from './builtin-middleware.js';
import { approveBuiltin } from './builtins/approve.js';
import { auditBuiltin } from './builtins/audit.js';
import { cacheBuiltin } from './builtins/cache.js';
import { discoverBuiltin } from './builtins/discover.js';
import { filterBuiltin } from './builtins/filter.js';
import { limitResultBuiltin } from './builtins/limit-result.js';
import { logBuiltin } from './builtins/log.js';
import { pinBuiltin } from './builtins/pin.js';
import { rateLimitBuiltin } from './builtins/rate-limit.js';
import { redactBuiltin } from './builtins/redact.js';
import { renameBuiltin } from './builtins/rename.js';
import { requireScopesBuiltin } from './builtins/require-scopes.js';
import { retryBuiltin } from './builtins/retry.js';
import { timeoutBuiltin } from './builtins/timeout.js';
import { transformBuiltin } from './builtins/transform.js';
import { validateBuiltin } from './builtins/validate.js';

export type { BuiltinMiddleware, MiddlewareContext } from './builtin-middleware.js';

/**
 * The middleware a config file can name, by name. Adding one: its options' schema in
 * `src/middleware/<name>/options.ts` (its function's parameter type is inferred from it), its file
 * in `builtins/` (a description, that schema, how to make it), one entry here and in
 * `BuiltinOptions` (define-config.ts); builtin-options.test.ts checks they agree.
 */
export const BUILTIN_MIDDLEWARE: Readonly<Record<string, BuiltinMiddleware>> = {
  filter: filterBuiltin,
  rename: renameBuiltin,
  log: logBuiltin,
  transform: transformBuiltin,
  validate: validateBuiltin,
  rateLimit: rateLimitBuiltin,
  cache: cacheBuiltin,
  timeout: timeoutBuiltin,
  retry: retryBuiltin,
  redact: redactBuiltin,
  limitResult: limitResultBuiltin,
  audit: auditBuiltin,
  approve: approveBuiltin,
  discover: discoverBuiltin,
  pin: pinBuiltin,
  requireScopes: requireScopesBuiltin,
};

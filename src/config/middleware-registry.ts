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
 * The middleware a config file can name, by name. Adding one is one entry here: a description,
 * the zod schema of its options (it becomes part of the config file's JSON Schema, and validates
 * files with positions and suggestions), and how to make it.
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

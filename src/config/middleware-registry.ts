import { isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { filter, type FilterOptions } from '../middleware/filter/index.js';
import { log, type LogOptions } from '../middleware/log/index.js';
import { rename, type RenameOptions } from '../middleware/rename/index.js';
import { builtin, type BuiltinMiddleware } from './builtin-middleware.js';
import { approveBuiltin } from './builtins/approve.js';
import { auditBuiltin } from './builtins/audit.js';
import { cacheBuiltin } from './builtins/cache.js';
import { discoverBuiltin } from './builtins/discover.js';
import { limitResultBuiltin } from './builtins/limit-result.js';
import { pinBuiltin } from './builtins/pin.js';
import { rateLimitBuiltin } from './builtins/rate-limit.js';
import { redactBuiltin } from './builtins/redact.js';
import { requireScopesBuiltin } from './builtins/require-scopes.js';
import { retryBuiltin } from './builtins/retry.js';
import { timeoutBuiltin } from './builtins/timeout.js';
import { transformBuiltin } from './builtins/transform.js';
import { validateBuiltin } from './builtins/validate.js';

export type { BuiltinMiddleware, MiddlewareContext } from './builtin-middleware.js';

const names = z.array(z.string()).describe('Names or globs (`*` any characters, `?` one character)');
const rule = z
  .strictObject({
    allow: names.optional().describe('Only these (names or globs); absent or empty: everything'),
    deny: names.optional().describe('Never these (names or globs); deny wins over allow'),
  })
  .describe('Names or globs to allow and deny');

const renaming = z.union([
  z.string().describe('The new name'),
  z.strictObject({
    name: z.string().optional().describe('The name clients see and call'),
    title: z.string().optional().describe('The title clients show'),
    description: z.string().optional().describe('The description the model reads'),
  }),
]);

/**
 * The middleware a config file can name, by name. Adding one is one entry here: a description,
 * the zod schema of its options (it becomes part of the config file's JSON Schema, and validates
 * files with positions and suggestions), and how to make it.
 */
export const BUILTIN_MIDDLEWARE: Readonly<Record<string, BuiltinMiddleware>> = {
  filter: builtin(
    'Hides tools, prompts and resources by name',
    z.strictObject({
      tools: rule.optional().describe("Matched against the tool's name"),
      prompts: rule.optional().describe("Matched against the prompt's name"),
      resources: rule.optional().describe("Matched against a resource's uri or name, a template's uriTemplate or name"),
    }),
    (options) => filter(options as FilterOptions),
  ),
  rename: builtin(
    'Shows tools and prompts under new names, titles and descriptions',
    z.strictObject({
      tools: z.record(z.string(), renaming).optional().describe("Keyed by the tool's name on the server"),
      prompts: z.record(z.string(), renaming).optional().describe("Keyed by the prompt's name on the server"),
    }),
    (options) => rename(options as RenameOptions),
  ),
  log: builtin(
    'One JSON line per call (or per message), to stderr or a JSONL file',
    z.strictObject({
      destination: z.string().min(1).optional().describe('"stderr" (the default) or a JSONL file to append to, relative to the config file'),
      level: z.enum(['call', 'message']).optional().describe('"call" (the default): requests only; "message": notifications too'),
      includeParams: z.boolean().optional().describe('Adds each message\'s params (tool arguments: may carry secrets) to its line'),
    }),
    (options, context) => {
      const { destination } = options;
      const resolved: LogOptions = { ...(options as LogOptions) };
      if (destination !== undefined && destination !== 'stderr' && !isAbsolute(destination)) resolved.destination = resolve(context.dir, destination);
      return log(resolved);
    },
  ),
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

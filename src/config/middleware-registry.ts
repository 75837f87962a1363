import { isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import type { Middleware } from '../chain/middleware.js';
import type { Logger } from '../log/logger.js';
import { filter, type FilterOptions } from '../middleware/filter/index.js';
import { log, type LogOptions } from '../middleware/log/index.js';
import { rename, type RenameOptions } from '../middleware/rename/index.js';

/** What a built-in is made with besides its options. */
export interface MiddlewareContext {
  /** The directory of the config file: relative paths in options are relative to it. */
  readonly dir: string;
  readonly log: Logger;
}

/** A middleware that a config file can name: `"log"`, or `{ "filter": { ...options } }`. */
export interface BuiltinMiddleware {
  /** One line, for the JSON Schema and `mcp-chain validate`. */
  readonly description: string;
  /** Its options as a file writes them (an object; unknown keys are errors). */
  readonly options: z.ZodType<Record<string, unknown>>;
  /** Makes it from options that `options` accepted. */
  create(options: Record<string, unknown>, context: MiddlewareContext): Middleware;
}

function builtin<Schema extends z.ZodType<Record<string, unknown>>>(
  description: string,
  options: Schema,
  create: (options: z.output<Schema>, context: MiddlewareContext) => Middleware,
): BuiltinMiddleware {
  return { description, options, create: (raw, context) => create(options.parse(raw), context) };
}

const names = z.array(z.string()).describe('Names or globs (`*` any characters, `?` one character)');
const rule = z
  .strictObject({
    allow: names.optional().describe('Only these (names or globs); absent or empty: everything'),
    deny: names.optional().describe('Never these (names or globs); deny wins over allow'),
  })
  .describe('Names or globs to allow and deny');

const renaming = z.union([
  z.string().describe('The new name'),
  z.strictObject({ name: z.string().optional(), title: z.string().optional(), description: z.string().optional() }),
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
};

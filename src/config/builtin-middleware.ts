import type * as z from 'zod';
import type { Middleware } from '../chain/middleware.js';
import type { Logger } from '../log/logger.js';

/** What a built-in is made with besides its options. */
export interface MiddlewareContext {
  /** The directory of the config file: relative paths in options are relative to it. */
  readonly dir: string;
  /** The config file the middleware is named in. */
  readonly file: string;
  /** The server whose `middleware` list names it; absent for the gateway's own `middleware`. */
  readonly server?: string;
  readonly log: Logger;
}

/** The zod schema of a built-in's options: an object, unknown keys errors. */
export type OptionsSchema = z.ZodType<Record<string, unknown>>;

/** A middleware that a config file can name: `"log"`, or `{ "filter": { ...options } }`. */
export interface BuiltinMiddleware<Schema extends OptionsSchema = OptionsSchema> {
  /** One line, for the JSON Schema and `mcp-chain validate`. */
  readonly description: string;
  /** Its options, described once: the schema in `src/middleware/<name>/options.ts`, which its function's parameter type is inferred from. */
  readonly options: Schema;
  /** Makes it from options that `options` accepted. */
  create(options: Record<string, unknown>, context: MiddlewareContext): Middleware;
}

/**
 * A config file's built-in: its description, the zod schema of its options (the middleware's own,
 * from its folder's `options.ts`: part of the config file's JSON Schema, it validates files with
 * positions and suggestions), and how to make it from what the schema accepted (resolving paths
 * against the config file, adding the logger). One file per built-in in `builtins/`, listed in
 * `middleware-registry.ts`.
 */
export function builtin<Schema extends OptionsSchema>(
  description: string,
  options: Schema,
  create: (options: z.output<Schema>, context: MiddlewareContext) => Middleware,
): BuiltinMiddleware<Schema> {
  return { description, options, create: (raw, context) => create(options.parse(raw), context) };
}

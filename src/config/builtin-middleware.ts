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

/** A middleware that a config file can name: `"log"`, or `{ "filter": { ...options } }`. */
export interface BuiltinMiddleware {
  /** One line, for the JSON Schema and `mcp-chain validate`. */
  readonly description: string;
  /** Its options as a file writes them (an object; unknown keys are errors). */
  readonly options: z.ZodType<Record<string, unknown>>;
  /** Makes it from options that `options` accepted. */
  create(options: Record<string, unknown>, context: MiddlewareContext): Middleware;
}

/**
 * A config file's built-in: its description, the zod schema of its options (part of the config
 * file's JSON Schema; it validates files with positions and suggestions), and how to make it.
 * One file per built-in in `builtins/`, listed in `middleware-registry.ts`.
 */
export function builtin<Schema extends z.ZodType<Record<string, unknown>>>(
  description: string,
  options: Schema,
  create: (options: z.output<Schema>, context: MiddlewareContext) => Middleware,
): BuiltinMiddleware {
  return { description, options, create: (raw, context) => create(options.parse(raw), context) };
}

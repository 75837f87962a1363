/**
 * @module
 * `timeout`'s options, described once: this schema checks config files and is where the JSON
 * Schema, docs/middleware.md and the {@link TimeoutMiddlewareOptions} type come from. The
 * middleware imports the type alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';

const ms = z.number().int().positive();

export const timeoutOptions = z.strictObject({
  ms: ms.optional().describe('The deadline of every tool call no other key sets, in milliseconds; default: none (the session\'s own)'),
  tools: z
    .record(z.string(), ms)
    .optional()
    .describe('Per tool, in milliseconds, keyed by name or glob as the client calls it; the first match wins, before `servers` and `ms`'),
  servers: z
    .record(z.string(), ms)
    .optional()
    .describe('Per server of the gateway, in milliseconds, keyed by its prefix ({ "github": 5000 } covers github__*); before `ms`'),
  separator: z.string().min(1).optional().describe('Between a server\'s prefix and a tool\'s name; default "__" (the gateway\'s)'),
});

/** `timeout`'s options (see {@link timeoutOptions}). */
export interface TimeoutMiddlewareOptions extends OptionsOf<typeof timeoutOptions> {}

import * as z from 'zod';
import { timeout, type TimeoutMiddlewareOptions } from '../../middleware/timeout/index.js';
import { builtin } from '../builtin-middleware.js';

const ms = z.number().int().positive();

/** The config file's `timeout`: deadlines for tool calls. */
export const timeoutBuiltin = builtin(
  'Deadlines for tool calls per tool, per server or for all: past it the call is cancelled and the client gets -32001',
  z.strictObject({
    ms: ms.optional().describe('The deadline of every tool call no other key sets, in milliseconds'),
    tools: z.record(z.string(), ms).optional().describe('Per tool, in milliseconds, keyed by name or glob as the client calls it; the first match wins'),
    servers: z.record(z.string(), ms).optional().describe('Per server of the gateway, in milliseconds, keyed by its prefix ({ "github": 5000 } covers github__*)'),
    separator: z.string().min(1).optional().describe('Between a server\'s prefix and a tool\'s name; default "__"'),
  }),
  (options) => timeout(options as TimeoutMiddlewareOptions),
);

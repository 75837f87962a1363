import * as z from 'zod';
import { rateLimit } from '../../middleware/rate-limit/index.js';
import { builtin } from '../builtin-middleware.js';

const key = z
  .array(z.enum(['identity', 'session', 'tool', 'server']))
  .describe('What a bucket (or count) is kept per: identity (the session when unauthenticated), session, tool, server (the prefix of <server>__<tool>)');
const tools = z.array(z.string()).describe('The tools it covers: names or globs (`*` any characters, `?` one character); absent: every tool');

const limit = z
  .strictObject({
    key: key.optional().describe('One bucket per distinct combination of these; absent or empty: one bucket for every call the rule covers'),
    tools: tools.optional(),
    rate: z.number().positive().describe('Calls allowed per `per` (fractions allowed: 0.5 per second is one every 2 s)'),
    per: z
      .union([z.enum(['second', 'minute', 'hour']), z.number().positive().describe('Milliseconds')])
      .describe('"second", "minute", "hour", or a number of milliseconds'),
    burst: z.number().min(1).optional().describe('The most calls at once after a quiet time (the bucket size); default: rate (at least 1)'),
  })
  .describe('A token bucket: rate calls per `per`, up to burst at once');

const concurrency = z
  .strictObject({
    tools: tools.optional(),
    maxConcurrent: z.number().int().positive().describe('The most calls in flight at once; further calls are refused (-32029), not queued'),
    key: key.optional().describe('What the count is kept per; default ["tool"] (each tool its own count); []: one count for every tool covered'),
    retryAfterMs: z.number().min(0).optional().describe('The retryAfterMs a refusal suggests; default 1000'),
  })
  .describe('A limit on calls in flight');

/** The config file's `rateLimit`: token buckets and concurrency limits on tool calls. */
export const rateLimitBuiltin = builtin(
  'Token buckets per identity, session, tool or server, and concurrency limits, on tool calls (refusals: -32029 with retryAfterMs)',
  z.strictObject({
    limits: z.array(limit).optional().describe('Token buckets; a call needs a token in every rule that covers it'),
    concurrency: z.array(concurrency).optional().describe('Concurrency limits; a call must fit in every rule that covers it'),
    separator: z.string().min(1).optional().describe('Between a gateway name\'s server and tool, for the `server` key; default "__"'),
    maxBuckets: z.number().int().positive().optional().describe('The most buckets kept per rule (and per session); the least recently used is forgotten past it; default 10000'),
  }),
  (options) => rateLimit(options),
);

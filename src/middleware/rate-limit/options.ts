/**
 * @module
 * `rateLimit`'s options, described once: this schema checks config files and is where the JSON
 * Schema, docs/middleware.md and the {@link RateLimitOptions} type come from. The middleware
 * imports the types alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';

const rateLimitKey = z.enum(['identity', 'session', 'tool', 'server']);
const key = z
  .array(rateLimitKey)
  .describe('What a bucket (or count) is kept per: identity (the session when unauthenticated), session, tool, server (the prefix of <server>__<tool>)');
const tools = z.array(z.string()).describe('The tools it covers: names or globs (`*` any characters, `?` one character); absent: every tool');

export const rateLimitRule = z
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

export const concurrencyRule = z
  .strictObject({
    tools: tools.optional(),
    maxConcurrent: z.number().int().positive().describe('The most calls in flight at once; further calls are refused (-32029), not queued'),
    key: key.optional().describe('What the count is kept per; default ["tool"] (each tool its own count); []: one count for every tool covered'),
    retryAfterMs: z.number().min(0).optional().describe('The retryAfterMs a refusal suggests (nobody knows when a call will end); default 1000'),
  })
  .describe('A limit on calls in flight');

export const rateLimitOptions = z.strictObject({
  limits: z.array(rateLimitRule).optional().describe('Token buckets; a call needs a token in every rule that covers it'),
  concurrency: z.array(concurrencyRule).optional().describe('Concurrency limits; a call must fit in every rule that covers it'),
  separator: z.string().min(1).optional().describe('Between a gateway name\'s server and tool, for the `server` key; default "__"'),
  maxBuckets: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('The most buckets kept per rule (and per session); the least recently used is forgotten past it (it starts full again); default 10000'),
});

/** What a bucket (or count) is kept per. */
export type RateLimitKey = z.infer<typeof rateLimitKey>;
/** A token bucket: `rate` calls per `per`, up to `burst` at once after a quiet time. */
export interface RateLimitRule extends OptionsOf<typeof rateLimitRule> {}
/** A limit on calls in flight. */
export interface ConcurrencyRule extends OptionsOf<typeof concurrencyRule> {}
/** `rateLimit`'s options (see {@link rateLimitOptions}). */
export interface RateLimitOptions extends OptionsOf<typeof rateLimitOptions> {}

/** What code may give `rateLimit` besides its {@link RateLimitOptions}, which a config file cannot write. */
export interface RateLimitCodeOptions {
  /** The clock, in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

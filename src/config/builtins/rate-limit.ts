import { rateLimit } from '../../middleware/rate-limit/index.js';
import { rateLimitOptions } from '../../middleware/rate-limit/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `rateLimit`: token buckets and concurrency limits on tool calls. */
export const rateLimitBuiltin = builtin(
  'Token buckets per identity, session, tool or server, and concurrency limits, on tool calls (refusals: -32029 with retryAfterMs)',
  rateLimitOptions,
  (options) => rateLimit(options),
);

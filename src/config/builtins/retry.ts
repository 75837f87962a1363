import { retry } from '../../middleware/retry/index.js';
import { retryOptions } from '../../middleware/retry/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `retry`: tool calls safe to repeat, tried again on failures a second try can fix. */
export const retryBuiltin = builtin(
  'Retries calls to tools configured safe to repeat (never by default) on chosen failures, with exponential backoff and full jitter',
  retryOptions,
  (options) => retry(options),
);

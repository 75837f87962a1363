import { timeout } from '../../middleware/timeout/index.js';
import { timeoutOptions } from '../../middleware/timeout/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `timeout`: deadlines for tool calls. */
export const timeoutBuiltin = builtin(
  'Deadlines for tool calls per tool, per server or for all: past it the call is cancelled and the client gets -32001',
  timeoutOptions,
  (options) => timeout(options),
);

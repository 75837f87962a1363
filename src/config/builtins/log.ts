import { isAbsolute, resolve } from 'node:path';
import { log } from '../../middleware/log/index.js';
import { logOptions } from '../../middleware/log/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `log`: one JSON line per call; a relative `destination` is relative to the config file. */
export const logBuiltin = builtin('One JSON line per call (or per message), to stderr or a JSONL file', logOptions, ({ destination, ...options }, context) =>
  log({
    ...options,
    ...(destination === undefined ? {} : { destination: destination === 'stderr' || isAbsolute(destination) ? destination : resolve(context.dir, destination) }),
  }),
);

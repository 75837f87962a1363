import { isAbsolute, resolve } from 'node:path';
import { pin } from '../../middleware/pin/index.js';
import { pinOptions } from '../../middleware/pin/options.js';
import { builtin } from '../builtin-middleware.js';

/**
 * The config file's `pin`: tool definitions pinned on first use, changes held back until accepted.
 * A relative `store` is relative to the config file; `namespace` defaults to the server's name.
 */
export const pinBuiltin = builtin(
  "Pins each tool's definition the first time it is listed; a later, different definition is warned about, hidden or blocks the server until `mcp-chain pin accept`, and a tool added later can be held back the same way; scans for tool poisoning",
  pinOptions,
  ({ store, namespace, ...options }, context) =>
    pin({
      ...options,
      namespace: namespace ?? context.server ?? 'gateway',
      ...(store === undefined ? {} : { store: isAbsolute(store) ? store : resolve(context.dir, store) }),
      logger: context.log,
    }),
);

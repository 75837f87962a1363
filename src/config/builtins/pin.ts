import { isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { pin, type PinOptions, type PinScanOptions } from '../../middleware/pin/index.js';
import { builtin } from '../builtin-middleware.js';

const scan = z
  .strictObject({
    action: z
      .enum(['warn', 'strip', 'hide'])
      .optional()
      .describe('"warn" (the default): log the findings, show the tool as sent; "strip": remove invisible and bidirectional characters and tagged blocks, cut long descriptions; "hide": drop the tool and refuse calls to it'),
    maxDescriptionLength: z.number().int().positive().optional().describe('A description longer than this many characters is a finding (default 2000)'),
  })
  .describe('The tool-poisoning scan of descriptions and schemas: <IMPORTANT>-style tags, "ignore previous instructions"-style phrases, invisible and bidirectional Unicode, long descriptions');

/** The config file's `pin`: tool definitions pinned on first use, changes held back until accepted. */
export const pinBuiltin = builtin(
  'Pins each tool\'s definition the first time it is listed; a later, different definition is warned about, hidden or blocks the server until `mcp-chain pin accept`, and a tool added later can be held back the same way; scans for tool poisoning',
  z.strictObject({
    store: z
      .string()
      .min(1)
      .optional()
      .describe('The pin store (JSON), relative to the config file; default $XDG_CONFIG_HOME/mcp-chain/pins.json (~/.config/mcp-chain/pins.json)'),
    namespace: z
      .string()
      .min(1)
      .optional()
      .describe("The store's key for these tools; default the server's name in a server's middleware list, \"gateway\" in the gateway's"),
    onChange: z
      .enum(['warn', 'hide', 'block'])
      .optional()
      .describe('When a definition differs from the pinned one: "warn" (the default) logs it and shows the tool; "hide" hides the tool and refuses calls to it; "block" hides every tool and refuses every call of this middleware (in a server\'s list: that server)'),
    onNew: z
      .enum(['pin', 'warn', 'hide'])
      .optional()
      .describe('A tool first seen in a namespace that already has pins (the first listing always pins every tool): "pin" (the default) pins it; "warn" pins it and logs a warning; "hide" does not pin it, hides it and refuses calls to it until `mcp-chain pin accept`'),
    scan: z.union([z.literal(false), scan]).optional().describe('The tool-poisoning scan: on by default with { "action": "warn" }; false turns it off'),
  }),
  (options, context) => {
    const { store, namespace, onChange, onNew, scan: scanOptions } = options;
    const resolved: PinOptions = {
      namespace: namespace ?? context.server ?? 'gateway',
      ...(store === undefined ? {} : { store: isAbsolute(store) ? store : resolve(context.dir, store) }),
      ...(onChange === undefined ? {} : { onChange }),
      ...(onNew === undefined ? {} : { onNew }),
      ...(scanOptions === undefined ? {} : { scan: scanOptions as false | PinScanOptions }),
      logger: context.log,
    };
    return pin(resolved);
  },
);

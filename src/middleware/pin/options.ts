/**
 * @module
 * `pin`'s options, described once: this schema checks config files and is where the JSON Schema,
 * docs/middleware.md and the {@link PinOptions} type come from. The middleware imports the types alone.
 */
import * as z from 'zod';
import type { Logger } from '../../log/logger.js';
import type { OptionsOf } from '../options-of.js';
import type { PinStore } from './pin-store.js';

const pinChangeAction = z.enum(['warn', 'hide', 'block']);
const pinNewAction = z.enum(['pin', 'warn', 'hide']);

export const pinScanOptions = z
  .strictObject({
    action: z
      .enum(['warn', 'strip', 'hide'])
      .optional()
      .describe('"warn" (the default): log the findings, show the tool as sent; "strip": remove invisible and bidirectional characters and tagged blocks, cut long descriptions; "hide": drop the tool and refuse calls to it'),
    maxDescriptionLength: z.number().int().positive().optional().describe('A description longer than this many characters is a finding (default 2000)'),
  })
  .describe('The tool-poisoning scan of descriptions and schemas: <IMPORTANT>-style tags, "ignore previous instructions"-style phrases, invisible and bidirectional Unicode, long descriptions');

export const pinOptions = z.strictObject({
  store: z
    .string()
    .min(1)
    .optional()
    .describe('The pin store (JSON), relative to the config file (in code, to the working directory); default $XDG_CONFIG_HOME/mcp-chain/pins.json (~/.config/mcp-chain/pins.json)'),
  namespace: z
    .string()
    .min(1)
    .optional()
    .describe("The store's key for these tools; default the server's name in a server's middleware list, \"gateway\" in the gateway's (and in code)"),
  onChange: pinChangeAction
    .optional()
    .describe('When a definition differs from the pinned one: "warn" (the default) logs it and shows the tool; "hide" hides the tool and refuses calls to it; "block" hides every tool and refuses every call of this middleware (in a server\'s list: that server)'),
  onNew: pinNewAction
    .optional()
    .describe('A tool first seen in a namespace that already has pins (the first listing always pins every tool): "pin" (the default) pins it; "warn" pins it and logs a warning; "hide" does not pin it, hides it and refuses calls to it until `mcp-chain pin accept`'),
  scan: z.union([z.literal(false), pinScanOptions]).optional().describe('The tool-poisoning scan: on by default with { "action": "warn" }; false turns it off'),
});

/** What happens when a server presents a tool whose definition differs from the pinned one. */
export type PinChangeAction = z.infer<typeof pinChangeAction>;
/** What happens to a tool never seen before in a namespace that already has pins. */
export type PinNewAction = z.infer<typeof pinNewAction>;
/** The tool-poisoning scan (see {@link pinScanOptions}). */
export interface PinScanOptions extends OptionsOf<typeof pinScanOptions> {}
/** `pin`'s options (see {@link pinOptions}). */
export interface PinOptions extends OptionsOf<typeof pinOptions> {}

/**
 * What code may give `pin` besides its {@link PinOptions}, which a config file cannot write: the
 * store as an object (where a file names its path), and a logger.
 */
export interface PinCodeOptions {
  /** A path, as in a file, or the `PinStore` itself. */
  readonly store?: string | PinStore | undefined;
  /** Where pins, changes and findings are logged. Default: the session's logger. */
  readonly logger?: Logger;
}

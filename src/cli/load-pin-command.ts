// A type only (erased): the module itself is loaded when `mcp-chain pin` runs.
import type * as PinCommand from './pin-command.js';

/**
 * The code of `mcp-chain pin` (pin-command.ts), loaded when the command runs: by its URL next to
 * this module, so that bundling the command line into dist/cli/main.js (which this module is part
 * of, at the same depth) leaves it out of what every start of `mcp-chain` loads.
 */
export async function loadPinCommand(): Promise<typeof PinCommand> {
  return (await import(new URL('./pin-command.js', import.meta.url).href)) as typeof PinCommand;
}

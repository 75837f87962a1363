// A type only (erased): the module itself is loaded when `mcp-chain auth` runs.
import type * as AuthCommand from './auth-command.js';

/**
 * The code of `mcp-chain auth` (auth-command.ts), loaded when the command runs: by its URL next
 * to this module, so that bundling the command line into dist/cli/main.js leaves it (and the
 * OAuth client under it) out of what every start of `mcp-chain` loads.
 */
export async function loadAuthCommand(): Promise<typeof AuthCommand> {
  return (await import(new URL('./auth-command.js', import.meta.url).href)) as typeof AuthCommand;
}

import { existsSync } from 'node:fs';
// A type only (erased): the module itself is loaded when a config file is served or validated.
import type * as ConfigCommands from './config-commands.js';

/**
 * The code of `mcp-chain serve` and `mcp-chain validate` (see config-commands.ts), from the bundle
 * (dist/bundle/, which a TypeScript config's `import 'mcp-chain'` shares), or from the unbundled
 * modules when the bundle was not built.
 */
export async function loadConfigCommands(): Promise<typeof ConfigCommands> {
  const bundle = new URL('../bundle/cli/config-commands.js', import.meta.url);
  if (existsSync(bundle)) return (await import(bundle.href)) as typeof ConfigCommands;
  return import('./config-commands.js');
}

import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The names `findConfigFile` looks for, in order of preference. */
export const CONFIG_FILE_NAMES: readonly string[] = ['ts', 'mts', 'js', 'mjs', 'json', 'jsonc', 'yaml', 'yml', 'toml'].map((ext) => `mcp-chain.config.${ext}`);

/**
 * The config file in `dir` (absolute): the first of `mcp-chain.config.{ts,mts,js,mjs,json,jsonc,
 * yaml,yml,toml}` that is a file. Undefined when there is none; parent directories are not searched.
 */
export function findConfigFile(dir: string): string | undefined {
  for (const name of CONFIG_FILE_NAMES) {
    const path = join(resolve(dir), name);
    try {
      if (statSync(path).isFile()) return path;
    } catch {
      // not there
    }
  }
  return undefined;
}

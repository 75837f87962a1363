import type { ConfigError } from '../config/config-error.js';
import { CONFIG_FILE_NAMES, findConfigFile } from '../config/find-config.js';
import { UsageError } from './usage-error.js';

/** The names looked for in the working directory when no file is given: `mcp-chain.config.{ts,...}`. */
function lookedFor(): string {
  const prefix = 'mcp-chain.config.';
  if (!CONFIG_FILE_NAMES.every((name) => name.startsWith(prefix))) return CONFIG_FILE_NAMES.join(', ');
  return `${prefix}{${CONFIG_FILE_NAMES.map((name) => name.slice(prefix.length)).join(',')}}`;
}

/**
 * The config file a command was given, or the one in the working directory; none there is a usage
 * error (of `command`) naming the names looked for.
 */
export function configFileOf(given: string | undefined, command: 'serve' | 'validate'): string {
  if (given !== undefined) return given;
  const found = findConfigFile(process.cwd());
  if (found === undefined) {
    throw new UsageError(`no config file given, and no ${lookedFor()} in ${process.cwd()}: give one, as in \`mcp-chain ${command} claude_desktop_config.json\``, command);
  }
  return found;
}

/**
 * A config file that cannot be used, on stderr: what was not done, then every problem on a line of
 * its own (`<file>:<line>:<column>: <path>: <message>`). Nothing goes to stdout. Returns the exit code, 1.
 */
export function reportConfigError(error: ConfigError, notDone: string): 1 {
  const count = error.problems.length === 1 ? '1 problem' : `${error.problems.length} problems`;
  process.stderr.write(`mcp-chain: ${notDone} (${count}):\n${error.message}\n`);
  return 1;
}

import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/config-error.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { loadConfig } from '../config/load-config.js';
import type { LogLevel } from '../log/logger.js';
import { stderrLogger } from '../log/stderr-logger.js';
import { configFileOf, reportConfigError } from './config-file.js';
import { describeConfig } from './describe-config.js';
import { servePlanOf } from './serve-flags-of.js';

/**
 * `mcp-chain validate [file]`: reads and checks a config file and prints on stdout its serve plan:
 * what serving it would serve (see {@link describeConfig}); resolves with 0. A file with problems is reported as
 * `serve` reports it (stderr, every problem, nothing on stdout) and resolves with 1. Starts no
 * server. Loaded only when a config file is validated.
 */
export async function validateConfig(given: string | undefined, logLevel: LogLevel | undefined): Promise<number> {
  const file = configFileOf(given, 'validate');
  // Warnings (a name hidden by another, a key ignored) by default; MCP_CHAIN_LOG_LEVEL or --log-level for more.
  const log = stderrLogger(logLevel !== undefined ? { level: logLevel } : process.env.MCP_CHAIN_LOG_LEVEL ? {} : { level: 'warn' });
  let config: GatewayConfig;
  try {
    config = await loadConfig(file, { log });
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(error, `${file} is not valid`);
    throw error;
  }
  // What `mcp-chain serve <file>` would serve, without flags: a front it would refuse is a usage error here too.
  const plan = servePlanOf('validate', { kind: 'config', config }, { http: {} });
  process.stdout.write(describeConfig(config, { secrets: referencedVariables(config.file), plan }));
  return 0;
}

/**
 * The environment variables the file refers to (`${NAME}`, `${env:NAME}`, `${NAME:-default}`),
 * with their values: those values are secrets as far as the description is concerned.
 */
function referencedVariables(file: string): Map<string, string> {
  const found = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return found;
  }
  for (const [, name] of text.matchAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)) {
    const value = name === undefined ? undefined : process.env[name];
    if (name !== undefined && value !== undefined) found.set(name, value);
  }
  return found;
}

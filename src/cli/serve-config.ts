import { ConfigError } from '../config/config-error.js';
import { loadConfig } from '../config/load-config.js';
import { stderrLogger } from '../log/stderr-logger.js';
import type { ServeFlags } from '../serve/serve-flags.js';
import { serve } from '../serve/serve.js';
import { configFileOf, reportConfigError } from './config-file.js';
import { servePlanOf } from './serve-flags-of.js';

/**
 * `mcp-chain serve [config-file]`: the plan of the file with the command line's flags over it,
 * served; resolves with the exit code. A file with problems is reported on stderr (every problem,
 * exit 1) before anything starts, and so is a front the plan refuses (exit 2). Loaded only when a
 * config file is served: the config formats' libraries stay out of the one-liners.
 */
export async function serveConfig(given: string | undefined, flags: ServeFlags): Promise<number> {
  const log = stderrLogger(flags.logLevel === undefined ? {} : { level: flags.logLevel });
  const file = configFileOf(given, 'serve');
  try {
    const config = await loadConfig(file, { log });
    return await serve(servePlanOf('serve', { kind: 'config', config }, flags));
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(error, `not serving ${file}`);
    throw error;
  }
}

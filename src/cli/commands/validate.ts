import { defineCommand } from '../command.js';
import { loadConfigCommands } from '../load-config-commands.js';
import { SERVE_OPTIONS } from '../serve-options.js';
import { logLevelOption } from '../serve-flags-of.js';

/** `mcp-chain validate [file]`: checks a config file and shows what it would serve, starting nothing. */
export const validateCommand = defineCommand({
  name: 'validate',
  summary: 'check a config file and show what `mcp-chain serve` would serve, starting nothing',
  description: [
    'Prints, on stdout, the front and every server in file order: its transport, command line or URL, the names of its environment variables and headers (never their values), the names its tools get, the tools allowed and denied, isolation, whether it is disabled, and the middleware; exit code 0. A file with problems is reported as `serve` reports it: every problem on stderr, nothing on stdout, exit code 1.',
    'Example: `mcp-chain validate ~/.cursor/mcp.json`',
  ],
  positionals: [{ name: 'file', optional: true, help: 'the config file (default: mcp-chain.config.* in the working directory)' }],
  options: { 'log-level': { type: 'string', value: '<level>', help: SERVE_OPTIONS['log-level'].help.replace('default info', 'default warn') } },
  async run({ values, positionals }) {
    const logLevel = logLevelOption(values['log-level'], 'validate');
    const { validateConfig } = await loadConfigCommands();
    return validateConfig(positionals[0], logLevel);
  },
});

import type { CommandTable } from './command.js';
import { authCommand } from './commands/auth.js';
import { pinCommand } from './commands/pin.js';
import { proxyCommand } from './commands/proxy.js';
import { runCommand } from './commands/run.js';
import { serveCommand } from './commands/serve.js';
import { validateCommand } from './commands/validate.js';

/**
 * Every command of `mcp-chain`. Parsing, `--help` and docs/cli.md are generated from this table: a
 * new command is a file in commands/ (see command.ts) and one line here.
 */
export const COMMAND_TABLE: CommandTable = {
  program: 'mcp-chain',
  title: 'mcp-chain — middleware proxy for MCP servers',
  defaultCommand: proxyCommand,
  commands: [
    serveCommand,
    validateCommand,
    runCommand,
    pinCommand,
    authCommand,
  ],
};

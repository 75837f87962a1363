#!/usr/bin/env node
// The `mcp-chain` command. This file stays light: it parses the command line against the command
// table and hands it to its command, which starts the server given after `--` *before* loading the
// rest of mcp-chain (see start-serving.ts), so that the server boots while we do. What only help,
// --version and usage errors need is imported when they happen.
import { ChainError } from '../errors/chain-error.js';
import { COMMAND_TABLE } from './command-table.js';
import { parseCommandLine } from './parse-command-line.js';
import { UsageError } from './usage-error.js';

async function main(argv: string[]): Promise<number> {
  const line = parseCommandLine(COMMAND_TABLE, argv);
  switch (line.kind) {
    case 'help': {
      const { renderHelp } = await import('./render-help.js');
      process.stderr.write(renderHelp(COMMAND_TABLE, line.command));
      return line.exitCode;
    }
    case 'version': {
      const { version } = await import('../serve/version.js');
      process.stderr.write(`${version()}\n`);
      return 0;
    }
    case 'command':
      return line.command.run(line.parsed);
  }
}

/** Usage mistakes: one line, with the help to read; exit 2. */
async function usageError(error: UsageError): Promise<never> {
  const { commandName } = await import('./render-help.js');
  const command = COMMAND_TABLE.commands.find((c) => c.name === error.command) ?? COMMAND_TABLE.defaultCommand;
  process.stderr.write(`mcp-chain: ${error.message} (see ${commandName(COMMAND_TABLE, command)} --help)\n`);
  process.exit(2);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    if (error instanceof UsageError) await usageError(error);
    if (error instanceof ChainError || (error instanceof Error && error.name === 'TypeError' && 'code' in error)) {
      process.stderr.write(`mcp-chain: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`mcp-chain: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

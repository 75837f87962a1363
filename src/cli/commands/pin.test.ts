import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { COMMAND_TABLE } from '../command-table.js';
import { parseCommandLine } from '../parse-command-line.js';
import { renderHelp } from '../render-help.js';
import { UsageError } from '../usage-error.js';
import { pinCommand } from './pin.js';

describe('mcp-chain pin: its command line', () => {
  test('--config takes a file', () => {
    const line = parseCommandLine(COMMAND_TABLE, ['pin', 'status', '--config', 'mcp-chain.config.yaml']);
    assert.equal(line.kind, 'command');
    if (line.kind === 'command') assert.deepEqual(line.parsed.values, { config: 'mcp-chain.config.yaml' });
  });

  test('accept takes any number of tools (a variadic last positional) and the options anywhere', () => {
    const line = parseCommandLine(COMMAND_TABLE, ['pin', 'accept', 'a', '--namespace', 'gh', 'b', 'c', '-y']);
    assert.equal(line.kind, 'command');
    if (line.kind !== 'command') return;
    assert.equal(line.command, pinCommand);
    assert.deepEqual(line.parsed.positionals, ['accept', 'a', 'b', 'c']);
    assert.deepEqual(line.parsed.values, { namespace: 'gh', yes: true });
  });

  test('the action is required; an unknown one and status with tools are usage mistakes', async () => {
    assert.throws(() => parseCommandLine(COMMAND_TABLE, ['pin']), { name: 'UsageError', message: 'missing <action>' });
    const run = (argv: string[]): Promise<number> => {
      const line = parseCommandLine(COMMAND_TABLE, argv);
      assert.equal(line.kind, 'command');
      return line.kind === 'command' ? line.command.run(line.parsed) : Promise.resolve(-1);
    };
    await assert.rejects(run(['pin', 'frob']), (error: unknown) => error instanceof UsageError && error.message === "unknown pin action 'frob': expected status or accept");
    await assert.rejects(run(['pin', 'status', 'x']), (error: unknown) => error instanceof UsageError && error.message === 'pin status takes no tools, --namespace or --yes');
    await assert.rejects(run(['pin', 'accept', '--store', 'p.json', '--config', 'c.json']), (error: unknown) => error instanceof UsageError && error.message === 'give --store or --config, not both');
  });

  test('its help shows both forms and the variadic argument as [tool...]', () => {
    const help = renderHelp(COMMAND_TABLE, pinCommand);
    assert.match(help, /^ {2}mcp-chain pin status \[--store <file> \| --config <file>\]$/m);
    assert.match(help, /^ {2}mcp-chain pin accept \[tool\.\.\.\] \[--store <file> \| --config <file>\] \[--namespace <ns>\] \[--yes\]$/m);
    assert.match(help, /^ {2}--config <file> +the stores/m);
    assert.match(help, /^ {2}\[tool\.\.\.\] +`accept` only/m);
  });
});

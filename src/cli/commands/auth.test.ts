import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { COMMAND_TABLE } from '../command-table.js';
import { parseCommandLine } from '../parse-command-line.js';
import { renderHelp } from '../render-help.js';
import { UsageError } from '../usage-error.js';
import { authCommand } from './auth.js';

describe('mcp-chain auth: its command line', () => {
  test('login takes a server and the options anywhere', () => {
    const line = parseCommandLine(COMMAND_TABLE, ['auth', 'login', '--config', 'c.json', 'github', '--store', 't.json']);
    assert.equal(line.kind, 'command');
    if (line.kind !== 'command') return;
    assert.equal(line.command, authCommand);
    assert.deepEqual(line.parsed.positionals, ['login', 'github']);
    assert.deepEqual(line.parsed.values, { config: 'c.json', store: 't.json' });
  });

  test('usage mistakes: no action, an unknown one, login or logout without a server, status with one, --json beside login', async () => {
    assert.throws(() => parseCommandLine(COMMAND_TABLE, ['auth']), { name: 'UsageError', message: 'missing <action>' });
    const run = (argv: string[]): Promise<number> => {
      const line = parseCommandLine(COMMAND_TABLE, argv);
      assert.equal(line.kind, 'command');
      return line.kind === 'command' ? line.command.run(line.parsed) : Promise.resolve(-1);
    };
    const usage = (message: string) => (error: unknown) => error instanceof UsageError && error.message === message && error.command === 'auth';
    await assert.rejects(run(['auth', 'frob']), usage("unknown auth action 'frob': expected login, status or logout"));
    await assert.rejects(run(['auth', 'login']), usage('auth login needs a server: its name in the config file, or its URL'));
    await assert.rejects(run(['auth', 'logout']), usage('auth logout needs a server: its name in the config file, or its URL'));
    await assert.rejects(run(['auth', 'status', 'github']), usage('auth status takes no server'));
    await assert.rejects(run(['auth', 'login', 'github', '--json']), usage('--json is for auth status only'));
  });

  test('its help shows the three forms', () => {
    const help = renderHelp(COMMAND_TABLE, authCommand);
    assert.match(help, /^ {2}mcp-chain auth login <server> \[--config <file>\] \[--store <file>\]$/m);
    assert.match(help, /^ {2}mcp-chain auth status \[--config <file>\] \[--store <file>\] \[--json\]$/m);
    assert.match(help, /^ {2}mcp-chain auth logout <server> \[--config <file>\] \[--store <file>\]$/m);
  });
});

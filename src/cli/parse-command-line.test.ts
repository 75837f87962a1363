import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defineCommand, type CommandTable, type OptionDefinition } from './command.js';
import { COMMAND_TABLE } from './command-table.js';
import { GLOBAL_OPTIONS, parseCommandLine, type CommandLine } from './parse-command-line.js';
import { renderHelp } from './render-help.js';
import { UsageError } from './usage-error.js';

// A table of made-up commands: the parser knows nothing of mcp-chain's own, so a new command is a
// definition and a line in the table, and nothing else.
const serve = defineCommand({
  summary: 'serve something',
  positionals: [],
  rest: { name: '<command> [args...]', optional: true, help: 'the server' },
  options: {
    port: { type: 'string', value: '<n>', help: 'where' },
    tls: { type: 'boolean', requires: 'port', help: 'encrypted' },
    env: { type: 'string', multiple: true, value: 'K=V', help: 'a variable' },
  },
  run: () => Promise.resolve(0),
});
const call = defineCommand({
  name: 'call',
  summary: 'call a tool',
  positionals: [
    { name: 'url', help: 'the server' },
    { name: 'tool', help: 'the tool' },
  ],
  options: {
    port: { type: 'string', value: '<n>', help: 'where' },
    json: { type: 'boolean', short: 'j', help: 'print JSON' },
  },
  run: () => Promise.resolve(0),
});
const check = defineCommand({
  name: 'check',
  summary: 'check a file',
  positionals: [{ name: 'file', optional: true, help: 'the file (default: the one found here)' }],
  options: {},
  run: () => Promise.resolve(0),
});
const table: CommandTable = { program: 'tool', title: 'tool — a test', defaultCommand: serve, commands: [call, check] };

/** The parsed command line of `argv`, which must select a command. */
function parsed(argv: string[]): Extract<CommandLine, { kind: 'command' }> {
  const line = parseCommandLine(table, argv);
  assert.equal(line.kind, 'command', JSON.stringify(line));
  return line as Extract<CommandLine, { kind: 'command' }>;
}

/** The UsageError `argv` is refused with. */
function refusal(argv: string[]): UsageError {
  try {
    parseCommandLine(table, argv);
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error;
  }
  assert.fail(`${argv.join(' ')} was accepted`);
}

describe('parseCommandLine', () => {
  test('without a command word, the default command gets the options, and what follows -- as its rest', () => {
    const line = parsed(['--port', '80', '--env', 'A=1', '--tls', '--env=B=2', '--', 'server', '--port', 'x']);
    assert.equal(line.command, serve);
    assert.deepEqual(line.parsed, { values: { port: '80', env: ['A=1', 'B=2'], tls: true }, positionals: [], rest: ['server', '--port', 'x'] });
  });

  test('the first positional that names a command selects it, options may come before it, and short options work', () => {
    const line = parsed(['--port', '9', 'call', 'http://x', '-j', 'echo']);
    assert.equal(line.command, call);
    assert.deepEqual(line.parsed, { values: { port: '9', json: true }, positionals: ['http://x', 'echo'], rest: [] });
  });

  test("an option's value that spells a command is a value, not the command", () => {
    const line = parsed(['--port', 'call', '--', 'server']);
    assert.equal(line.command, serve);
    assert.equal(line.parsed.values.port, 'call');
  });

  test('a command without a rest takes what follows -- as positionals (a value that starts with a dash)', () => {
    assert.deepEqual(parsed(['call', 'http://x', '--', '--odd-tool']).parsed.positionals, ['http://x', '--odd-tool']);
  });

  test('an optional positional may be left out, and is shown in brackets', () => {
    assert.deepEqual(parsed(['check']).parsed.positionals, []);
    assert.deepEqual(parsed(['check', 'a.json']).parsed.positionals, ['a.json']);
    assert.equal(refusal(['check', 'a.json', 'b.json']).message, "unexpected argument 'b.json'");
    assert.match(renderHelp(table, check), /^ {2}tool check \[file\] \[options\]$/m);
  });

  test('the last of a repeated single option wins', () => {
    assert.equal(parsed(['--port', '1', '--port', '2']).parsed.values.port, '2');
  });

  test('--help and -h: the global help, or the help of the command named; no arguments at all: the global help, exit 2', () => {
    assert.deepEqual(parseCommandLine(table, ['--help']), { kind: 'help', command: undefined, exitCode: 0 });
    assert.deepEqual(parseCommandLine(table, ['call', '-h', '--bogus']), { kind: 'help', command: call, exitCode: 0 });
    assert.deepEqual(parseCommandLine(table, []), { kind: 'help', command: undefined, exitCode: 2 });
    assert.deepEqual(parseCommandLine(table, ['-v']), { kind: 'version' });
  });

  test('mistakes are one-line UsageErrors naming the option, and the command whose help to read', () => {
    const cases: [string[], string, string | undefined][] = [
      [['--bogus'], 'unknown option --bogus', undefined],
      [['-x'], 'unknown option -x', undefined],
      [['call', 'u', 't', '--tls'], 'unknown option --tls', 'call'],
      [['--port'], '--port needs a value <n>', undefined],
      [['--port', '--tls'], '--port needs a value, not the option --tls: write --port=--tls if that is the value', undefined],
      [['--tls=yes', '--port', '1'], '--tls takes no value', undefined],
      [['--tls'], '--tls needs --port', undefined],
      [['call', 'u'], 'missing <tool>', 'call'],
      [['call', 'u', 't', 'extra'], "unexpected argument 'extra'", 'call'],
      [['cal', '--', 'x'], "unknown command 'cal'", undefined],
    ];
    for (const [argv, message, command] of cases) {
      const error = refusal(argv);
      assert.equal(error.message, message, argv.join(' '));
      assert.equal(error.command, command, argv.join(' '));
      assert.ok(!error.message.includes('\n'));
    }
  });

  test('a dash-leading value is given with =', () => {
    assert.equal(parsed(['--port=-1']).parsed.values.port, '-1');
  });
});

describe('the command table of mcp-chain', () => {
  const all = [COMMAND_TABLE.defaultCommand, ...COMMAND_TABLE.commands];

  test('command words are unique, and an option name means the same in every command (one tokenizer reads them all)', () => {
    const names = COMMAND_TABLE.commands.map((c) => c.name);
    assert.equal(new Set(names).size, names.length);
    const seen = new Map<string, OptionDefinition>(Object.entries(GLOBAL_OPTIONS));
    for (const command of all) {
      for (const [name, option] of Object.entries<OptionDefinition>(command.options)) {
        assert.ok(!Object.hasOwn(GLOBAL_OPTIONS, name), `--${name} is a global option`);
        const other = seen.get(name);
        if (other) assert.deepEqual([other.type, other.short], [option.type, option.short], `--${name} differs between commands`);
        seen.set(name, option);
        if (option.requires !== undefined) assert.ok(Object.hasOwn(command.options, option.requires), `--${name} requires an option its command has`);
      }
    }
  });

  test('only the last positionals of a command are optional', () => {
    for (const command of all) {
      const firstOptional = command.positionals.findIndex((p) => p.optional === true);
      if (firstOptional === -1) continue;
      assert.ok(command.positionals.slice(firstOptional).every((p) => p.optional === true), `${String(command.name)}: an optional positional before a required one`);
    }
  });

  test('every command and every option is in the help', () => {
    const global = renderHelp(COMMAND_TABLE);
    for (const command of all) {
      const own = command === COMMAND_TABLE.defaultCommand ? global : renderHelp(COMMAND_TABLE, command);
      if (command.name !== undefined) assert.match(global, new RegExp(`^  mcp-chain ${command.name} `, 'm'));
      for (const name of [...Object.keys(command.options), 'help', 'version']) assert.match(own, new RegExp(`^  (-\\w, )?--${name}\\b`, 'm'), `--${name}`);
      for (const line of own.split('\n')) assert.ok(line.length <= 100, `a help line over 100 columns: ${line}`);
    }
  });
});

import { parseArgs } from 'node:util';
import type { CommandDefinition, CommandTable, OptionDefinition, OptionDefinitions, OptionValues, ParsedCommandLine } from './command.js';
import { UsageError } from './usage-error.js';

/** The options every command has; the parser answers them itself. */
export const GLOBAL_OPTIONS = {
  help: { type: 'boolean', short: 'h', help: 'show this help' },
  version: { type: 'boolean', short: 'v', help: 'show the version' },
} as const satisfies OptionDefinitions;

/** What a command line asks for. */
export type CommandLine =
  /** The help of `command` (undefined: the global help); exit 2 when it stands for a missing command line. */
  | { kind: 'help'; command: CommandDefinition | undefined; exitCode: 0 | 2 }
  | { kind: 'version' }
  | { kind: 'command'; command: CommandDefinition; parsed: ParsedCommandLine<OptionDefinitions> };

type Value = string | boolean | string[];

/**
 * Parses `argv` (without node and the script) against the command table: the first positional
 * that names a command selects it (options may come before it), otherwise the default command
 * gets the whole line. Everything after the first `--` is the command's `rest` (the server to
 * start), or more positionals for a command that has none. Mistakes throw a UsageError, one line
 * each: unknown options, missing or dash-leading values, values given to flags, options without
 * the option they need, missing or extra positionals. Option values are strings; the command
 * checks what they mean (numbers, addresses) in `run`.
 */
export function parseCommandLine(table: CommandTable, argv: readonly string[]): CommandLine {
  if (argv.length === 0) return { kind: 'help', command: undefined, exitCode: 2 };
  const dashdash = argv.indexOf('--');
  const own = dashdash === -1 ? [...argv] : argv.slice(0, dashdash);
  const afterDashdash = dashdash === -1 ? undefined : argv.slice(dashdash + 1);
  // One tokenizer for all commands (an option name means the same in each, see the table's test):
  // it only needs to know which options take a value, to tell values from positionals.
  const { tokens } = parseArgs({ args: own, options: nodeOptions(table), strict: false, allowPositionals: true, tokens: true });

  const first = tokens.find((t) => t.kind === 'positional');
  const named = first && table.commands.find((c) => c.name === first.value);
  const command: CommandDefinition = named ?? table.defaultCommand;
  const fail = (message: string): never => {
    throw new UsageError(message, command.name);
  };
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) return { kind: 'help', command: named, exitCode: 0 };
  if (tokens.some((t) => t.kind === 'option' && t.name === 'version')) return { kind: 'version' };

  const { values, positionals } = readTokens(tokens.filter((t) => !(named && t === first)), command.options, fail);
  const rest = command.rest ? (afterDashdash ?? []) : [];
  if (!command.rest && afterDashdash) positionals.push(...afterDashdash);
  if (command.rest && !command.rest.optional && rest.length === 0) fail(`missing -- ${command.rest.name}`);
  const missing = command.positionals[positionals.length];
  if (missing && missing.optional !== true) fail(`missing <${missing.name}>`);
  const extra = positionals[command.positionals.length];
  if (extra !== undefined && command.positionals.at(-1)?.variadic !== true) {
    fail(command === table.defaultCommand && command.positionals.length === 0 ? `unknown command '${extra}'` : `unexpected argument '${extra}'`);
  }
  for (const name of Object.keys(values)) {
    const needs = command.options[name]?.requires;
    if (needs !== undefined && values[needs] === undefined) fail(`--${name} needs --${needs}`);
  }
  // Each value was checked against its definition (readTokens): what the types of OptionValues promise.
  return { kind: 'command', command, parsed: { values: values as OptionValues<OptionDefinitions>, positionals, rest } };
}

type Token = ReturnType<typeof parseArgs>['tokens'] extends (infer T)[] | undefined ? T : never;

/** Option values and positionals from the tokens of one command's line, each checked against its definition. */
function readTokens(
  tokens: readonly Token[],
  definitions: OptionDefinitions,
  fail: (message: string) => never,
): { values: Record<string, Value>; positionals: string[] } {
  const values: Record<string, Value> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') continue; // not reached: `--` was split off before
    const [name, definition] = lookUp(definitions, token.name);
    if (!definition) return fail(`unknown option ${token.rawName}`);
    if (definition.type === 'boolean') {
      if (token.inlineValue) fail(`${token.rawName} takes no value`);
      values[name] = true;
      continue;
    }
    const value = token.value;
    if (value === undefined) return fail(`${token.rawName} needs a value${definition.value ? ` ${definition.value}` : ''}`);
    if (!token.inlineValue && value.startsWith('-')) {
      fail(`${token.rawName} needs a value, not the option ${value}: write ${token.rawName}=${value} if that is the value`);
    }
    const list = values[name];
    values[name] = !definition.multiple ? value : Array.isArray(list) ? [...list, value] : [value];
  }
  return { values, positionals };
}

/** The definition of `--name` or `-n` in `definitions`, with its long name. */
function lookUp(definitions: OptionDefinitions, name: string): [string, OptionDefinition | undefined] {
  if (Object.hasOwn(definitions, name)) return [name, definitions[name]];
  for (const [long, definition] of Object.entries(definitions)) if (definition.short === name) return [long, definition];
  return [name, undefined];
}

/** The options of every command, as parseArgs wants them (its types only: values are checked above). */
function nodeOptions(table: CommandTable): Record<string, { type: 'string' | 'boolean'; short?: string }> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const definitions of [GLOBAL_OPTIONS, table.defaultCommand.options, ...table.commands.map((c) => c.options)]) {
    for (const [name, { type, short }] of Object.entries<OptionDefinition>(definitions)) options[name] = short === undefined ? { type } : { type, short };
  }
  return options;
}

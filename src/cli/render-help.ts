import type { CommandDefinition, CommandTable, OptionDefinition, OptionDefinitions, PositionalDefinition, SynopsisLine } from './command.js';
import { GLOBAL_OPTIONS } from './parse-command-line.js';

const WIDTH = 100;
const USAGE_COLUMN = 47;
const OPTION_COLUMN = 27;

/**
 * `--help`: with no command, the global help (every command's usage, then the default command's
 * arguments and options); with one, that command's own. Generated from the table, never written
 * by hand, so a new command or option shows up by itself.
 */
export function renderHelp(table: CommandTable, command?: CommandDefinition): string {
  const lines: string[] = [];
  if (command === undefined) {
    lines.push(table.title, '', 'Usage:');
    for (const c of [table.defaultCommand, ...table.commands]) {
      for (const { usage, summary } of synopsisOf(table, c)) lines.push(...columns(`  ${usage}`, summary, USAGE_COLUMN));
    }
    command = table.defaultCommand;
  } else {
    lines.push(...wrap(`${commandName(table, command)} — ${command.summary}`, WIDTH), '', 'Usage:');
    for (const { usage } of synopsisOf(table, command)) lines.push(`  ${usage}`);
  }
  for (const paragraph of command.description ?? []) lines.push('', ...wrap(paragraph, WIDTH));
  const args = argumentsOf(command);
  if (args.length > 0) {
    lines.push('', 'Arguments:');
    for (const { label, help } of args) lines.push(...columns(`  ${label}`, help, OPTION_COLUMN));
  }
  for (const [group, options] of optionGroups(command.options)) {
    lines.push('', `${group}:`);
    for (const [name, option] of options) lines.push(...columns(`  ${optionLabel(name, option)}`, option.help, OPTION_COLUMN));
  }
  if (command === table.defaultCommand && table.commands.length > 0) {
    lines.push('', `\`${table.program} <command> --help\` shows the help of one command (${table.commands.map((c) => c.name).join(', ')}).`);
  }
  return `${lines.join('\n')}\n`;
}

/** `mcp-chain run`, or `mcp-chain` for the default command. */
export function commandName(table: CommandTable, command: CommandDefinition): string {
  return command.name === undefined ? table.program : `${table.program} ${command.name}`;
}

/** The usage lines of a command, written in full (`mcp-chain run <chain-file> [options] ...`). */
export function synopsisOf(table: CommandTable, command: CommandDefinition): SynopsisLine[] {
  const name = commandName(table, command);
  if (command.synopsis) return command.synopsis.map(({ usage, summary }) => ({ usage: `${name} ${usage}`, summary }));
  const words = [name, ...command.positionals.map(positionalLabel), '[options]'];
  if (command.rest) words.push(command.rest.optional ? `[-- ${command.rest.name}]` : `-- ${command.rest.name}`);
  return [{ usage: words.join(' '), summary: command.summary }];
}

/** The positionals and the rest of a command, labelled as in its usage. */
export function argumentsOf(command: CommandDefinition): { label: string; help: string }[] {
  const args = command.positionals.map((p) => ({ label: positionalLabel(p), help: p.help }));
  if (command.rest) args.push({ label: `-- ${command.rest.name}`, help: command.rest.help });
  return args;
}

/** `<name>`, or `[name]` when it may be left out. */
export function positionalLabel(positional: PositionalDefinition): string {
  const name = positional.variadic === true ? `${positional.name}...` : positional.name;
  return positional.optional === true ? `[${name}]` : `<${name}>`;
}

/** Options by heading, headings in order of first appearance; the global ones close "Options". */
export function optionGroups(options: OptionDefinitions): Map<string, [string, OptionDefinition][]> {
  const groups = new Map<string, [string, OptionDefinition][]>();
  for (const [name, option] of [...Object.entries(options), ...Object.entries<OptionDefinition>(GLOBAL_OPTIONS)]) {
    const group = option.group ?? 'Options';
    groups.set(group, [...(groups.get(group) ?? []), [name, option]]);
  }
  return groups;
}

/** `-h, --help`, `--timeout <ms>`. */
export function optionLabel(name: string, option: OptionDefinition): string {
  return `${option.short === undefined ? '' : `-${option.short}, `}--${name}${option.value === undefined ? '' : ` ${option.value}`}`;
}

/** `left` then `text` wrapped in a column starting at `column` (on the next line when `left` is too wide). */
function columns(left: string, text: string, column: number): string[] {
  const body = wrap(text, WIDTH - column);
  const indent = ' '.repeat(column);
  if (left.length >= column - 1) return [left, ...body.map((line) => indent + line)];
  return body.map((line, i) => (i === 0 ? left.padEnd(column) : indent) + line);
}

/** Greedy word wrap at `width` columns (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines;
}

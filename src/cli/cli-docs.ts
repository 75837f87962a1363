import type { CommandDefinition, CommandTable } from './command.js';
import { argumentsOf, commandName, optionGroups, optionLabel, synopsisOf } from './render-help.js';

/**
 * docs/cli.md, generated from the command table (`npm run gen:cli-docs` writes it; a test fails
 * when the checked-in file differs, so the reference cannot fall behind the code).
 */
export function renderCliDocs(table: CommandTable): string {
  const out: string[] = [
    '# The `mcp-chain` command line',
    '',
    '<!-- Generated from src/cli/command-table.ts by `npm run gen:cli-docs`: edit the commands, not this file. -->',
    '',
    `${table.title.replace(/^\S+/, (name) => `\`${name}\``)}. Logs go to stderr (JSON lines), never to stdout, which carries the protocol on stdio. Usage mistakes exit with code 2 and one line on stderr; \`--help\` (\`-h\`) shows the help of a command, \`--version\` (\`-v\`) the version.`,
    '',
    '| command | what it does |',
    '|---|---|',
  ];
  for (const command of [table.defaultCommand, ...table.commands]) {
    for (const { usage, summary } of synopsisOf(table, command)) out.push(`| \`${usage}\` | ${cell(summary)} |`);
  }
  for (const command of [table.defaultCommand, ...table.commands]) out.push('', ...commandSection(table, command, sameOptionsAs(table, command)));
  return `${out.join('\n')}\n`;
}

/** The first command listed before `command` with the very same options (one table in the docs is enough). */
function sameOptionsAs(table: CommandTable, command: CommandDefinition): CommandDefinition | undefined {
  const all = [table.defaultCommand, ...table.commands];
  return all.slice(0, all.indexOf(command)).find((c) => c.options === command.options);
}

function commandSection(table: CommandTable, command: CommandDefinition, sameOptions: CommandDefinition | undefined): string[] {
  const title = command.name === undefined ? `\`${table.program}\` (no command word)` : `\`${commandName(table, command)}\``;
  const out = [`## ${title}`, '', `${capitalized(command.summary)}.`, '', '```sh', ...synopsisOf(table, command).map((s) => s.usage), '```'];
  for (const paragraph of command.description ?? []) out.push('', prose(paragraph));
  const args = argumentsOf(command);
  if (args.length > 0) {
    out.push('', '| argument | meaning |', '|---|---|');
    for (const { label, help } of args) out.push(`| \`${label}\` | ${cell(help)} |`);
  }
  if (sameOptions) {
    out.push('', `Options: the same as for \`${commandName(table, sameOptions)}\` above.`);
    return out;
  }
  for (const [group, options] of optionGroups(command.options)) {
    out.push('', `**${group}**`, '', '| option | meaning |', '|---|---|');
    for (const [name, option] of options) {
      const needs = option.requires === undefined ? '' : ` *(needs \`--${option.requires}\`)*`;
      out.push(`| \`${optionLabel(name, option)}\` | ${cell(option.help)}${needs} |`);
    }
  }
  return out;
}

/** Text for a table cell: pipes would end the cell. */
function cell(text: string): string {
  return prose(text).replaceAll('|', '\\|');
}

/** Text as markdown: angle brackets outside `code` would start an HTML tag. */
function prose(text: string): string {
  return text
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replaceAll('<', '&lt;').replaceAll('>', '&gt;')))
    .join('`');
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

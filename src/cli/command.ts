/**
 * What a command of the `mcp-chain` command line is: one definition per command (its synopsis,
 * positionals, options and what it does), from which the parser, `--help` and docs/cli.md are all
 * generated. A command file (`commands/<name>.ts`) exports one, and `command-table.ts` lists it.
 *
 * Command files are loaded on every start, before anything else: they import only light modules
 * and load the heavy ones (the proxy itself) in `run`, with `import()`.
 */
export interface OptionDefinition {
  readonly type: 'string' | 'boolean';
  /** A one-letter alias (`-h`). */
  readonly short?: string;
  /** Repeatable: every occurrence is kept, in order (otherwise the last one wins). */
  readonly multiple?: boolean;
  /** The value's name in help, with its brackets: `<ms>`, `KEY=VALUE`. Strings only. */
  readonly value?: string;
  /** One sentence or two; help and the docs wrap it. */
  readonly help: string;
  /** The heading it is listed under; options without one go under "Options". */
  readonly group?: string;
  /** Another option (its name) without which this one is a usage error: `--sse` needs `--http`. */
  readonly requires?: string;
}

export type OptionDefinitions = Readonly<Record<string, OptionDefinition>>;

/** The values of `O` as parsed: absent when not given. */
export type OptionValues<O extends OptionDefinitions> = {
  readonly [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : O[K]['multiple'] extends true ? readonly string[] : string;
};

export interface SynopsisLine {
  /** `--http [host:]port [options] -- <command> [args...]` */
  readonly usage: string;
  readonly summary: string;
}

export interface PositionalDefinition {
  /** Shown as `<name>` (`[name]` when optional). */
  readonly name: string;
  readonly help: string;
  /** It may be left out (only the last positionals of a command may be optional). */
  readonly optional?: boolean;
  /** It takes every remaining argument (the last positional only): shown as `<name...>` (`[name...]` when optional). */
  readonly variadic?: boolean;
}

/** The command line of a server to start, given after `--`. */
export interface RestDefinition {
  /** Shown after `--`: `<command> [args...]`. */
  readonly name: string;
  readonly help: string;
  /** Whether it may be left out (it can be when `--url` names the server instead). */
  readonly optional: boolean;
}

/** One command line, parsed against its command's definition. */
export interface ParsedCommandLine<O extends OptionDefinitions> {
  readonly values: OptionValues<O>;
  /** The positionals, one per definition given (the parser checked the count: optional ones may be missing). */
  readonly positionals: readonly string[];
  /** What followed `--` (empty when nothing did); commands without `rest` never see a `--`. */
  readonly rest: readonly string[];
}

export interface CommandDefinition<O extends OptionDefinitions = OptionDefinitions> {
  /** The word that selects it (`run`); the table's default command has none. */
  readonly name?: string;
  /** One line, shown in the global help beside its synopsis. */
  readonly summary: string;
  /** Paragraphs for its own help and the docs (plain text; `code` in backquotes stays as is). */
  readonly description?: readonly string[];
  /**
   * Its usage lines (after the program's name), each with a summary, when the one generated from
   * name, positionals and rest says too little (the default command has three forms).
   */
  readonly synopsis?: readonly SynopsisLine[];
  readonly positionals: readonly PositionalDefinition[];
  readonly rest?: RestDefinition;
  readonly options: O;
  /** Does what the command line asked; resolves with the exit code. Usage mistakes throw a UsageError. */
  run(parsed: ParsedCommandLine<O>): Promise<number>;
}

/** A command selected by a word: every command of the table but the default one. */
export type NamedCommandDefinition<O extends OptionDefinitions = OptionDefinitions> = CommandDefinition<O> & { readonly name: string };

/** The definition as written, with its option names and value types inferred for `run`. */
export function defineCommand<const O extends OptionDefinitions>(definition: NamedCommandDefinition<O>): NamedCommandDefinition<O>;
export function defineCommand<const O extends OptionDefinitions>(definition: CommandDefinition<O>): CommandDefinition<O>;
export function defineCommand<const O extends OptionDefinitions>(definition: CommandDefinition<O>): CommandDefinition<O> {
  return definition;
}

/** Every command of the program: the default one (no command word) and the named ones. */
export interface CommandTable {
  /** The program's name, as typed. */
  readonly program: string;
  /** The first line of the global help. */
  readonly title: string;
  readonly defaultCommand: CommandDefinition;
  readonly commands: readonly NamedCommandDefinition[];
}

import type { ToolAnnotations } from '../../spec/index.js';

/** The JSON type of a command parameter; `array` is an array of strings. */
export type CommandParameterType = 'string' | 'number' | 'integer' | 'boolean' | 'array';

/** A value a command parameter can have. */
export type CommandParameterValue = string | number | boolean | readonly string[];

/**
 * One parameter of a command tool: a property of the tool's `inputSchema`, checked before the
 * program runs (a wrong value is `-32602` naming the parameter).
 */
export interface CommandParameter {
  readonly type: CommandParameterType;
  /** For the model: what the value means. */
  readonly description?: string | undefined;
  /** The call must give it (unless it has a `default`). Default false. */
  readonly required?: boolean | undefined;
  /** Used when the call leaves it out. */
  readonly default?: CommandParameterValue | undefined;
  /** The only values allowed (for `array`: of each item). */
  readonly enum?: readonly (string | number)[] | undefined;
  /** A regular expression (ECMAScript, unanchored as in JSON Schema: write `^…$`) strings (or each item) must match. */
  readonly pattern?: string | undefined;
  /** Bounds of a `number` or `integer`. */
  readonly minimum?: number | undefined;
  readonly maximum?: number | undefined;
  /** At most this many characters (a string, or each item of an array). */
  readonly maxLength?: number | undefined;
  /** At most this many items (`array`). */
  readonly maxItems?: number | undefined;
  /**
   * A value starting with `-` may go into a positional placeholder that is not after a literal `--`.
   * Default false: such a value is refused (it would be read as an option: `--output=/etc/x`).
   */
  readonly allowDashPrefix?: boolean | undefined;
}

/**
 * One element of a command's `args` template:
 * - a string: literal, except that `{name}` (a parameter's name in braces) is replaced by its
 *   value; the element is left out when the parameter is absent, and repeated for each item of an
 *   array parameter (`"{files}"` gives one element per file). Braces around anything that is not
 *   a parameter's name stay as they are (`"{print $1}"`).
 * - `{ param, flag }`: `flag` and the value as two elements (`-n 5`) when the parameter is given,
 *   nothing when it is absent; for a boolean, the flag alone when true; for an array, the flag
 *   before each item (`-e a -e b`). Without `flag`, the same as `"{param}"`.
 * - `{ literal }`: exactly this text, braces and all.
 */
export type CommandArg = string | { readonly param: string; readonly flag?: string | undefined } | { readonly literal: string };

/** A tool's annotations (`readOnlyHint`, `destructiveHint`, …), as the spec's `ToolAnnotations`. */
export type CommandAnnotations = { readonly [K in keyof ToolAnnotations]?: ToolAnnotations[K] | undefined };

/** One command-line program as an MCP tool. */
export interface CommandTool {
  /** For the model: what the tool does. */
  readonly description: string;
  readonly title?: string | undefined;
  /** The program: a name looked up on the PATH of its environment, or a path. Never run through a shell. */
  readonly command: string;
  /** Its arguments, one argv element each (see {@link CommandArg}). */
  readonly args?: readonly CommandArg[] | undefined;
  /** Its parameters by name (letters, digits and `_`). */
  readonly parameters?: Readonly<Record<string, CommandParameter>> | undefined;
  /** A string parameter whose value is written to the program's stdin (otherwise stdin is /dev/null). */
  readonly stdin?: string | undefined;
  /** Its working directory (relative: to the server's `cwd`, or ours). */
  readonly cwd?: string | undefined;
  /** Environment variables beside the server's and a safe default set (PATH, HOME, …); nothing else of ours is passed. */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** How long it may run before its process group is killed, ms. Default 30 000. */
  readonly timeoutMs?: number | undefined;
  /** What is kept of stdout and of stderr each, bytes; the rest is read and dropped. Default 1 MiB. */
  readonly maxOutputBytes?: number | undefined;
  /** At most this many runs at once; further calls wait for a turn. Default: no limit. */
  readonly maxConcurrent?: number | undefined;
  /** Passed to the tool as it is (`readOnlyHint`, `destructiveHint`, …). */
  readonly annotations?: CommandAnnotations | undefined;
}

/** Options of {@link commands}. */
export interface CommandsOptions {
  /** The tools, by name. */
  readonly tools: Readonly<Record<string, CommandTool>>;
  /** `serverInfo.name`; default `mcp-chain-commands`. */
  readonly name?: string | undefined;
  readonly version?: string | undefined;
  /** Default working directory of every tool (relative: to ours). */
  readonly cwd?: string | undefined;
  /** Environment variables of every tool (a tool's own win). */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** After SIGTERM to a process group, how long before SIGKILL, ms. Default 1000. */
  readonly killGraceMs?: number | undefined;
}

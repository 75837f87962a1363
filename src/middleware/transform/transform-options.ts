/**
 * @module
 * The options of `transform`, and every check that needs only the options (not the server's
 * schemas): each problem with its place, so a config file can point at it.
 */
import { narrowingViolation } from './narrowing.js';
import type { ArgumentTransform, TransformOptions } from './options.js';

/** Something wrong with the options, and where (`['tools', 'search', 'arguments', 'q', 'hide']`). */
export interface OptionsProblem {
  readonly path: readonly string[];
  readonly message: string;
}

/** Tool names as SEP-986 allows them. */
const TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

const NARROWING_KEYS = ['enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern'] as const;

/** Every problem the options have on their own; none for options `transform` can use. */
export function transformProblems(options: TransformOptions): OptionsProblem[] {
  const problems: OptionsProblem[] = [];
  const clientNames = new Map<string, string>();
  for (const [original, tool] of Object.entries(options.tools ?? {})) {
    const at = ['tools', original];
    const add = (path: readonly string[], message: string): void => void problems.push({ path: [...at, ...path], message });
    const client = tool.name ?? original;
    if (tool.name !== undefined && !TOOL_NAME.test(tool.name)) {
      add(['name'], `${JSON.stringify(tool.name)} is not a valid tool name (1 to 128 of A-Z a-z 0-9 _ - .)`);
    }
    if (tool.enabled !== false) {
      const clash = clientNames.get(client);
      if (clash !== undefined) add(tool.name === undefined ? [] : ['name'], `tools ${JSON.stringify(clash)} and ${JSON.stringify(original)} would both be named ${JSON.stringify(client)}`);
      else clientNames.set(client, original);
    }
    argumentProblems(tool.arguments ?? {}, add);
  }
  return problems;
}

function argumentProblems(args: Readonly<Record<string, ArgumentTransform>>, add: (path: readonly string[], message: string) => void): void {
  const clientNames = new Map<string, string>();
  for (const [original, arg] of Object.entries(args)) {
    const at = (key?: string): string[] => (key === undefined ? ['arguments', original] : ['arguments', original, key]);
    if (arg.hide === true) {
      if (arg.value === undefined && arg.default === undefined) add(at('hide'), 'a hidden argument needs a value (or a default) to send on every call');
      if (arg.name !== undefined) add(at('name'), 'a hidden argument is not shown, so it cannot be renamed');
      for (const key of NARROWING_KEYS) {
        if (arg[key] !== undefined) add(at(key), `a hidden argument is not shown, so it cannot be narrowed (${key})`);
      }
      continue;
    }
    if (arg.value !== undefined) add(at('value'), 'value pins a hidden argument: add "hide": true, or use "default" for a value the client may change');
    if (arg.name !== undefined && arg.name === '') add(at('name'), 'an argument name cannot be empty');
    const client = arg.name ?? original;
    const clash = clientNames.get(client);
    if (clash !== undefined) add(arg.name === undefined ? at() : at('name'), `arguments ${JSON.stringify(clash)} and ${JSON.stringify(original)} would both be named ${JSON.stringify(client)}`);
    else clientNames.set(client, original);
    narrowingProblems(arg, (key, message) => add(at(key), message));
  }
}

function narrowingProblems(arg: ArgumentTransform, add: (key: string, message: string) => void): void {
  if (arg.enum !== undefined && arg.enum.length === 0) add('enum', 'an empty enum would refuse every value');
  if (arg.minimum !== undefined && arg.maximum !== undefined && arg.minimum > arg.maximum) add('maximum', `maximum ${arg.maximum} is below minimum ${arg.minimum}`);
  for (const key of ['minLength', 'maxLength'] as const) {
    const length = arg[key];
    if (length !== undefined && !(Number.isInteger(length) && length >= 0)) add(key, `${key} must be a whole number, 0 or more`);
  }
  if (arg.minLength !== undefined && arg.maxLength !== undefined && arg.minLength > arg.maxLength) add('maxLength', `maxLength ${arg.maxLength} is below minLength ${arg.minLength}`);
  let pattern: RegExp | undefined;
  if (arg.pattern !== undefined) {
    try {
      pattern = new RegExp(arg.pattern, 'u');
    } catch (error) {
      add('pattern', `not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
  }
  if (arg.default !== undefined) {
    const violation = narrowingViolation(arg, pattern, arg.default);
    if (violation) add('default', `the default ${violation.message}`);
  }
}

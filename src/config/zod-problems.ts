import type * as z from 'zod';
import { IGNORED_ROOT_KEYS, IGNORED_SERVER_KEYS } from './client-keys.js';
import type { ConfigProblem } from './config-error.js';
import { formatPath, type ConfigPath } from './config-path.js';
import { EFFECTIVE_SCHEMA } from './config-schema.js';
import { describeValue } from './describe-value.js';
import type { Position } from './parse-config-text.js';
import { suggest } from './suggest.js';

/** What turns zod's issues into problems a person can act on. */
export interface ProblemContext {
  readonly file: string;
  /** The schema the data was checked against. */
  readonly schema: z.ZodType;
  /** The data that was checked (for what was found: kinds of values only, never values of secrets). */
  readonly data: unknown;
  readonly locate: (path: ConfigPath) => Position | undefined;
}

/** Keys under which values are secrets: never quoted, whatever the problem. */
const SECRET_KEYS = new Set(['env', 'headers', 'http_headers', 'env_http_headers', 'tokens', 'token', 'options']);
const IGNORED = new Set([...Object.keys(IGNORED_SERVER_KEYS), ...Object.keys(IGNORED_ROOT_KEYS)]);

/**
 * The problems zod found, each with its place, what was expected and what was found
 * (`expected a string, found a whole number`), and for an unknown key the allowed key it is
 * closest to (`unknown key; did you mean "command"?`).
 */
export function problemsFromIssues(issues: readonly z.core.$ZodIssue[], context: ProblemContext): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const add = (path: ConfigPath, message: string): void => {
    const at = context.locate(path);
    problems.push({ file: context.file, ...(at ? { line: at.line, column: at.column } : {}), path: formatPath(path), message });
  };
  const visit = (issue: z.core.$ZodIssue, base: ConfigPath): void => {
    const path = [...base, ...issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))];
    const found = valueAt(context.data, path);
    switch (issue.code) {
      case 'unrecognized_keys': {
        const allowed = keysAt(context.schema, context.data, path) ?? [];
        for (const key of issue.keys) add([...path, key], unknownKey(key, allowed));
        return;
      }
      case 'invalid_union': {
        const branch = matchingBranch(issue.errors);
        if (branch) for (const inner of branch) visit(inner, path);
        else add(path, `expected ${issue.errors.map((errors) => expectedOf(errors[0])).filter((text) => text !== '').join(' or ')}, found ${describeValue(found)}`);
        return;
      }
      case 'invalid_key':
        add(path, issue.issues[0]?.message ?? 'invalid key');
        return;
      default:
        add(path, messageOf(issue, found, mayQuote(path)));
    }
  };
  for (const issue of issues) visit(issue, []);
  return problems;
}

function messageOf(issue: z.core.$ZodIssue, found: unknown, quotable: boolean): string {
  switch (issue.code) {
    case 'invalid_type':
      return found === undefined ? `missing: expected ${expectedType(issue.expected)}` : `expected ${expectedType(issue.expected)}, found ${describeValue(found)}`;
    case 'invalid_value':
      return `expected ${oneOf(issue.values)}, found ${quotable && typeof found === 'string' && found.length <= 40 ? JSON.stringify(found) : describeValue(found)}`;
    case 'too_small':
      if (issue.origin === 'string') return `expected a non-empty string, found ${describeValue(found)}`;
      if (issue.origin === 'array') return `expected at least ${issue.minimum} item${issue.minimum === 1 ? '' : 's'}, found ${describeValue(found)}`;
      return `expected ${issue.inclusive === false ? 'more than' : 'at least'} ${issue.minimum}, found ${quotable && typeof found === 'number' ? found : describeValue(found)}`;
    case 'too_big':
      return `expected ${issue.inclusive === false ? 'less than' : 'at most'} ${issue.maximum}, found ${quotable && typeof found === 'number' ? found : describeValue(found)}`;
    case 'invalid_format':
      // Every pattern of ours has its own message.
      return issue.message;
    default:
      return issue.message;
  }
}

/** The branch of a union whose type matched the value (its problems are further in), if any. */
function matchingBranch(branches: readonly (readonly z.core.$ZodIssue[])[]): readonly z.core.$ZodIssue[] | undefined {
  const matching = branches.filter((issues) => !issues.some((issue) => issue.path.length === 0 && (issue.code === 'invalid_type' || issue.code === 'invalid_value')));
  return matching.length === 0 ? undefined : matching.reduce((best, issues) => (issues.length < best.length ? issues : best));
}

function expectedOf(issue: z.core.$ZodIssue | undefined): string {
  if (issue?.code === 'invalid_type') return expectedType(issue.expected);
  if (issue?.code === 'invalid_value') return oneOf(issue.values);
  return '';
}

/** `"a"`, `"a" or "b"`, `one of "a", "b", "c"`. */
function oneOf(values: readonly unknown[]): string {
  const quoted = values.map((value) => JSON.stringify(value));
  return quoted.length > 2 ? `one of ${quoted.join(', ')}` : quoted.join(' or ');
}

function expectedType(expected: string): string {
  switch (expected) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'int':
      return 'a whole number';
    case 'boolean':
      return 'true or false';
    case 'object':
    case 'record':
      return 'an object';
    case 'array':
      return 'a list';
    default:
      return expected;
  }
}

function unknownKey(key: string, allowed: readonly string[]): string {
  const close = suggest(key, allowed);
  if (close !== undefined) return `unknown key; did you mean ${JSON.stringify(close)}?`;
  const ours = allowed.filter((name) => !IGNORED.has(name) && name !== 'upstream');
  return ours.length > 0 && ours.length <= 12 ? `unknown key: expected one of ${ours.join(', ')}` : 'unknown key';
}

function mayQuote(path: ConfigPath): boolean {
  return !path.some((segment) => typeof segment === 'string' && SECRET_KEYS.has(segment));
}

function valueAt(data: unknown, path: ConfigPath): unknown {
  let value = data;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

/** The parts of zod's definitions that lead from a schema to the schema of a key or item. */
interface Definition {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly valueType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly options?: readonly z.ZodType[];
}

function definitionOf(schema: z.ZodType): Definition {
  return schema._zod.def as unknown as Definition;
}

/** The keys the object at `path` may have, following the schema (and the value, through unions). */
function keysAt(root: z.ZodType, data: unknown, path: ConfigPath): string[] | undefined {
  let schema = settle(root, data);
  let value = data;
  for (const segment of path) {
    if (schema === undefined) return undefined;
    value = valueAt(value, [segment]);
    const definition = definitionOf(schema);
    const next =
      definition.type === 'object' ? definition.shape?.[String(segment)] : definition.type === 'record' ? definition.valueType : definition.type === 'array' ? definition.element : undefined;
    schema = next === undefined ? undefined : settle(next, value);
  }
  const shape = schema === undefined ? undefined : definitionOf(schema).shape;
  return shape === undefined ? undefined : Object.keys(shape);
}

/** The schema that decides the shape of `value`: through optional, pipes, unions and custom parts. */
function settle(schema: z.ZodType, value: unknown): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (let depth = 0; depth < 16 && current !== undefined; depth++) {
    const custom = EFFECTIVE_SCHEMA.get(current);
    if (custom) {
      current = custom(value);
      continue;
    }
    const definition = definitionOf(current);
    switch (definition.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'catch':
        current = definition.innerType;
        break;
      case 'pipe':
        current = definition.out !== undefined && definitionOf(definition.out).type === 'transform' ? definition.in : definition.out;
        break;
      case 'union':
        current = definition.options?.find((option) => (typeof value === 'object' && value !== null) === (definitionOf(option).type === 'object')) ?? definition.options?.[0];
        break;
      default:
        return current;
    }
  }
  return current;
}

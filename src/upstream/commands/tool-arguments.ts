import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import type { CommandParameter, CommandParameterValue } from './command-options.js';

/** The arguments of one call, checked, with defaults filled in: only the parameters that have a value. */
export type ToolArguments = ReadonlyMap<string, CommandParameterValue>;

/**
 * The JSON Schema (draft 2020-12 subset) of a command tool's arguments, as `tools/list` shows it:
 * one property per parameter with its type, description, default and constraints; `required`
 * for those required without a default; no other properties.
 */
export function inputSchemaOf(parameters: Readonly<Record<string, CommandParameter>>): { type: 'object'; properties: Record<string, JsonObject>; required?: string[]; additionalProperties: false } {
  const properties: Record<string, JsonObject> = {};
  const required: string[] = [];
  for (const [name, parameter] of Object.entries(parameters)) {
    const property: JsonObject = {};
    const constraints: JsonObject = {};
    if (parameter.enum !== undefined) constraints.enum = [...parameter.enum];
    if (parameter.pattern !== undefined) constraints.pattern = parameter.pattern;
    if (parameter.maxLength !== undefined) constraints.maxLength = parameter.maxLength;
    if (parameter.type === 'array') {
      property.type = 'array';
      property.items = { type: 'string', ...constraints };
      if (parameter.maxItems !== undefined) property.maxItems = parameter.maxItems;
    } else {
      property.type = parameter.type;
      Object.assign(property, constraints);
      if (parameter.minimum !== undefined) property.minimum = parameter.minimum;
      if (parameter.maximum !== undefined) property.maximum = parameter.maximum;
    }
    if (parameter.description !== undefined) property.description = parameter.description;
    if (parameter.default !== undefined) property.default = parameter.default;
    properties[name] = property;
    if (parameter.required === true && parameter.default === undefined) required.push(name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/**
 * Checks a call's arguments against the parameters and fills in defaults. A missing required
 * parameter, an unknown one, a value of the wrong type or outside its constraints, or a NUL
 * character (which cannot be passed in argv) is McpError -32602 naming the parameter.
 */
export function checkArguments(parameters: Readonly<Record<string, CommandParameter>>, args: JsonObject): ToolArguments {
  for (const name of Object.keys(args)) {
    if (!Object.hasOwn(parameters, name)) {
      const known = Object.keys(parameters);
      throw invalid(name, `unknown parameter${known.length === 0 ? ' (this tool takes none)' : ` (expected ${known.map((k) => JSON.stringify(k)).join(', ')})`}`);
    }
  }
  const values = new Map<string, CommandParameterValue>();
  for (const [name, parameter] of Object.entries(parameters)) {
    const given = args[name];
    if (given === undefined || given === null) {
      if (parameter.default !== undefined) values.set(name, parameter.default);
      else if (parameter.required === true) throw invalid(name, 'required');
      continue;
    }
    const problem = valueProblem(parameter, given);
    if (problem !== undefined) throw invalid(name, problem);
    values.set(name, given as CommandParameterValue);
  }
  return values;
}

/** What is wrong with `value` for `parameter` (undefined: nothing). Also checks defaults at configuration time. */
export function valueProblem(parameter: CommandParameter, value: unknown): string | undefined {
  switch (parameter.type) {
    case 'string':
      return typeof value === 'string' ? stringProblem(parameter, value) : `expected a string, got ${typeName(value)}`;
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `expected ${parameter.type === 'integer' ? 'an integer' : 'a number'}, got ${typeName(value)}`;
      if (parameter.type === 'integer' && !Number.isInteger(value)) return `expected an integer, got ${value}`;
      if (parameter.minimum !== undefined && value < parameter.minimum) return `must be at least ${parameter.minimum}, got ${value}`;
      if (parameter.maximum !== undefined && value > parameter.maximum) return `must be at most ${parameter.maximum}, got ${value}`;
      if (parameter.enum !== undefined && !parameter.enum.includes(value)) return `must be one of ${parameter.enum.map((e) => JSON.stringify(e)).join(', ')}`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected a boolean, got ${typeName(value)}`;
    case 'array': {
      if (!Array.isArray(value)) return `expected an array of strings, got ${typeName(value)}`;
      if (parameter.maxItems !== undefined && value.length > parameter.maxItems) return `at most ${parameter.maxItems} items, got ${value.length}`;
      for (const [index, item] of value.entries()) {
        const problem = typeof item === 'string' ? stringProblem(parameter, item) : `expected a string, got ${typeName(item)}`;
        if (problem !== undefined) return `item ${index}: ${problem}`;
      }
      return undefined;
    }
  }
}

function stringProblem(parameter: CommandParameter, value: string): string | undefined {
  if (value.includes('\0')) return 'contains a NUL character, which cannot be passed to a program';
  if (parameter.maxLength !== undefined && [...value].length > parameter.maxLength) return `at most ${parameter.maxLength} characters`;
  if (parameter.enum !== undefined && !parameter.enum.includes(value)) return `must be one of ${parameter.enum.map((e) => JSON.stringify(e)).join(', ')}`;
  if (parameter.pattern !== undefined && !compiled(parameter.pattern).test(value)) return `must match the pattern ${parameter.pattern}`;
  return undefined;
}

const patterns = new Map<string, RegExp>();

/** A parameter's pattern as a RegExp (`u` flag, as JSON Schema's ECMA-262 dialect), compiled once. */
export function compiled(pattern: string): RegExp {
  let regex = patterns.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(pattern, 'u');
    patterns.set(pattern, regex);
  }
  return regex;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value === 'object' ? 'an object' : `${typeof value === 'string' ? 'a string' : `a ${typeof value}`}`;
}

function invalid(name: string, problem: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid argument "${name}": ${problem}`, { parameter: name });
}

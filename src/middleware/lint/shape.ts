/**
 * @module
 * Just enough of a shape checker for `lint`: each shape reports what is wrong with a value, with
 * the path to it (`result.tools[0].inputSchema: expected an object, got nothing`). Objects are
 * open: fields a shape does not name are not checked.
 */
import { isJsonObject } from '../../message/parse-message.js';

/** Adds a problem for each way `value` (found at `path`) is not of this shape. */
export type Shape = (value: unknown, path: string, problems: string[]) => void;

function expect(what: string, test: (value: unknown) => boolean): Shape {
  return (value, path, problems) => {
    if (!test(value)) problems.push(`${path}: expected ${what}, got ${describe(value)}`);
  };
}

export const string: Shape = expect('a string', (value) => typeof value === 'string');
export const number: Shape = expect('a number', (value) => typeof value === 'number' && Number.isFinite(value));
export const boolean: Shape = expect('a boolean', (value) => typeof value === 'boolean');
export const stringOrNumber: Shape = expect('a string or a number', (value) => typeof value === 'string' || typeof value === 'number');
/** Anything but nothing. */
export const present: Shape = expect('a value', (value) => value !== undefined);

export function oneOf(...values: readonly string[]): Shape {
  return expect(values.map((value) => JSON.stringify(value)).join(' or '), (value) => values.includes(value as string));
}

/** A string that starts with `prefix`. */
export function prefixed(prefix: string): Shape {
  return expect(`a string starting with ${JSON.stringify(prefix)}`, (value) => typeof value === 'string' && value.startsWith(prefix));
}

/** An object whose named fields have these shapes. */
export function object(fields: Readonly<Record<string, Shape>> = {}): Shape {
  const isObject = expect('an object', isJsonObject);
  return (value, path, problems) => {
    if (!isJsonObject(value)) return isObject(value, path, problems);
    for (const [key, shape] of Object.entries(fields)) shape(value[key], `${path}.${key}`, problems);
  };
}

/** An object whose every value has this shape. */
export function record(shape: Shape): Shape {
  return (value, path, problems) => {
    if (!isJsonObject(value)) return object()(value, path, problems);
    for (const [key, item] of Object.entries(value)) shape(item, `${path}.${key}`, problems);
  };
}

/** An array of items of this shape, with at most `max` of them. */
export function array(item: Shape, max = Infinity): Shape {
  return (value, path, problems) => {
    if (!Array.isArray(value)) return void problems.push(`${path}: expected an array, got ${describe(value)}`);
    if (value.length > max) problems.push(`${path}: expected at most ${max} items, got ${value.length}`);
    value.forEach((element: unknown, i) => item(element, `${path}[${i}]`, problems));
  };
}

export function optional(shape: Shape): Shape {
  return (value, path, problems) => {
    if (value !== undefined) shape(value, path, problems);
  };
}

/** Every one of these shapes. */
export function all(...shapes: readonly Shape[]): Shape {
  return (value, path, problems) => {
    for (const shape of shapes) shape(value, path, problems);
  };
}

/** `then` when `test` holds for the value, `otherwise` if not. */
export function branch(test: (value: unknown) => boolean, then: Shape, otherwise: Shape): Shape {
  return (value, path, problems) => (test(value) ? then : otherwise)(value, path, problems);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

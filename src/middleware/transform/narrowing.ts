/**
 * @module
 * Narrowing an argument: the JSON Schema keywords `transform` can tighten (`enum`, `minimum`,
 * `maximum`, `minLength`, `maxLength`, `pattern`), checked on calls and merged into schemas.
 */
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject } from '../../message/jsonrpc.js';
import type { ArgumentTransform } from './options.js';

/** Limits on an argument's values, with JSON Schema's meaning (each applies to values of its type only): the narrowing keys of {@link ArgumentTransform}. */
export type Narrowing = Pick<ArgumentTransform, 'enum' | 'minimum' | 'maximum' | 'minLength' | 'maxLength' | 'pattern'>;

/** The keyword a value breaks, and what the value must be (`must be at most 10`). */
export interface Violation {
  readonly rule: keyof Narrowing;
  readonly message: string;
}

/** The first rule of `narrowing` that `value` breaks; `pattern` is `narrowing.pattern` compiled. */
export function narrowingViolation(narrowing: Narrowing, pattern: RegExp | undefined, value: unknown): Violation | undefined {
  if (narrowing.enum !== undefined && !narrowing.enum.some((allowed) => isDeepStrictEqual(allowed, value))) {
    return { rule: 'enum', message: `must be one of ${narrowing.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}` };
  }
  if (typeof value === 'number') {
    if (narrowing.minimum !== undefined && value < narrowing.minimum) return { rule: 'minimum', message: `must be at least ${narrowing.minimum}` };
    if (narrowing.maximum !== undefined && value > narrowing.maximum) return { rule: 'maximum', message: `must be at most ${narrowing.maximum}` };
  }
  if (typeof value === 'string') {
    const length = narrowing.minLength !== undefined || narrowing.maxLength !== undefined ? codePoints(value) : 0;
    if (narrowing.minLength !== undefined && length < narrowing.minLength) return { rule: 'minLength', message: `must be at least ${narrowing.minLength} characters long` };
    if (narrowing.maxLength !== undefined && length > narrowing.maxLength) return { rule: 'maxLength', message: `must be at most ${narrowing.maxLength} characters long` };
    if (pattern !== undefined && !pattern.test(value)) return { rule: 'pattern', message: `must match the pattern ${JSON.stringify(narrowing.pattern)}` };
  }
  return undefined;
}

/**
 * The argument's schema narrowed: `enum` replaced (a subset of the original, or a problem),
 * limits the tighter of both, a second `pattern` kept in `allOf`. Returns a problem when the
 * narrowing widens the tool's own `enum`.
 */
export function narrowSchema(schema: JsonObject, narrowing: Narrowing): JsonObject | string {
  const out: JsonObject = { ...schema };
  if (narrowing.enum !== undefined) {
    const own = schema.enum;
    if (Array.isArray(own)) {
      const extra = narrowing.enum.filter((value) => !own.some((allowed) => isDeepStrictEqual(allowed, value)));
      if (extra.length > 0) return `its enum has ${extra.map((value) => JSON.stringify(value)).join(', ')}, which the tool's own enum does not`;
    }
    out.enum = [...narrowing.enum];
  }
  const tighter = (key: 'minimum' | 'maximum' | 'minLength' | 'maxLength', pick: (a: number, b: number) => number): void => {
    const mine = narrowing[key];
    if (mine === undefined) return;
    const own = schema[key];
    out[key] = typeof own === 'number' ? pick(own, mine) : mine;
  };
  tighter('minimum', Math.max);
  tighter('maximum', Math.min);
  tighter('minLength', Math.max);
  tighter('maxLength', Math.min);
  if (narrowing.pattern !== undefined) {
    const own = schema.pattern;
    if (typeof own === 'string' && own !== narrowing.pattern) out.allOf = [...(Array.isArray(schema.allOf) ? schema.allOf : []), { pattern: own }];
    out.pattern = narrowing.pattern;
  }
  return out;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * @module
 * ajv's errors as people and models read them: the field as a path from the value's name
 * (`arguments/count`, `structuredContent/items/0/id`), what it must be, and the rule in brackets
 * (`arguments/count must be <= 10 (maximum)`).
 */
import type { ErrorObject } from 'ajv';

/** One validation error as it goes in an error's `data`. */
export interface SchemaViolation {
  /** From the value's name, `/`-separated (`arguments/count`): a JSON pointer without the leading `/`. */
  path: string;
  /** The JSON keyword that failed (`maximum`, `required`, `type`, `format`, ...). */
  keyword: string;
  message: string;
  /** Where in the schema (`#/properties/count/maximum`). */
  schemaPath: string;
  /** ajv's details of the rule (`{ limit: 10, comparison: '<=' }`). */
  params: Record<string, unknown>;
}

/** At most this many violations go in `data`. */
const MAX_IN_DATA = 50;

/** `errors` with paths rooted at `root` (the properties a rule names, such as a missing one, made part of the path). */
export function violations(root: string, errors: readonly ErrorObject[]): SchemaViolation[] {
  return errors.slice(0, MAX_IN_DATA).map((error) => {
    const params = error.params as Record<string, unknown>;
    let path = root + error.instancePath;
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
      path += `/${escape(params.missingProperty)}`;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      path += `/${escape(params.additionalProperty)}`;
      message = 'is not allowed';
    } else if (error.keyword === 'unevaluatedProperties' && typeof params.unevaluatedProperty === 'string') {
      path += `/${escape(params.unevaluatedProperty)}`;
      message = 'is not allowed';
    }
    return { path, keyword: error.keyword, message, schemaPath: error.schemaPath, params };
  });
}

/** The first `max` violations in one line: `a must be <= 10 (maximum); b is required (required) (and 2 more)`. */
export function summarize(found: readonly SchemaViolation[], total: number, max: number): string {
  const shown = found.slice(0, Math.max(1, max)).map((violation) => `${violation.path} ${violation.message} (${violation.keyword})`);
  const more = total - shown.length;
  return more > 0 ? `${shown.join('; ')} (and ${more} more)` : shown.join('; ');
}

/** A property name as a JSON pointer segment. */
function escape(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

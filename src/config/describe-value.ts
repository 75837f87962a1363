/**
 * What kind of value `value` is, for "expected ..., found ..." messages: `a string`, `a number`,
 * `true`, `a list`, `an object`, `nothing`. Never the value itself (it may be a secret).
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return value === '' ? 'an empty string' : 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a whole number' : 'a number';
  if (typeof value === 'bigint') return 'a whole number';
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (value instanceof Date || Object.prototype.toString.call(value) === '[object Date]') return 'a date';
  return 'an object';
}

/**
 * @module
 * Name patterns, for `filter`'s names and uris and `on()`'s methods: `*` matches any run of
 * characters (`/` included), `?` matches one character, anything else matches itself. Names and
 * uris are not paths, so there is no `**`, no braces, no negation and no special case for `/` or
 * a leading dot.
 */

/** Compiles `patterns` once into one test: does a name match any of them? */
export function matchAny(patterns: readonly string[]): (value: string) => boolean {
  if (patterns.length === 0) return () => false;
  const source = patterns.map(toSource).join('|');
  const regex = new RegExp(`^(?:${source})$`, 'su');
  return (value) => regex.test(value);
}

function toSource(pattern: string): string {
  return pattern
    .split(/([*?])/)
    .map((part) => (part === '*' ? '.*' : part === '?' ? '.' : part.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')))
    .join('');
}

/** True if `pattern` has a wildcard (`*` or `?`), false if it matches only itself. */
export function isPattern(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

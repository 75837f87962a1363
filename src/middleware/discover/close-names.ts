/**
 * @module
 * Names close to a misspelt one, for the answer to a tool name that does not exist.
 */

/** Up to `count` of `names` closest to `wanted` by edit distance (within a third of its length), closest first. */
export function closeNames(wanted: string, names: Iterable<string>, count: number): string[] {
  const target = wanted.toLowerCase();
  const limit = Math.max(2, Math.floor(target.length / 3));
  const found: { name: string; distance: number }[] = [];
  for (const name of names) {
    const candidate = name.toLowerCase();
    const distance = candidate.includes(target) || target.includes(candidate) ? Math.abs(candidate.length - target.length) / 100 : editDistance(target, candidate, limit);
    if (distance <= limit) found.push({ name, distance });
  }
  return found
    .sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : 1))
    .slice(0, count)
    .map((entry) => entry.name);
}

/** Levenshtein distance, or `limit + 1` as soon as it is known to exceed `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      current.push(value);
      if (value < best) best = value;
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] as number;
}

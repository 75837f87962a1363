/**
 * The allowed word closest to `found`, if it is close enough to be a misspelling: a few edits
 * apart (a third of its length at most, at least one), ignoring case, `_` and `-`
 * (`startup_timeout` suggests `startupTimeout`). Undefined when nothing is close.
 */
export function suggest(found: string, allowed: Iterable<string>): string | undefined {
  const target = normalized(found);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of allowed) {
    const distance = editDistance(target, normalized(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(1, Math.floor(target.length / 3)) ? best : undefined;
}

function normalized(word: string): string {
  return word.toLowerCase().replace(/[_-]/g, '');
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...Array<number>(b.length).fill(0)]);
  const row0 = rows[0] as number[];
  for (let j = 0; j <= b.length; j++) row0[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (rows[i - 2]?.[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return rows[a.length]?.[b.length] ?? Math.max(a.length, b.length);
}

/**
 * @module
 * A unified diff of two texts, line by line (`diff -u` style hunks with three lines of context),
 * for `mcp-chain pin accept` to show how a tool's definition changed. Made for texts of a few
 * hundred lines (pretty-printed JSON): longest common subsequence by dynamic programming, and a
 * plain "everything replaced" hunk past `MAX_CELLS`.
 */

/** Above this many (lines × lines), the texts are shown as one hunk replacing all of the first by the second. */
const MAX_CELLS = 4_000_000;

type Op = { kind: ' ' | '-' | '+'; line: string };

/**
 * `--- <fromLabel>` / `+++ <toLabel>` and the hunks that turn `from` into `to`; an empty string
 * when they are equal.
 *
 * @example
 * unifiedDiff('a\nb\n', 'a\nc\n', 'pinned', 'pending');
 * // '--- pinned\n+++ pending\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n'
 */
export function unifiedDiff(from: string, to: string, fromLabel: string, toLabel: string, context = 3): string {
  if (from === to) return '';
  const a = splitLines(from);
  const b = splitLines(to);
  const ops = a.length * b.length > MAX_CELLS ? replaceAll(a, b) : diffLines(a, b);
  let out = `--- ${fromLabel}\n+++ ${toLabel}\n`;
  for (const hunk of hunks(ops, context)) out += hunk;
  return out;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function replaceAll(a: readonly string[], b: readonly string[]): Op[] {
  return [...a.map((line): Op => ({ kind: '-', line })), ...b.map((line): Op => ({ kind: '+', line }))];
}

/** The edit script from `a` to `b` by longest common subsequence (common prefix and suffix first). */
function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const n = midA.length;
  const m = midB.length;
  // lcs[i][j]: the length of the LCS of midA[i..] and midB[j..], rows of m + 1.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] = midA[i] === midB[j] ? (lcs[(i + 1) * (m + 1) + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * (m + 1) + j] ?? 0, lcs[i * (m + 1) + j + 1] ?? 0);
    }
  }
  const ops: Op[] = a.slice(0, start).map((line) => ({ kind: ' ', line }));
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && midA[i] === midB[j]) {
      ops.push({ kind: ' ', line: midA[i] as string });
      i++;
      j++;
    } else if (j < m && (i === n || (lcs[i * (m + 1) + j + 1] ?? 0) >= (lcs[(i + 1) * (m + 1) + j] ?? 0))) {
      ops.push({ kind: '+', line: midB[j] as string });
      j++;
    } else {
      ops.push({ kind: '-', line: midA[i] as string });
      i++;
    }
  }
  // Removals before additions within a run of changes, as diff -u shows them.
  const ordered: Op[] = [];
  let run: Op[] = [];
  const flush = (): void => {
    ordered.push(...run.filter((op) => op.kind === '-'), ...run.filter((op) => op.kind === '+'));
    run = [];
  };
  for (const op of ops) {
    if (op.kind === ' ') {
      flush();
      ordered.push(op);
    } else run.push(op);
  }
  flush();
  for (const line of a.slice(endA)) ordered.push({ kind: ' ', line });
  return ordered;
}

/** The hunks of an edit script, each with up to `context` unchanged lines around its changes. */
function hunks(ops: readonly Op[], context: number): string[] {
  const changed = ops.map((op, index) => (op.kind === ' ' ? -1 : index)).filter((index) => index >= 0);
  const out: string[] = [];
  let k = 0;
  while (k < changed.length) {
    const first = changed[k] as number;
    let last = first;
    while (k + 1 < changed.length && (changed[k + 1] as number) - last <= 2 * context + 1) last = changed[++k] as number;
    k++;
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length, last + context + 1);
    // Line numbers: count the lines of a (' ', '-') and of b (' ', '+') before `from`.
    let lineA = 1;
    let lineB = 1;
    for (const op of ops.slice(0, from)) {
      if (op.kind !== '+') lineA++;
      if (op.kind !== '-') lineB++;
    }
    const body = ops.slice(from, to);
    const countA = body.filter((op) => op.kind !== '+').length;
    const countB = body.filter((op) => op.kind !== '-').length;
    const range = (line: number, count: number): string => (count === 1 ? `${line}` : `${count === 0 ? line - 1 : line},${count}`);
    out.push(`@@ -${range(lineA, countA)} +${range(lineB, countB)} @@\n${body.map((op) => `${op.kind}${op.line}\n`).join('')}`);
  }
  return out;
}

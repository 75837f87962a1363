import fc from 'fast-check';
import { type MemberSpans, scanJson, SPAN } from '../../src/message/json-scan.js';
import { defineFuzzTarget } from './fuzz-target.js';
import { awkwardString, jsonValue, messageText, mutatedText, oddJsonText, sameJson } from './grammar.js';

/*
 * The reference for scanJson: JSON.parse says whether bytes are one JSON value, and a plain
 * recursive-descent walk over text JSON.parse accepted says where the member records are. Both
 * are exported for src/message/json-scan.test.ts.
 */

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Whether `JSON.parse` accepts the text the bytes decode to (the caller checks they are UTF-8). */
export function parsesAsJson(bytes: Uint8Array): boolean {
  try {
    JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The member records scanJson should note for `bytes` (one JSON value, checked by JSON.parse),
 * found the slow and obvious way: in the order they come, for each member of an object at nesting
 * level L (0 for the top-level value) a record of depth L+1 (key inside its quotes, 1 if it has a
 * backslash, its value), and for each element of an array at level L that is an object a record of
 * depth L+1 with -1 for the key; none deeper than `depth`, and none inside an array that is an
 * element of an array (it has no record, so they would follow one they do not belong to).
 * Positions are relative to `bytes`.
 */
export function referenceSpans(bytes: Uint8Array, depth = 2): number[] {
  const out: number[] = [];
  let i = 0;
  const space = (): void => {
    while (isSpace(bytes[i])) i += 1;
  };
  const string = (): void => {
    i += 1;
    while (bytes[i] !== 0x22) i += bytes[i] === 0x5c ? 2 : 1;
    i += 1;
  };
  /** Skips any value without noting anything, iteratively (it may be nested 10,000 deep). */
  const skip = (): void => {
    let open = 0;
    do {
      const c = bytes[i];
      if (c === 0x22) {
        string();
      } else if (c === 0x7b || c === 0x5b) {
        open += 1;
        i += 1;
      } else if (c === 0x7d || c === 0x5d) {
        open -= 1;
        i += 1;
      } else if (c === 0x2c || c === 0x3a || isSpace(c)) {
        i += 1;
      } else {
        while (i < bytes.length && !isSpace(bytes[i]) && ![0x2c, 0x5d, 0x7d].includes(bytes[i] as number)) i += 1;
      }
    } while (open > 0);
  };
  const value = (level: number): void => {
    const c = bytes[i];
    if (c === 0x7b) {
      i += 1;
      space();
      if (bytes[i] === 0x7d) return void (i += 1);
      for (;;) {
        const keyStart = i;
        string();
        const keyEnd = i;
        space();
        i += 1; // :
        space();
        const at = out.length;
        if (level + 1 <= depth) {
          const escaped = Array.prototype.includes.call(bytes.subarray(keyStart + 1, keyEnd - 1), 0x5c) ? 1 : 0;
          out.push(level + 1, keyStart + 1, keyEnd - 1, escaped, i, -1);
          value(level + 1);
          out[at + 5] = i;
        } else {
          skip();
        }
        space();
        if (bytes[i++] === 0x7d) return;
        space();
      }
    }
    if (c === 0x5b) {
      i += 1;
      space();
      if (bytes[i] === 0x5d) return void (i += 1);
      for (;;) {
        if (level + 1 <= depth && bytes[i] !== 0x5b) {
          const at = bytes[i] === 0x7b ? out.push(level + 1, -1, -1, 0, i, -1) - SPAN : -1;
          value(level + 1);
          if (at >= 0) out[at + 5] = i;
        } else {
          skip();
        }
        space();
        if (bytes[i++] === 0x5d) return;
        space();
      }
    }
    skip();
  };
  space();
  value(0);
  return out;
}

/**
 * Throws unless every record in `spans` (for `bytes`, which JSON.parse accepts) slices back to
 * what JSON.parse reads: a key's bytes are the text between two quotes that parses to a string,
 * flagged escaped exactly when it has a backslash; a value's bytes parse on their own; and the
 * records that belong to an object (the deeper ones after it, up to the next record as shallow)
 * rebuild it: its members in order, the last of duplicate keys winning. An array's records are its
 * elements that are objects, in order.
 */
export function checkSpansMeaning(bytes: Buffer, spans: MemberSpans, depth: number): void {
  if (spans.length % SPAN !== 0) throw new Error(`spans of length ${spans.length}, not a multiple of ${SPAN}`);
  const text = (start: number, end: number): string => bytes.toString('utf8', start, end);
  const parse = (start: number, end: number): unknown => JSON.parse(text(start, end)) as unknown;
  // The records of the value bytes[start, end) (at nesting level `level`) are spans[from, to).
  const rebuild = (start: number, end: number, level: number, from: number, to: number): void => {
    const whole = parse(start, end);
    const own: number[] = [];
    for (let m = from; m < to; m += SPAN) {
      const d = spans[m] as number;
      if (d < level + 1 || d > depth) throw new Error(`record ${m / SPAN} has depth ${d}, expected ${level + 1}..${depth}`);
      if (d === level + 1) own.push(m);
    }
    if (from < to && own[0] !== from) throw new Error(`record ${from / SPAN} (depth ${spans[from]}) follows no record of depth ${level + 1}`);
    const isObject = whole !== null && typeof whole === 'object' && !Array.isArray(whole);
    if (level + 1 > depth) {
      if (from !== to) throw new Error(`records below depth ${depth}`);
      return;
    }
    if (isObject) {
      const rebuilt: Record<string, unknown> = {};
      for (const m of own) {
        const [, keyStart, keyEnd, escaped, valueStart, valueEnd] = spans.slice(m, m + SPAN) as [number, number, number, number, number, number];
        if (keyStart < start || valueEnd > end || !(keyStart <= keyEnd && keyEnd < valueStart && valueStart < valueEnd)) throw new Error(`record ${m / SPAN} out of place: ${spans.slice(m, m + SPAN).join(',')}`);
        if (bytes[keyStart - 1] !== 0x22 || bytes[keyEnd] !== 0x22) throw new Error(`key of record ${m / SPAN} not inside quotes`);
        const key = JSON.parse(text(keyStart - 1, keyEnd + 1)) as unknown;
        if (typeof key !== 'string') throw new Error('key is not a string');
        if (escaped !== (bytes.subarray(keyStart, keyEnd).includes(0x5c) ? 1 : 0)) throw new Error(`key ${JSON.stringify(key)} flagged escaped=${escaped}`);
        if (!/^[\s:]*$/.test(text(keyEnd + 1, valueStart))) throw new Error(`between key ${JSON.stringify(key)} and its value: ${JSON.stringify(text(keyEnd + 1, valueStart))}`);
        Object.defineProperty(rebuilt, key, { value: parse(valueStart, valueEnd), writable: true, enumerable: true, configurable: true });
      }
      if (!sameJson(rebuilt, whole)) throw new Error(`the records of ${text(start, Math.min(end, start + 80))}… rebuild something else`);
    } else if (Array.isArray(whole)) {
      const objects = whole.filter((e) => e !== null && typeof e === 'object' && !Array.isArray(e));
      if (objects.length !== own.length) throw new Error(`array with ${objects.length} object elements has ${own.length} records`);
      own.forEach((m, k) => {
        if (spans[m + 1] !== -1 || spans[m + 2] !== -1 || spans[m + 3] !== 0) throw new Error(`element record ${m / SPAN} has a key`);
        if (bytes[spans[m + 4] as number] !== 0x7b) throw new Error(`element record ${m / SPAN} does not start at {`);
        if (!sameJson(parse(spans[m + 4] as number, spans[m + 5] as number), objects[k])) throw new Error(`element record ${m / SPAN} is another element`);
      });
    } else if (from !== to) {
      throw new Error(`records under a ${typeof whole}`);
    }
    own.forEach((m, k) => rebuild(spans[m + 4] as number, spans[m + 5] as number, level + 1, m + SPAN, own[k + 1] ?? to));
  };
  rebuild(0, bytes.length, 0, 0, spans.length);
}

/** JSON text laid out by hand: whitespace of every allowed kind between tokens, keys escaped as \uXXXX in either case. */
export function layOut(value: unknown, spaces: readonly string[], escapeKeys: boolean): string {
  let n = 0;
  const ws = (): string => (spaces.length === 0 ? '' : (spaces[n++ % spaces.length] as string));
  const key = (k: string): string => {
    if (!escapeKeys) return JSON.stringify(k);
    const hex = [...k].map((c, j) => (j % 2 === 0 && c.length === 1 ? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')[j % 4 === 0 ? 'toUpperCase' : 'toLowerCase']() : JSON.stringify(c).slice(1, -1)));
    return `"${hex.join('')}"`;
  };
  const write = (v: unknown): string => {
    if (Array.isArray(v)) return `[${ws()}${v.map((e) => write(e)).join(`${ws()},${ws()}`)}${ws()}]`;
    if (v !== null && typeof v === 'object') return `{${ws()}${Object.entries(v).map(([k, e]) => `${key(k)}${ws()}:${ws()}${write(e)}`).join(`${ws()},${ws()}`)}${ws()}}`;
    return JSON.stringify(v) ?? 'null';
  };
  return ws() + write(value) + ws();
}

const spaceRun = fc.constantFrom('', '', ' ', '\t', '\n', '\r\n', '  \t ', '\u000c', '\u000b', '\u00a0', '\u2028', '\ufeff');

/** A long string of multi-byte characters, escapes and the odd special byte, so the four-bytes-at-a-time path runs. */
const longString = fc
  .tuple(fc.nat({ max: 400 }), fc.constantFrom('a', 'é', '😀', '中', 'Ģ', '\u071c', '\u00a0', '\u2028', '\\n', '\\u00E9', '\\"', '\u007f'), fc.nat({ max: 420 }), fc.constantFrom('', '"', '\\', '\\x', '\u0000', '\u001f', '\n', '\t', '😀'))
  .map(([length, unit, at, special]) => {
    const body = unit.repeat(length);
    const cut = Math.min(at, body.length);
    return `{"text":"${body.slice(0, cut)}${special}${body.slice(cut)}","n":1}`;
  });

interface ScanInput {
  readonly text: string;
  /** Where in its buffer the text starts (its byteOffset), so the words are aligned every way. */
  readonly offset: number;
  readonly depth: number;
}

const texts: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: messageText },
  { weight: 1, arbitrary: oddJsonText },
  { weight: 3, arbitrary: fc.tuple(jsonValue, fc.array(spaceRun, { maxLength: 6 }), fc.boolean()).map(([v, spaces, escapeKeys]) => layOut(v, spaces, escapeKeys)) },
  { weight: 2, arbitrary: jsonValue.chain((v) => mutatedText(JSON.stringify(v) ?? 'null')) },
  { weight: 2, arbitrary: longString },
  { weight: 1, arbitrary: longString.chain((t) => mutatedText(t)) },
  { weight: 1, arbitrary: fc.tuple(awkwardString, awkwardString).map(([a, b]) => `{"${a}":"${b}"}`) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', '1', '-', '.', 'e', 't', 'n', ' ', 'é', 'u', '0'), maxLength: 16 }) },
  // Number-like tokens: the grammar's corners (`-0`, `1.`, `.5`, `01`, `1e+`, `0x1`) alone and in place.
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: fc.constantFrom('-', '+', '.', 'e', 'E', '0', '1', '9', 'x'), minLength: 1, maxLength: 8 })
      .chain((t) => fc.constantFrom(t, `[${t}]`, `{"n":${t}}`, ` ${t}\t`, `[${t},${t}]`)),
  },
);

const inputs: fc.Arbitrary<ScanInput> = fc.record({ text: texts, offset: fc.nat({ max: 7 }), depth: fc.nat({ max: 4 }) });

/** Garbage around the text in its buffer: a scanner that reads past either end would see it. */
const GARBAGE = 0x22; // '"': closes a string left open, so reading on would accept it

function check({ text, offset, depth }: ScanInput): void {
  const bytes = Buffer.from(text); // a lone surrogate becomes U+FFFD: always UTF-8
  const n = bytes.length;
  const framed = Buffer.alloc(n + 16, GARBAGE);
  bytes.copy(framed, offset);
  const view = framed.subarray(offset, offset + n);
  const want = parsesAsJson(bytes);
  const spans: MemberSpans = [];
  const got = scanJson(view, 0, n, spans, depth);
  if (got !== want) throw new Error(`scanJson says ${got}, JSON.parse says ${want}, at byteOffset ${offset}: ${JSON.stringify(text.slice(0, 200))}`);
  // The same bytes as a range of the larger buffer, garbage on both sides.
  if (scanJson(framed, offset, offset + n) !== want) throw new Error(`scanJson of [${offset}, ${offset + n}) inside a larger buffer says ${!want}`);
  if (!want || depth > 4) return;
  const expected = referenceSpans(bytes, depth);
  if (spans.length !== expected.length || spans.some((x, k) => x !== expected[k])) throw new Error(`member spans ${spans.slice(0, 60).join(',')} ≠ reference ${expected.slice(0, 60).join(',')} (depth ${depth}): ${JSON.stringify(text.slice(0, 200))}`);
  checkSpansMeaning(bytes, spans, depth);
}

export const fuzzTargets = [
  defineFuzzTarget<ScanInput>({
    name: 'json-scan',
    invariant: 'scanJson accepts exactly the UTF-8 text JSON.parse accepts, at any byteOffset and never reading outside its range, and its member spans slice back to the parsed members',
    arbitrary: inputs,
    quickRuns: 1500,
    open: () => ({ check }),
  }),
];

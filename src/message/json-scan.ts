/**
 * A JSON validator that builds nothing: it checks that a run of bytes is exactly one JSON value, as
 * `JSON.parse` would accept it (RFC 8259: the four whitespace bytes around and between tokens,
 * strict number grammar, the nine escapes, no raw control character in a string), and can note
 * where the members of the outer objects are. What it does not check is the UTF-8 encoding itself,
 * which `isUtf8` does natively beforehand: a byte of 0x80 or more is then part of a character, valid
 * in a string and nowhere else, as it is for `JSON.parse` on the decoded text.
 *
 * It exists for messages that are forwarded as their own bytes: checking them this way costs a
 * fraction of parsing them (no objects, no strings), and a member nobody reads is never parsed.
 */

/** Bytes that end the plain run of a string: `"`, `\` and the control bytes below 0x20. */
const STRING_STOP = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STRING_STOP[c] = 1;
STRING_STOP[0x22] = 1;
STRING_STOP[0x5c] = 1;

/** The bytes that may follow a backslash, besides `u`. */
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;

const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

const OBJECT = 1;
const ARRAY = 2;

/**
 * Where the outer members are: six numbers per member, in the order they come: its depth (1 for
 * the members of the top-level object, 2 for theirs, …), the key's first and end byte (inside its
 * quotes), 1 if the key has an escape, and the value's first and end byte. The elements of an array
 * that are objects are noted too, with -1 for the key's bytes (their members are one deeper), except
 * inside an array that is itself an array's element (which has no record). A record belongs to the
 * shallower one before it.
 */
export type MemberSpans = number[];

/** The size of one member's record in {@link MemberSpans}. */
export const SPAN = 6;

/**
 * True when `bytes[start, end)` is exactly one JSON value, with only whitespace around it. When
 * `members` is given, the spans of the members (and object elements) down to `depth` are appended
 * to it; on false, what was appended means nothing.
 */
export function scanJson(bytes: Uint8Array, start: number, end: number, members?: MemberSpans, depth = 2): boolean {
  const b = bytes;
  /** The open containers, innermost last. */
  const stack: number[] = [];
  /** Per depth: the index in `members` of the record whose value is being scanned, or -1. */
  const pending: number[] = new Array<number>(depth + 1).fill(-1);
  const noted = members === undefined ? 0 : depth;
  /**
   * How deep records go where the scan is: `noted`, except inside an array that is an element of
   * an array (it has no record of its own, so nothing in it would follow the record it belongs to).
   */
  let limit = noted;
  /** The depth of the open containers when that array was opened, or -1. */
  let quietAt = -1;
  /** The bytes' ArrayBuffer as 32-bit words: word k holds its bytes 4k .. 4k+3 (unsigned shifts: it may be over 2 GiB). */
  const words = new Int32Array(b.buffer, 0, b.buffer.byteLength >>> 2);
  let i = skipSpace(b, start, end);
  // Expecting a value at i.
  for (;;) {
    if (i >= end) return false;
    let c = b[i] as number;
    if (c === 0x7b /* { */) {
      const d = stack.length;
      // An object that is an array's element, where elements are noted.
      if (d > 0 && d <= limit && stack[d - 1] === ARRAY) {
        (members as MemberSpans).push(d, -1, -1, 0, i, -1);
        pending[d] = (members as MemberSpans).length - SPAN;
      }
      stack.push(OBJECT);
      i = skipSpace(b, i + 1, end);
      if (i < end && b[i] === 0x7d /* } */) {
        stack.pop();
        i += 1;
      } else {
        const next = memberKey(b, i, end, d + 1 <= limit ? members : undefined, d + 1, words);
        if (next < 0) return false;
        if (d + 1 <= limit) pending[d + 1] = (members as MemberSpans).length - SPAN;
        i = next;
        continue;
      }
    } else if (c === 0x5b /* [ */) {
      const d = stack.length;
      // An array that is an array's element: nothing in it is noted.
      if (d < limit && stack[d - 1] === ARRAY) {
        limit = d;
        quietAt = d;
      }
      stack.push(ARRAY);
      i = skipSpace(b, i + 1, end);
      if (i < end && b[i] === 0x5d /* ] */) {
        stack.pop();
        i += 1;
        if (d === quietAt) {
          limit = noted;
          quietAt = -1;
        }
      } else {
        continue;
      }
    } else if (c === 0x22 /* " */) {
      i = scanString(b, i, end, words);
      if (i < 0) return false;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      i = scanNumber(b, i, end);
      if (i < 0) return false;
    } else if (c === 0x74 /* t */) {
      if (!(i + 3 < end && b[i + 1] === 0x72 && b[i + 2] === 0x75 && b[i + 3] === 0x65)) return false;
      i += 4;
    } else if (c === 0x66 /* f */) {
      if (!(i + 4 < end && b[i + 1] === 0x61 && b[i + 2] === 0x6c && b[i + 3] === 0x73 && b[i + 4] === 0x65)) return false;
      i += 5;
    } else if (c === 0x6e /* n */) {
      if (!(i + 3 < end && b[i + 1] === 0x75 && b[i + 2] === 0x6c && b[i + 3] === 0x6c)) return false;
      i += 4;
    } else {
      return false;
    }
    // A value ended at i: close what it ends, then expect a separator.
    for (;;) {
      const d = stack.length;
      if (d <= limit && (pending[d] as number) >= 0) {
        (members as MemberSpans)[(pending[d] as number) + 5] = i;
        pending[d] = -1;
      }
      i = skipSpace(b, i, end);
      if (d === 0) return i === end;
      if (i >= end) return false;
      c = b[i] as number;
      const top = stack[d - 1];
      if (c === 0x2c /* , */) {
        i = skipSpace(b, i + 1, end);
        if (top === OBJECT) {
          const next = memberKey(b, i, end, d <= limit ? members : undefined, d, words);
          if (next < 0) return false;
          if (d <= limit) pending[d] = (members as MemberSpans).length - SPAN;
          i = next;
        }
        break;
      }
      if ((c === 0x7d && top === OBJECT) || (c === 0x5d && top === ARRAY)) {
        stack.pop();
        i += 1;
        if (d - 1 === quietAt) {
          limit = noted;
          quietAt = -1;
        }
        continue;
      }
      return false;
    }
  }
}

/**
 * A member's key and colon at i (a string is expected there): returns where its value starts (after
 * the whitespace), or -1. Notes the member (at `depth`) in `members` when given.
 */
function memberKey(b: Uint8Array, i: number, end: number, members: MemberSpans | undefined, depth: number, words: Int32Array): number {
  if (i >= end || b[i] !== 0x22) return -1;
  const keyEnd = scanString(b, i, end, words);
  if (keyEnd < 0) return -1;
  let j = skipSpace(b, keyEnd, end);
  if (j >= end || b[j] !== 0x3a /* : */) return -1;
  j = skipSpace(b, j + 1, end);
  if (members !== undefined) {
    let escaped = 0;
    for (let k = i + 1; k < keyEnd - 1; k++) {
      if (b[k] === 0x5c) {
        escaped = 1;
        break;
      }
    }
    members.push(depth, i + 1, keyEnd - 1, escaped, j, -1);
  }
  return j;
}

/** The string at i (its opening quote): returns the index after its closing quote, or -1. */
function scanString(b: Uint8Array, i: number, end: number, words: Int32Array): number {
  i += 1;
  for (;;) {
    // Most runs (names, descriptions) end soon: their bytes one at a time, here; a long one (a
    // file's text) four at a time.
    const soon = i + 32 < end ? i + 32 : end;
    while (i < soon) {
      const c = b[i] as number;
      if (c < 0x20 || c === 0x22 || c === 0x5c) break;
      i += 1;
    }
    if (i === soon && i < end) i = longRun(b, i, end, words);
    if (i >= end) return -1;
    const c = b[i] as number;
    if (c === 0x22) return i + 1;
    if (c !== 0x5c) return -1; // a raw control byte
    const e = b[i + 1] as number;
    if (i + 1 < end && SIMPLE_ESCAPE[e] === 1) {
      i += 2;
    } else if (e === 0x75 /* u */ && i + 5 < end && HEX[b[i + 2] as number] === 1 && HEX[b[i + 3] as number] === 1 && HEX[b[i + 4] as number] === 1 && HEX[b[i + 5] as number] === 1) {
      i += 6;
    } else {
      return -1;
    }
  }
}

/**
 * The end of a long plain run of a string, from i (past its first 32 bytes): the index of the first
 * `"`, `\` or control byte, or `end`. Read four bytes at a time, each word tested at once for the
 * three kinds of byte that end a run.
 */
function longRun(b: Uint8Array, i: number, end: number, words: Int32Array): number {
  const base = b.byteOffset;
  while (i < end && ((base + i) & 3) !== 0) {
    if (STRING_STOP[b[i] as number] === 1) return i;
    i += 1;
  }
  let w = (base + i) >>> 2;
  const last = (base + end) >>> 2; // the words wholly before end
  for (; w < last; w++) {
    const v = words[w] as number;
    const quote = v ^ 0x22222222;
    const backslash = v ^ 0x5c5c5c5c;
    // Per byte: zero (after the xor) for a quote or a backslash, below 0x20 for a control byte.
    if (((((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash) | ((v - 0x20202020) & ~v)) & 0x80808080) !== 0) break;
  }
  // Words before w are plain; the rest one byte at a time (w's, and the tail after the last word).
  i = w * 4 - base;
  while (i < end && STRING_STOP[b[i] as number] === 0) i += 1;
  return i;
}

/** The number at i: returns the index after it, or -1. */
function scanNumber(b: Uint8Array, i: number, end: number): number {
  if (b[i] === 0x2d) i += 1;
  if (i >= end) return -1;
  if (b[i] === 0x30) {
    i += 1;
  } else if ((b[i] as number) >= 0x31 && (b[i] as number) <= 0x39) {
    i += 1;
    while (i < end && isDigit(b[i] as number)) i += 1;
  } else {
    return -1;
  }
  if (i < end && b[i] === 0x2e /* . */) {
    i += 1;
    if (i >= end || !isDigit(b[i] as number)) return -1;
    while (i < end && isDigit(b[i] as number)) i += 1;
  }
  if (i < end && (b[i] === 0x65 || b[i] === 0x45) /* e E */) {
    i += 1;
    if (i < end && (b[i] === 0x2b || b[i] === 0x2d)) i += 1;
    if (i >= end || !isDigit(b[i] as number)) return -1;
    while (i < end && isDigit(b[i] as number)) i += 1;
  }
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** The index of the first byte at or after i that is not JSON whitespace. */
function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i += 1;
  }
  return i;
}

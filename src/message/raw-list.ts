import type { JsonObject } from './jsonrpc.js';
import { SPAN, type MemberSpans } from './json-scan.js';
import { keyAt, lazyObject, lazyPartsOf, parseSpan } from './lazy-message.js';
import { rawByteLengthOf } from './raw-json.js';

/**
 * One object of a list read off the wire (a tool of `tools/list`), as its bytes: a member can be
 * read (`get('name')`) or replaced (`with('name', 'a__x')`) without parsing or serializing the rest
 * (a tool's schema stays the bytes its server sent, not even copied until the list is). What
 * `rawItemsOf` gives.
 */
export class RawItem {
  /** The item's JSON text as its server sent it (an object). */
  readonly #bytes: Buffer;
  /** Its members: key, and the value's span in `#bytes`. */
  readonly #members: readonly RawMember[];
  /** Members replaced since: key → the new value's JSON text. */
  readonly #replaced: ReadonlyMap<string, string>;

  constructor(bytes: Buffer, members: readonly RawMember[], replaced: ReadonlyMap<string, string> = new Map()) {
    this.#bytes = bytes;
    this.#members = members;
    this.#replaced = replaced;
  }

  /** The value of member `key` (the last one, when the key is there twice, as JSON.parse reads it). */
  get(key: string): unknown {
    const replaced = this.#replaced.get(key);
    if (replaced !== undefined) return JSON.parse(replaced) as unknown;
    for (let i = this.#members.length - 1; i >= 0; i--) {
      const member = this.#members[i] as RawMember;
      if (member.key === key) return valueAt(this.#bytes, member.start, member.end);
    }
    return undefined;
  }

  /**
   * The same item with member `key` set to `value`, as `{ ...item, [key]: value }` makes it: in the
   * place of its first occurrence (its later ones dropped), or last when it had none.
   */
  with(key: string, value: unknown): RawItem {
    return new RawItem(this.#bytes, this.#members, new Map([...this.#replaced, [key, JSON.stringify(value)]]));
  }

  /** Appends the item's JSON text to `out`: views of the bytes it was read from, and new values. */
  writeTo(out: Array<Buffer | string>): void {
    const bytes = this.#bytes;
    if (this.#replaced.size === 0) {
      out.push(bytes);
      return;
    }
    const pending = new Map(this.#replaced);
    /** How far the bytes are written (or skipped). */
    let at = 0;
    let previousEnd = 1; // after the `{`
    for (const member of this.#members) {
      const text = this.#replaced.get(member.key);
      if (text !== undefined) {
        if (pending.delete(member.key)) {
          // Its first occurrence: the bytes up to its value, then the new value.
          out.push(bytes.subarray(at, member.start), text);
        } else {
          // A later occurrence is dropped, with the comma before it.
          out.push(bytes.subarray(at, previousEnd));
        }
        at = member.end;
      }
      previousEnd = member.end;
    }
    if (pending.size === 0) {
      out.push(bytes.subarray(at));
      return;
    }
    // Members it did not have go last.
    const close = bytes.lastIndexOf(0x7d /* } */);
    out.push(bytes.subarray(at, close));
    let first = this.#members.length === 0;
    for (const [key, text] of pending) {
      out.push(`${first ? '' : ','}${JSON.stringify(key)}:${text}`);
      first = false;
    }
    out.push(bytes.subarray(close));
  }
}

interface RawMember {
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

/** A member's value: a string without escapes is read straight from the bytes. */
function valueAt(bytes: Buffer, start: number, end: number): unknown {
  if (bytes[start] === 0x22) {
    const escape = bytes.indexOf(0x5c, start);
    if (escape === -1 || escape >= end) return bytes.toString('utf8', start + 1, end - 1);
  }
  return parseSpan(bytes, start, end);
}

/**
 * The object items of the array member `key` of `object`, as {@link RawItem}s, when `object` was
 * read lazily off the wire (see `lazyMessage`) and is unchanged since; undefined otherwise (then
 * read `object[key]` as usual). Items that are not objects are left out, as a list reader skips
 * them.
 */
export function rawItemsOf(object: JsonObject, key: string): RawItem[] | undefined {
  const lazy = lazyPartsOf(object);
  if (lazy === undefined || rawByteLengthOf(object) === undefined) return undefined;
  const { bytes, spans, from, to } = lazy;
  // The last member of that name is the one JSON.parse keeps.
  let member = -1;
  for (let m = from; m < to; m += SPAN) if (spans[m] === 2 && keyAt(bytes, spans, m) === key) member = m;
  if (member < 0 || bytes[spans[member + 4] as number] !== 0x5b /* [ */) return undefined;
  const items: RawItem[] = [];
  let m = member + SPAN;
  while (m < to && (spans[m] as number) > 2) {
    if (spans[m] !== 3) {
      m += SPAN;
      continue;
    }
    const start = spans[m + 4] as number;
    const end = spans[m + 5] as number;
    const members: RawMember[] = [];
    m += SPAN;
    for (; m < to && (spans[m] as number) > 3; m += SPAN) {
      if (spans[m] === 4) members.push({ key: keyAt(bytes, spans, m), start: (spans[m + 4] as number) - start, end: (spans[m + 5] as number) - start });
    }
    items.push(new RawItem(bytes.subarray(start, end), members));
  }
  return items;
}

/**
 * A result object made of members given as JSON text, e.g. a merged list `{ tools: [<items>],
 * nextCursor }`: its bytes are built once (one allocation, every piece copied once), and it is a
 * lazy object over them (see `lazyObject`): it goes out as those bytes, and a middleware that reads
 * a member gets it parsed. A member's text is a string or bytes, or an array's elements (raw items,
 * or values to serialize). The texts must be valid JSON (items read off the wire and checked, or
 * made by JSON.stringify): they are not checked again.
 */
export function objectOfTexts(members: ReadonlyArray<readonly [key: string, text: string | ReadonlyArray<RawItem | JsonObject>]>): JsonObject {
  const out: Array<Buffer | string> = ['{'];
  /** Per member: the index in `out` where its key, its value, and what follows it start. */
  const marks: Array<[key: string, keyAt: number, valueAt: number, endAt: number]> = [];
  members.forEach(([key, text], index) => {
    const keyAt = out.length;
    out.push(`${index === 0 ? '' : ','}${JSON.stringify(key)}:`);
    const valueAt = out.length;
    if (typeof text === 'string') {
      out.push(text);
    } else {
      out.push('[');
      text.forEach((item, i) => {
        if (i > 0) out.push(',');
        if (item instanceof RawItem) item.writeTo(out);
        else out.push(JSON.stringify(item));
      });
      out.push(']');
    }
    marks.push([key, keyAt, valueAt, out.length]);
  });
  out.push('}');
  // Offsets of every piece, then one buffer.
  const offsets = new Array<number>(out.length + 1);
  let length = 0;
  for (let i = 0; i < out.length; i++) {
    offsets[i] = length;
    const piece = out[i] as Buffer | string;
    length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  }
  offsets[out.length] = length;
  const bytes = Buffer.allocUnsafe(length);
  for (let i = 0; i < out.length; i++) {
    const piece = out[i] as Buffer | string;
    if (typeof piece === 'string') bytes.write(piece, offsets[i] as number);
    else piece.copy(bytes, offsets[i] as number);
  }
  const spans: MemberSpans = [];
  for (const [key, keyAt, valueAt, endAt] of marks) {
    const quoted = JSON.stringify(key);
    // The key's bytes inside its quotes: after the comma (if any) and the opening quote.
    const keyStart = (offsets[keyAt] as number) + (keyAt === 1 ? 1 : 2);
    spans.push(2, keyStart, keyStart + Buffer.byteLength(quoted) - 2, quoted.includes('\\') ? 1 : 0, offsets[valueAt] as number, offsets[endAt] as number);
  }
  return lazyObject(bytes, spans, 0, spans.length, 0, length);
}

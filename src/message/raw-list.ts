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
  /** Members replaced since: key and the new value's JSON text. */
  readonly #replaced: ReadonlyArray<readonly [key: string, text: string]>;
  #byteLength = -1;
  #singleKnown = false;
  #singleCut: Single | undefined;

  constructor(bytes: Buffer, members: readonly RawMember[], replaced: ReadonlyArray<readonly [key: string, text: string]> = []) {
    this.#bytes = bytes;
    this.#members = members;
    this.#replaced = replaced;
  }

  /** The value of member `key` (the last one, when the key is there twice, as JSON.parse reads it). */
  get(key: string): unknown {
    const replaced = this.#replaced.find(([k]) => k === key);
    if (replaced !== undefined) return JSON.parse(replaced[1]) as unknown;
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
    const text = JSON.stringify(value);
    const replaced = this.#replaced.filter(([k]) => k !== key);
    replaced.push([key, text]);
    return new RawItem(this.#bytes, this.#members, replaced);
  }

  /**
   * The common case, one member replaced that the item has once (a tool renamed): its value's span
   * in the bytes and the new text, so that copying it is three copies; undefined otherwise.
   */
  #single(): Single | undefined {
    if (this.#singleKnown) return this.#singleCut;
    this.#singleKnown = true;
    this.#singleCut = this.#findSingle();
    return this.#singleCut;
  }

  #findSingle(): Single | undefined {
    if (this.#replaced.length !== 1) return undefined;
    const [key, text] = this.#replaced[0] as readonly [string, string];
    let found: RawMember | undefined;
    for (const member of this.#members) {
      if (member.key !== key) continue;
      if (found !== undefined) return undefined;
      found = member;
    }
    return found === undefined ? undefined : { start: found.start, end: found.end, text };
  }

  /** The size of the item's JSON text in bytes. */
  get byteLength(): number {
    if (this.#byteLength < 0) {
      const single = this.#single();
      if (single !== undefined) {
        this.#byteLength = this.#bytes.length - (single.end - single.start) + Buffer.byteLength(single.text);
        return this.#byteLength;
      }
      let length = 0;
      this.#write((piece, start, end) => {
        length += typeof piece === 'string' ? Buffer.byteLength(piece) : end - start;
      });
      this.#byteLength = length;
    }
    return this.#byteLength;
  }

  /** Writes the item's JSON text into `target` at `at`; returns where it ends. */
  copyTo(target: Buffer, at: number): number {
    const bytes = this.#bytes;
    if (this.#replaced.length === 0) return at + bytes.copy(target, at);
    const single = this.#single();
    if (single !== undefined) {
      let offset = at + bytes.copy(target, at, 0, single.start);
      offset += target.write(single.text, offset);
      return offset + bytes.copy(target, offset, single.end);
    }
    let offset = at;
    this.#write((piece, start, end) => {
      offset += typeof piece === 'string' ? target.write(piece, offset) : piece.copy(target, offset, start, end);
    });
    return offset;
  }

  /**
   * Notes the item written at `at` (by {@link copyTo}) in `spans`, as `scanJson` notes a list's
   * items: a depth-3 record for it, a depth-4 one per member. False when its layout is not known
   * without scanning it (several members replaced): then nothing is noted.
   */
  recordInto(spans: MemberSpans, at: number): boolean {
    const single = this.#single();
    if (this.#replaced.length > 0 && single === undefined) return false;
    spans.push(3, -1, -1, 0, at, at + this.byteLength);
    // After the replaced value, everything moves by the difference in length.
    const shift = single === undefined ? 0 : Buffer.byteLength(single.text) - (single.end - single.start);
    for (const member of this.#members) {
      const moved = single !== undefined && member.start > single.start ? shift : 0;
      const end = single !== undefined && member.start === single.start ? member.end + shift : member.end + moved;
      spans.push(4, at + member.keyStart + moved, at + member.keyEnd + moved, member.escaped, at + member.start + moved, at + end);
    }
    return true;
  }

  /** The item's text, piece by piece: ranges of the bytes it was read from, and new values. */
  #write(emit: (piece: Buffer | string, start: number, end: number) => void): void {
    const bytes = this.#bytes;
    if (this.#replaced.length === 0) {
      emit(bytes, 0, bytes.length);
      return;
    }
    const pending = new Map(this.#replaced);
    /** How far the bytes are written (or skipped). */
    let at = 0;
    let previousEnd = 1; // after the `{`
    for (const member of this.#members) {
      const text = this.#replaced.find(([k]) => k === member.key)?.[1];
      if (text !== undefined) {
        if (pending.delete(member.key)) {
          // Its first occurrence: the bytes up to its value, then the new value.
          emit(bytes, at, member.start);
          emit(text, 0, 0);
        } else {
          // A later occurrence is dropped, with the comma before it.
          emit(bytes, at, previousEnd);
        }
        at = member.end;
      }
      previousEnd = member.end;
    }
    if (pending.size === 0) {
      emit(bytes, at, bytes.length);
      return;
    }
    // Members it did not have go last.
    const close = bytes.lastIndexOf(0x7d /* } */);
    emit(bytes, at, close);
    let first = this.#members.length === 0;
    for (const [key, text] of pending) {
      emit(`${first ? '' : ','}${JSON.stringify(key)}:${text}`, 0, 0);
      first = false;
    }
    emit(bytes, close, bytes.length);
  }
}

/** One replaced member's value span, and its new text. */
interface Single {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

interface RawMember {
  readonly key: string;
  /** The key's bytes inside its quotes, and whether it has an escape. */
  readonly keyStart: number;
  readonly keyEnd: number;
  readonly escaped: number;
  /** The value's bytes. */
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
  // Without the deeper records (an object built here), its items are not known as bytes.
  if (lazy === undefined || !lazy.deep || rawByteLengthOf(object) === undefined) return undefined;
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
      if (spans[m] === 4) {
        members.push({
          key: keyAt(bytes, spans, m),
          keyStart: (spans[m + 1] as number) - start,
          keyEnd: (spans[m + 2] as number) - start,
          escaped: spans[m + 3] as number,
          start: (spans[m + 4] as number) - start,
          end: (spans[m + 5] as number) - start,
        });
      }
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
export function objectOfTexts(members: ReadonlyArray<readonly [key: string, text: string | Buffer | ReadonlyArray<RawItem | JsonObject>]>): JsonObject {
  // What each member's value is made of: a text, or items (those parsed serialized once, here).
  const values = members.map(([key, text]) => {
    const whole = typeof text === 'string' || Buffer.isBuffer(text);
    return {
      head: JSON.stringify(key) + ':',
      text: whole ? text : undefined,
      items: whole ? [] : text.map((item) => (item instanceof RawItem ? item : JSON.stringify(item))),
    };
  });
  let length = 2 + Math.max(0, members.length - 1); // the braces and the commas between members
  for (const value of values) {
    length += Buffer.byteLength(value.head);
    if (value.text !== undefined) {
      length += typeof value.text === 'string' ? Buffer.byteLength(value.text) : value.text.length;
    } else {
      length += 2 + Math.max(0, value.items.length - 1);
      for (const item of value.items) length += typeof item === 'string' ? Buffer.byteLength(item) : item.byteLength;
    }
  }
  const bytes = Buffer.allocUnsafe(length);
  const spans: MemberSpans = [];
  /** Whether every item's records are noted (see `rawItemsOf`): not when one was serialized here. */
  let deep = true;
  let at = bytes.write('{', 0);
  values.forEach((value, index) => {
    if (index > 0) at += bytes.write(',', at);
    const keyStart = at + 1;
    at += bytes.write(value.head, at);
    const valueStart = at;
    // The key's bytes inside its quotes: from after the opening quote to before `":`; the value's
    // end once it is written.
    const record = spans.length;
    spans.push(2, keyStart, valueStart - 2, value.head.includes('\\') ? 1 : 0, valueStart, -1);
    if (value.text !== undefined) {
      at += typeof value.text === 'string' ? bytes.write(value.text, at) : value.text.copy(bytes, at);
    } else {
      at += bytes.write('[', at);
      value.items.forEach((item, i) => {
        if (i > 0) at += bytes.write(',', at);
        if (typeof item === 'string') {
          deep = false;
          at += bytes.write(item, at);
        } else {
          if (deep && !item.recordInto(spans, at)) deep = false;
          at = item.copyTo(bytes, at);
        }
      });
      at += bytes.write(']', at);
    }
    spans[record + 5] = at;
  });
  at += bytes.write('}', at);
  if (at !== length) throw new Error(`objectOfTexts: wrote ${at} bytes of ${length}`);
  return lazyObject(bytes, spans, 0, spans.length, 0, length, deep);
}

/**
 * `object` (read lazily off the wire, unchanged) with its array member `key` replaced by `items`,
 * the other members kept as their bytes: `{ ...object, [key]: items }` in meaning, built as bytes
 * (see {@link objectOfTexts}). Undefined when `object` is not such an object.
 */
export function withRawItems(object: JsonObject, key: string, items: ReadonlyArray<RawItem | JsonObject>): JsonObject | undefined {
  const lazy = lazyPartsOf(object);
  if (lazy === undefined || rawByteLengthOf(object) === undefined) return undefined;
  const { bytes, spans, from, to } = lazy;
  // Each key once, where JSON.parse puts it (its first place), with its last value.
  const values = new Map<string, Buffer | ReadonlyArray<RawItem | JsonObject>>();
  for (let m = from; m < to; m += SPAN) {
    if (spans[m] !== 2) continue;
    const name = keyAt(bytes, spans, m);
    values.set(name, name === key ? items : bytes.subarray(spans[m + 4] as number, spans[m + 5] as number));
  }
  if (!values.has(key)) values.set(key, items);
  return objectOfTexts([...values]);
}

/**
 * `object` (read lazily off the wire, unchanged) with `changes` made: `{ ...object, ...changes }`
 * in meaning, a member whose change is `undefined` left out; its other members kept as their
 * bytes (see {@link objectOfTexts}), so that a large result or request stays unparsed. Undefined
 * when `object` is not such an object (then the caller copies it as usual).
 */
export function withMembers(object: JsonObject, changes: Readonly<Record<string, unknown>>): JsonObject | undefined {
  const lazy = lazyPartsOf(object);
  if (lazy === undefined || rawByteLengthOf(object) === undefined) return undefined;
  const { bytes, spans, from, to } = lazy;
  const values = new Map<string, string | Buffer>();
  for (let m = from; m < to; m += SPAN) {
    if (spans[m] !== 2) continue;
    const name = keyAt(bytes, spans, m);
    // Each key once, where JSON.parse puts it (its first place), with its last value, or its new one.
    values.set(name, bytes.subarray(spans[m + 4] as number, spans[m + 5] as number));
  }
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) values.delete(name);
    else values.set(name, JSON.stringify(value));
  }
  return objectOfTexts([...values]);
}

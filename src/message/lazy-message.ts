import type { JsonObject } from './jsonrpc.js';
import { type MemberSpans, scanJson, SPAN } from './json-scan.js';
import { forgetRaw, rememberAccessor, rememberRawBytes } from './raw-json.js';

/**
 * A large message read without parsing what nobody reads: the line is checked to be one JSON
 * value ({@link scanJson}, no objects built), its envelope (`jsonrpc`, `id`, `method`, `error`) is
 * parsed, and its `params` or `result` object becomes a {@link lazyObject}: each of its members is
 * parsed the first time it is read. A result no middleware reads goes out as the bytes it came in
 * as, never parsed at all; one that is read is parsed one member at a time (`params._meta` without
 * `params.arguments`).
 *
 * `bytes` is one line of UTF-8 (checked by the caller with `isUtf8`), without its newline. Its
 * records are kept as long as the message lives (six numbers per member, four levels down: ~100 KB
 * for a 500-tool list), beside the bytes.
 * Returns undefined when the line is not one JSON object: the caller parses it as usual, which
 * refuses it exactly as before (a batch, a lone value, malformed JSON).
 */
export function lazyMessage(bytes: Buffer): JsonObject | undefined {
  const spans: MemberSpans = [];
  // Four levels noted: a list's items and their members (`result.tools[i].name`), for `rawItemsOf`.
  if (!scanJson(bytes, 0, bytes.length, spans, 4) || firstByte(bytes) !== 0x7b) return undefined;
  // The message keeps its bytes as long as it lives (a cache may keep it for long): a line much
  // smaller than the chunk it was read in gets a copy of its own, not a view holding the chunk.
  const line = bytes.length * 2 < bytes.buffer.byteLength ? Buffer.from(bytes) : bytes;
  const message: JsonObject = {};
  for (let m = 0; m < spans.length; m += SPAN) {
    if (spans[m] !== 1) continue;
    const key = keyAt(line, spans, m);
    const start = spans[m + 4] as number;
    const end = spans[m + 5] as number;
    // Its own members (and theirs) are the deeper records that follow it.
    let to = m + SPAN;
    while (to < spans.length && (spans[to] as number) >= 2) to += SPAN;
    const value = (key === 'result' || key === 'params') && line[start] === 0x7b
      ? lazyObject(line, spans, m + SPAN, to, start, end)
      : parseSpan(line, start, end);
    setMember(message, key, value);
  }
  return message;
}

/** Where a lazy object's members are: its bytes and its records (those of depth 2 are its members). */
export interface LazyParts {
  readonly bytes: Buffer;
  readonly spans: MemberSpans;
  readonly from: number;
  readonly to: number;
  /** Whether the records go deeper than its members (a list's items and theirs, see `rawItemsOf`). */
  readonly deep: boolean;
}

const parts = new WeakMap<object, LazyParts>();

/** The bytes and member records of an object made by {@link lazyObject}. */
export function lazyPartsOf(object: object): LazyParts | undefined {
  return parts.get(object);
}

/**
 * An object whose members are parsed when first read: `bytes[start, end)` is its JSON text, and
 * the depth-2 records among `spans[from, to)` are where its members are (deeper ones are theirs;
 * `deep`: whether they are there, as `lazyMessage` notes them). It behaves as the object
 * `JSON.parse` would make (the same keys in the same order, the last of duplicate keys winning,
 * `__proto__` an own member), but its members are accessors. Its bytes are remembered (see
 * `rememberRawBytes`): as long as it is not changed, it goes out as them. Assigning one of its
 * members forgets them; so does adding, deleting or redefining one (seen by the encoder). Changing a value in place after reading it is not seen: values on the forwarding path are
 * treated as immutable (see raw-json.ts).
 */
export function lazyObject(bytes: Buffer, spans: MemberSpans, from: number, to: number, start: number, end: number, deep = true): JsonObject {
  const object: JsonObject = {};
  let keys = 0;
  for (let m = from; m < to; m += SPAN) {
    if (spans[m] !== 2) continue;
    const key = keyAt(bytes, spans, m);
    if (!Object.prototype.hasOwnProperty.call(object, key)) keys += 1;
    defineLazy(object, key, bytes, spans[m + 4] as number, spans[m + 5] as number);
  }
  rememberRawBytes(object, bytes.subarray(start, end), keys);
  parts.set(object, { bytes, spans, from, to, deep });
  return object;
}

function defineLazy(object: JsonObject, key: string, bytes: Buffer, start: number, end: number): void {
  let value: unknown;
  let read = false;
  // An accessor for good, not only until read: a middleware that assigns a member after reading
  // it (`result.tools = result.tools.filter(…)`) is seen, and the bytes are not sent for it. One
  // that deletes and sets it again, or redefines it, leaves another in its place: seen too.
  const get = (): unknown => {
    if (!read) {
      value = parseSpan(bytes, start, end);
      read = true;
    }
    return value;
  };
  rememberAccessor(get);
  Object.defineProperty(object, key, {
    enumerable: true,
    configurable: true,
    get,
    set(assigned: unknown): void {
      if (!Object.isExtensible(object)) throw new TypeError(`Cannot assign to read only property '${key}' of object`);
      value = assigned;
      read = true;
      forgetRaw(object);
    },
  });
}

/** Sets a member as JSON.parse does: `__proto__` becomes an own member, not the prototype. */
function setMember(object: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

/** The key of the member record at `m`. */
export function keyAt(bytes: Buffer, spans: MemberSpans, m: number): string {
  const start = spans[m + 1] as number;
  const end = spans[m + 2] as number;
  // An escaped key is decoded by JSON.parse, quotes included.
  return spans[m + 3] === 1 ? (JSON.parse(bytes.toString('utf8', start - 1, end + 1)) as string) : bytes.toString('utf8', start, end);
}

/** The value of the JSON text `bytes[start, end)` (checked already). */
export function parseSpan(bytes: Buffer, start: number, end: number): unknown {
  return JSON.parse(bytes.toString('utf8', start, end)) as unknown;
}

function firstByte(line: Buffer): number | undefined {
  for (const byte of line) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a) return byte;
  }
  return undefined;
}

import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import type { JsonObject, JsonRpcMessage } from './jsonrpc.js';

/**
 * The JSON text a large `params` or `result` object was parsed from, kept beside the object so it
 * can be forwarded without serializing it again (a 1 MiB result costs a parse either way, but not
 * a second stringify). Objects are treated as immutable on the forwarding path: middleware return
 * new objects instead of mutating, so an object that reaches the other side unchanged (the same
 * reference) still has the same text.
 */
const texts = new WeakMap<object, Raw>();

/**
 * A remembered member: its text and/or its bytes (a view, no copy), at least one of them, and how
 * many keys it had (a member added or deleted since makes the text stale).
 */
interface Raw {
  text: string | undefined;
  readonly bytes: Buffer | undefined;
  readonly keys: number;
  /** Remembered for a lazy object: each of its members must still be one of its accessors. */
  readonly lazy: boolean;
}

/** The accessors of lazy objects' members (see `lazyObject`): a member that is not one was replaced. */
const accessors = new WeakSet<() => unknown>();

/** Marks `get` as the accessor of a lazy object's member, the one its remembered bytes stand for. */
export function rememberAccessor(get: () => unknown): void {
  accessors.add(get);
}

/**
 * A message whose remembered member goes out as the very bytes it came in as: `head`, `bytes`,
 * `tail` written one after the other (no decoding, no encoding, no copy of the member in
 * JavaScript).
 */
export interface SplicedMessage {
  readonly head: string;
  readonly bytes: Buffer;
  readonly tail: string;
}

/** Lines shorter than this are not worth remembering: stringifying them is cheap. */
export const RAW_THRESHOLD_BYTES = 2048;

export function rawTextOf(value: object): string | undefined {
  const raw = rawOf(value);
  return raw === undefined ? undefined : textOf(raw);
}

/** The size in bytes of the remembered JSON text of `value`, if it has one. */
export function rawByteLengthOf(value: object): number | undefined {
  const raw = rawOf(value);
  if (raw === undefined) return undefined;
  return raw.bytes === undefined ? Buffer.byteLength(textOf(raw)) : raw.bytes.length;
}

/**
 * Remembers that `value` is exactly the JSON text `bytes` (UTF-8, checked), with `keys` keys: as
 * long as it is unchanged, it is sent as them. See `lazyObject`.
 */
export function rememberRawBytes(value: object, bytes: Buffer, keys: number): void {
  texts.set(value, { text: undefined, bytes, keys, lazy: true });
}

/** `value` was changed: its remembered text, if any, is not its text any more. */
export function forgetRaw(value: object): void {
  texts.delete(value);
}

/**
 * The remembered text of `value`, unless a member was added or deleted since, or (a lazy object's)
 * replaced by one that is not its accessor (deleted and set again, or redefined).
 */
function rawOf(value: unknown): Raw | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const raw = texts.get(value);
  if (raw === undefined) return undefined;
  const keys = Object.keys(value);
  if (keys.length === raw.keys && (!raw.lazy || keys.every((key) => isAccessor(value, key)))) return raw;
  texts.delete(value);
  return undefined;
}

function isAccessor(value: object, key: string): boolean {
  const get = Object.getOwnPropertyDescriptor(value, key)?.get;
  return get !== undefined && accessors.has(get);
}

function textOf(raw: Raw): string {
  raw.text ??= (raw.bytes as Buffer).toString('utf8');
  return raw.text;
}

/**
 * Remembers the text of the `params` or `result` member of a compact JSON-RPC message, given the
 * line it was parsed from, and its bytes when given the line's UTF-8 bytes (exactly those `line`
 * was decoded from). Only the common compact layouts are recognized (the member first or last, no
 * whitespace between members); anything else is simply not remembered.
 */
export function rememberRawMember(message: JsonObject, line: string, lineBytes?: Buffer): void {
  const key = 'result' in message ? 'result' : 'params' in message ? 'params' : undefined;
  if (key === undefined) return;
  const value = message[key];
  if (typeof value !== 'object' || value === null) return;
  const others: string[] = [];
  for (const name of Object.keys(message)) {
    if (name === key) continue;
    const member = message[name];
    if (typeof member !== 'string' && typeof member !== 'number') return;
    others.push(`${JSON.stringify(name)}:${JSON.stringify(member)}`);
  }
  const head = `{"${key}":`;
  const found = findLast(line, key, others) ?? (line.startsWith(head) ? findFirst(line, head, others) : undefined);
  if (found === undefined) return;
  const [before, after] = found;
  const text = line.slice(before.length, line.length - after.length);
  // A member written twice (`"result":{…},"result":{…}`: JSON.parse keeps the last) or another
  // member after it would be inside `text`, which must be the member's value and nothing else.
  if (!isOneValue(text, Object.keys(message))) return;
  // The envelope around the member is ASCII but for string ids: count its bytes, not its chars.
  let bytes = lineBytes?.subarray(Buffer.byteLength(before), lineBytes.length - Buffer.byteLength(after));
  // A view keeps its whole backing memory alive as long as the object lives (a cache may keep it
  // for long): a member much smaller than the chunk it was read in gets a copy of its own.
  if (bytes !== undefined && bytes.length * 2 < bytes.buffer.byteLength) bytes = Buffer.from(bytes);
  texts.set(value, { text, bytes, keys: Object.keys(value).length, lazy: false });
}

/** The members of a JSON-RPC message. */
const MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);
/** Where another member could start: after a comma, its name (any of them) written plainly. */
const MEMBER_AFTER_COMMA = /,\s*"(?:jsonrpc|id|method|params|result|error)"/u;

/**
 * Whether `text`, a run of members from a line that parsed, is one JSON value. One scan in the
 * usual case: a second member inside it would follow a comma and be named plainly (these names
 * have no other spelling but with a `\u` escape); only when one could be there (or the message has
 * members of other names) is it parsed again.
 */
function isOneValue(text: string, keys: readonly string[]): boolean {
  if (keys.every((key) => MEMBERS.has(key)) && !text.includes('\\u') && !MEMBER_AFTER_COMMA.test(text)) return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The text before and after the member when it comes last. */
function findLast(line: string, key: string, others: string[]): [string, string] | undefined {
  if (!line.endsWith('}')) return undefined;
  for (const order of permutations(others)) {
    const prefix = `{${order.join(',')},"${key}":`;
    if (line.startsWith(prefix)) return [prefix, '}'];
  }
  return undefined;
}

/** The text before and after the member when it comes first. */
function findFirst(line: string, head: string, others: string[]): [string, string] | undefined {
  for (const order of permutations(others)) {
    const suffix = `,${order.join(',')}}`;
    if (line.endsWith(suffix)) return [head, suffix];
  }
  return undefined;
}

function permutations(items: string[]): string[][] {
  if (items.length <= 1) return [items];
  const out: string[][] = [];
  items.forEach((item, i) => {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) out.push([item, ...rest]);
  });
  return out;
}

/** One message (or batch) as a line of JSON, reusing remembered text where it can. */
export function serializeMessage(message: JsonRpcMessage | JsonRpcMessage[]): string {
  if (Array.isArray(message)) return stringifyBatch(message);
  const raw = rawMemberOf(message);
  return raw === undefined ? stringify(message) : headOf(message) + textOf(raw) + '}';
}

/**
 * Like {@link serializeMessage}, but a message carrying a member remembered with its bytes (see
 * {@link rememberRawMember}) comes back as `head` + those bytes + `tail`, for writers that can
 * send buffers as they are. One lookup either way: this is on the path of every message.
 */
export function encodeMessage(message: JsonRpcMessage | JsonRpcMessage[]): string | SplicedMessage {
  if (Array.isArray(message)) return stringifyBatch(message);
  const raw = rawMemberOf(message);
  if (raw === undefined) return stringify(message);
  if (raw.bytes === undefined) return headOf(message) + textOf(raw) + '}';
  return { head: headOf(message), bytes: raw.bytes, tail: '}' };
}

/**
 * JSON.parse takes any depth, but JSON.stringify recurses and overflows the stack a few thousand
 * levels down. A response that deep is replaced by an error response for the same id, so the
 * request is still answered; a request or notification is refused with -32600 (the sender's
 * `send` throws), so nothing crashes the process and nothing half-written reaches the wire.
 */
function stringify(message: JsonRpcMessage): string {
  try {
    return JSON.stringify(message);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    if ('method' in message) throw new McpError(ErrorCode.InvalidRequest, `Invalid Request: ${message.method} is nested too deeply to forward`);
    return JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InternalError, message: 'Internal error: the answer is nested too deeply to forward' } });
  }
}

function stringifyBatch(messages: JsonRpcMessage[]): string {
  try {
    return JSON.stringify(messages);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return `[${messages.map(stringify).join(',')}]`;
  }
}

function rawMemberOf(message: JsonRpcMessage): Raw | undefined {
  if ('result' in message) return rawOf(message.result);
  if ('method' in message && message.params !== undefined) return rawOf(message.params);
  return undefined;
}

/** The message's text up to its remembered member (which is last, then `}`). */
function headOf(message: JsonRpcMessage): string {
  if ('method' in message) {
    const id = 'id' in message ? `"id":${JSON.stringify(message.id)},` : '';
    return `{"jsonrpc":"2.0",${id}"method":${JSON.stringify(message.method)},"params":`;
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":`;
}

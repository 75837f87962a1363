import type { JsonObject, JsonRpcMessage } from './jsonrpc.js';

/**
 * The JSON text a large `params` or `result` object was parsed from, kept beside the object so it
 * can be forwarded without serializing it again (a 1 MiB result costs a parse either way, but not
 * a second stringify). Objects are treated as immutable on the forwarding path: middleware return
 * new objects instead of mutating, so an object that reaches the other side unchanged (the same
 * reference) still has the same text.
 */
const texts = new WeakMap<object, string>();

/** Lines shorter than this are not worth remembering: stringifying them is cheap. */
export const RAW_THRESHOLD_BYTES = 2048;

export function rawTextOf(value: object): string | undefined {
  return texts.get(value);
}

/**
 * Remembers the text of the `params` or `result` member of a compact JSON-RPC message, given the
 * line it was parsed from. Only the common compact layouts are recognized (the member first or
 * last, no whitespace between members); anything else is simply not remembered.
 */
export function rememberRawMember(message: JsonObject, line: string): void {
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
  const text = extractLast(line, key, others) ?? (line.startsWith(head) ? extractFirst(line, head, others) : undefined);
  if (text !== undefined) texts.set(value, text);
}

function extractLast(line: string, key: string, others: string[]): string | undefined {
  if (!line.endsWith('}')) return undefined;
  for (const order of permutations(others)) {
    const prefix = `{${order.join(',')},"${key}":`;
    if (line.startsWith(prefix)) return line.slice(prefix.length, -1);
  }
  return undefined;
}

function extractFirst(line: string, head: string, others: string[]): string | undefined {
  for (const order of permutations(others)) {
    const suffix = `,${order.join(',')}}`;
    if (line.endsWith(suffix)) return line.slice(head.length, line.length - suffix.length);
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
  if (Array.isArray(message)) return JSON.stringify(message);
  if ('result' in message) {
    const raw = texts.get(message.result);
    if (raw !== undefined) return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${raw}}`;
  } else if ('method' in message && message.params !== undefined) {
    const raw = texts.get(message.params);
    if (raw !== undefined) {
      const id = 'id' in message ? `"id":${JSON.stringify(message.id)},` : '';
      return `{"jsonrpc":"2.0",${id}"method":${JSON.stringify(message.method)},"params":${raw}}`;
    }
  }
  return JSON.stringify(message);
}

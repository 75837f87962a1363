import fc from 'fast-check';
import { ErrorCode } from '../../src/errors/error-code.js';
import { McpError } from '../../src/errors/mcp-error.js';
import type { JsonObject, JsonRpcMessage } from '../../src/message/jsonrpc.js';
import { LineReader } from '../../src/message/line-reader.js';
import { classifyMessage } from '../../src/message/parse-message.js';
import { encodeMessage, rawTextOf, rememberRawMember, serializeMessage } from '../../src/message/raw-json.js';
import { defineFuzzTarget } from './fuzz-target.js';
import { assertPrototypeClean, jsonValue, messageText, mutatedText, sameJson, validMessage } from './grammar.js';

/** What one JSON value is, by the JSON-RPC 2.0 spec as MCP narrows it (params and results are objects). */
type Verdict = { readonly kind: 'request' | 'notification' | 'response' } | { readonly kind: 'invalid'; readonly code: number; readonly id: string | number | null };

const has = (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is string | number => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

/** The reference classifier, written from the spec, over a value JSON.parse made. */
function reference(value: unknown): Verdict {
  if (!isObject(value)) return { kind: 'invalid', code: ErrorCode.InvalidRequest, id: null };
  const id = isId(value.id) ? value.id : null;
  const refuse = (readable: boolean): Verdict => ({ kind: 'invalid', code: ErrorCode.InvalidRequest, id: readable ? id : null });
  if (value.jsonrpc !== '2.0') return refuse(true);
  if (has(value, 'method')) {
    if (typeof value.method !== 'string' || value.method.length === 0) return refuse(true);
    if (has(value, 'params') && !isObject(value.params)) return refuse(true);
    if (!has(value, 'id')) return { kind: 'notification' };
    return isId(value.id) ? { kind: 'request' } : refuse(false);
  }
  const result = has(value, 'result');
  const error = has(value, 'error');
  if (result && error) return refuse(true);
  if (result) {
    if (!isId(value.id)) return refuse(false);
    return isObject(value.result) ? { kind: 'response' } : refuse(true);
  }
  if (error) {
    const e = value.error;
    if (!isObject(e) || typeof e.code !== 'number' || !Number.isInteger(e.code) || typeof e.message !== 'string') return refuse(true);
    return isId(value.id) || value.id === null ? { kind: 'response' } : refuse(false);
  }
  return refuse(true);
}

/** A line a peer sends: a message, a batch, something mutated, or a large one (so its member is remembered raw). */
const lineText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: messageText },
  { weight: 1, arbitrary: fc.array(messageText, { maxLength: 3 }).map((texts) => `[${texts.join(',')}]`) },
  { weight: 1, arbitrary: fc.array(messageText, { maxLength: 3 }).chain((texts) => mutatedText(`[${texts.join(',')}]`)) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(validMessage, fc.nat({ max: 3000 }), fc.constantFrom('é', 'x', '😀', '\\"', '\\u00e9'), fc.constantFrom('first', 'last', 'middle', 'duplicate', 'trailing', 'spaced'))
      .chain(([message, padding, unit, layout]) => fc.constant(largeLine(message, padding, unit, layout))),
  },
  { weight: 1, arbitrary: jsonValue.map((v) => JSON.stringify(v) ?? '') },
);

/** A compact message over the raw threshold, its member in one layout or another. */
function largeLine(message: Record<string, unknown>, padding: number, unit: string, layout: string): string {
  const key = 'result' in message ? 'result' : 'params';
  const member = JSON.stringify({ ...(isObject(message[key]) ? message[key] : {}), pad: unit.repeat(padding) });
  const others = Object.entries(message).filter(([k]) => k !== key).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  switch (layout) {
    case 'first':
      return `{"${key}":${member}${others.map((o) => ',' + o).join('')}}`;
    case 'middle':
      return `{${others.slice(0, 1).join(',')}${others.length > 0 ? ',' : ''}"${key}":${member}${others.slice(1).map((o) => ',' + o).join('')}}`;
    case 'duplicate':
      // The member written twice: JSON.parse keeps the last one; nothing may forward the first.
      return `{${others.map((o) => o + ',').join('')}"${key}":{"hidden":"${unit.repeat(padding)}"},"${key}":${member}}`;
    case 'trailing':
      // Another member after it, as written by hand: the member must not take it along.
      return `{${others.map((o) => o + ',').join('')}"${key}":${member} ,\n ${others.at(-1) ?? '"id":1'}}`;
    case 'spaced':
      return `{ ${others.map((o) => o + ', ').join('')}"${key}" : ${member} }`;
    default:
      return `{${others.map((o) => o + ',').join('')}"${key}":${member}}`;
  }
}

function check(written: string): void {
  if (written.trim() === '' || written.includes('\n')) return; // not one line
  const bytes = Buffer.from(written + '\n');
  // What the peer's bytes say (a lone surrogate was written as U+FFFD).
  const text = bytes.toString('utf8', 0, bytes.length - 1);
  const values: Array<{ value: unknown; text: string; bytes: Buffer }> = [];
  const errors: McpError[] = [];
  new LineReader({ onValue: (value, t, b) => values.push({ value, text: t ?? b.toString('utf8'), bytes: b }), onMalformed: (error) => errors.push(error) }).push(bytes);

  let parsed: unknown;
  let parses = true;
  try {
    parsed = JSON.parse(text);
  } catch {
    parses = false;
  }
  if (!parses) {
    // Malformed JSON: -32700, answered with id null (nothing could be read).
    if (values.length !== 0 || errors.length !== 1 || errors[0]?.code !== ErrorCode.ParseError) throw new Error(`malformed JSON not refused with -32700: ${text.slice(0, 100)}`);
    return;
  }
  const got = values[0];
  if (errors.length !== 0 || values.length !== 1 || got === undefined) throw new Error(`valid JSON refused: ${errors[0]?.message}`);
  if (!sameJson(got.value, parsed)) throw new Error('the reader parsed a different value than JSON.parse');
  lazily(bytes, got.value);

  // Classification, of the value or of each member of a batch (an empty batch is the peer's -32600).
  const members = Array.isArray(got.value) ? got.value : [got.value];
  for (const member of members) {
    const want = reference(member);
    const classified = classifyMessage(member);
    if (classified.kind !== want.kind) throw new Error(`classified as ${classified.kind}, the spec says ${want.kind}: ${JSON.stringify(member)?.slice(0, 200)}`);
    if (classified.kind === 'invalid' && want.kind === 'invalid') {
      if (classified.error.code !== want.code || classified.id !== want.id) throw new Error(`refused with ${classified.error.code} id ${String(classified.id)}, the spec says ${want.code} id ${String(want.id)}`);
    } else if (classified.kind !== 'invalid' && classified.message !== member) {
      throw new Error('the classified message is not the value read');
    }
    if (classified.kind === 'invalid') continue;
    forwarded(classified.message, member === got.value ? got : undefined);
  }
  assertPrototypeClean();
}

/**
 * The same line read lazily (as the stdio transport reads large lines: checked without being built,
 * its member parsed when read): the same value, keys in the same order, and forwarded as it would
 * be eagerly, whether or not its member was read first.
 */
function lazily(bytes: Buffer, eager: unknown): void {
  const read = (): unknown => {
    const values: unknown[] = [];
    const errors: McpError[] = [];
    new LineReader({ onValue: (value) => values.push(value), onMalformed: (error) => errors.push(error) }, undefined, 0).push(bytes);
    if (errors.length !== 0 || values.length !== 1) throw new Error(`read lazily: ${errors[0]?.message ?? `${values.length} values`}`);
    return values[0];
  };
  const untouched = read();
  const classified = classifyMessage(untouched);
  if (classified.kind !== 'invalid') {
    let eagerOut: string;
    let lazyOut: string;
    try {
      eagerOut = serializeMessage(classifyMessage(eager).kind === 'invalid' ? classified.message : (eager as JsonRpcMessage));
      lazyOut = serializeMessage(classified.message);
    } catch (error) {
      // Too deep to forward: refused alike (the eager path's own check covers which way).
      if (error instanceof McpError) return;
      throw error;
    }
    // What each sends means what was read (a remembered member keeps its text: 1e999 stays 1e999,
    // where JSON.stringify writes null); members JSON-RPC does not have may be dropped (a
    // remembered member goes out in a new envelope).
    const own = (value: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(value).filter(([k]) => ['jsonrpc', 'id', 'method', 'params', 'result', 'error'].includes(k)));
    const read = JSON.parse(lazyOut) as Record<string, unknown>;
    const eagerRead = JSON.parse(eagerOut) as Record<string, unknown>;
    for (const [text, sent] of [[lazyOut, read], [eagerOut, eagerRead]] as const) {
      if (!sameJson(own(sent), own(eager as Record<string, unknown>), { sent: true })) throw new Error(`a message is forwarded as something else than was read: ${text.slice(0, 160)}`);
    }
  }
  if (!sameJson(read(), eager) || JSON.stringify(keysOf(read())) !== JSON.stringify(keysOf(eager))) throw new Error('a lazily read line means something else than JSON.parse');
}

/** The keys of a value and of its members, in order (two levels). */
function keysOf(value: unknown): unknown {
  if (!isObject(value)) return null;
  return Object.entries(value).map(([key, member]) => [key, isObject(member) ? Object.keys(member) : null]);
}

/** A valid message forwarded: its remembered member (if any) is its own text, and what goes out means the same. */
function forwarded(message: JsonRpcMessage, line: { text: string; bytes: Buffer } | undefined): void {
  if (line !== undefined) rememberRawMember(message as unknown as JsonObject, line.text, line.bytes);
  const member = 'result' in message ? message.result : 'params' in message ? message.params : undefined;
  const raw = isObject(member) ? rawTextOf(member) : undefined;
  if (raw !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new Error(`remembered text that is not one JSON value: ${raw.slice(0, 120)}…`);
    }
    if (!sameJson(value, member)) throw new Error(`remembered text that means something else: ${raw.slice(0, 120)}…`);
  }
  let out: string;
  try {
    out = serializeMessage(message);
  } catch (error) {
    if (error instanceof McpError && error.code === ErrorCode.InvalidRequest && 'method' in message) return; // too deep to forward, refused
    throw error;
  }
  const back = JSON.parse(out) as Record<string, unknown>;
  const deepRefusal = 'result' in message && isObject(back.error) && back.error.code === ErrorCode.InternalError && back.id === message.id;
  // Only JSON-RPC's own members are forwarded (a peer builds what it sends from them).
  const own = Object.fromEntries(Object.entries(message).filter(([k]) => ['jsonrpc', 'id', 'method', 'params', 'result', 'error'].includes(k)));
  if (!deepRefusal && !sameJson(back, own, { sent: true }) && !sameJson(back, message, { sent: true })) throw new Error(`forwarded text means something else: ${out.slice(0, 160)}`);
  const encoded = encodeMessage(message);
  const text = typeof encoded === 'string' ? encoded : encoded.head + encoded.bytes.toString('utf8') + encoded.tail;
  if (text !== out) throw new Error('encodeMessage and serializeMessage disagree');
}

export const fuzzTargets = [
  defineFuzzTarget({
    name: 'message',
    invariant:
      'a line is classified as the JSON-RPC spec says (request, notification, response, or -32600 with the id when readable; -32700 for malformed JSON), deep nesting never throws, no __proto__ key pollutes, and what is forwarded (raw member text or not) means what was read',
    arbitrary: lineText,
    quickRuns: 400,
    open: () => ({ check }),
  }),
];

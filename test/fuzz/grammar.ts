/**
 * @module
 * Generators shared by the fuzz targets: JSON-RPC messages as a peer might write them (valid ones,
 * and the awkward corners of JSON: huge numbers, deep nesting, duplicate and `__proto__` keys,
 * multi-byte and escaped text), mutations of them, invalid UTF-8, and the ways a byte stream may
 * be cut into chunks (at random, at every offset, a byte at a time).
 */
import fc from 'fast-check';

/** Strings that stress decoders: multi-byte UTF-8 (2, 3 and 4 bytes), escapes, controls, lone surrogates. */
export const awkwardString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('é', '€', '😀', '\u2028', '\u0000', '"', '\\', '\n', '\r', '\t', '\ufeff', '\ud800', 'a'), maxLength: 16 }),
);

/** Ids a peer might send, valid or not. */
export const anyId: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  awkwardString,
  fc.constantFrom(null, true, 1.5, -0, 1e308, Number.MAX_SAFE_INTEGER + 2, [], {}, [1], { a: 1 }),
);

/** A plain JSON value, small, with awkward keys. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, -1, 1e21, 5e-324, 1.7976931348623157e308),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    awkwardString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(awkwardString, fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty')), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A valid JSON-RPC message object (request, notification, result or error response). */
export const validMessage: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), awkwardString), method: fc.string({ minLength: 1, maxLength: 12 }), params: fc.dictionary(awkwardString, jsonValue, { maxKeys: 3 }) }, { requiredKeys: ['jsonrpc', 'id', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), method: fc.string({ minLength: 1, maxLength: 12 }), params: fc.dictionary(awkwardString, jsonValue, { maxKeys: 3 }) }, { requiredKeys: ['jsonrpc', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), awkwardString), result: fc.dictionary(awkwardString, jsonValue, { maxKeys: 3 }) }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), awkwardString, fc.constant(null)),
    error: fc.record({ code: fc.integer(), message: awkwardString, data: jsonValue }, { requiredKeys: ['code', 'message'] }),
  }),
);

/** JSON text that is valid but unusual: huge numbers, deep nesting, duplicate and `__proto__` keys, escapes. */
export const oddJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.nat({ max: 10_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.nat({ max: 10_000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  fc.nat({ max: 5_000 }).map((depth) => `{"jsonrpc":"2.0","id":1,"method":"m","params":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`),
  fc.constantFrom(
    '{"jsonrpc":"2.0","id":1,"id":2,"method":"a","method":"b"}',
    '{"jsonrpc":"2.0","id":1e400,"method":"m"}',
    '{"jsonrpc":"2.0","id":-1e400,"method":"m"}',
    '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"m"}',
    '{"jsonrpc":"2.0","id":1,"method":"m","params":{"__proto__":{"polluted":1}}}',
    '{"__proto__":{"polluted":1},"jsonrpc":"2.0","method":"m"}',
    '{"jsonrpc":"2.0","id":1,"result":{"constructor":{"prototype":{"polluted":1}}}}',
    '{"jsonrpc":"2.0","id":"\\ud800","method":"\\u0000"}',
    '{"jsonrpc":"2\\u002e0","id":"\\u00e9\\ud83d\\ude00","method":"m"}',
    '{"jsonrpc":"2.0","id":1,"method":"m","params":{"":0,"":1}}',
    '{"jsonrpc":"2.0","id":0.1e-999,"method":"m"}',
  ),
);

/** A message or batch text, valid or mutated: what a line or a body might hold. */
export const messageText: fc.Arbitrary<string> = fc.oneof(
  validMessage.map((m) => JSON.stringify(m)),
  fc.array(validMessage, { maxLength: 4 }).map((ms) => JSON.stringify(ms)),
  oddJsonText,
  validMessage.chain((m) => mutatedText(JSON.stringify(m))),
  jsonValue.map((v) => JSON.stringify(v) ?? 'null'),
);

/** `text` with one edit: a character replaced, removed or inserted, or cut short. */
export function mutatedText(text: string): fc.Arbitrary<string> {
  const at = fc.nat({ max: Math.max(0, text.length - 1) });
  const char = fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', '0', '-', 'e', ' ', '\u0000', '\ud800', 'é', '😀', 'x');
  return fc.oneof(
    fc.tuple(at, char).map(([i, c]) => text.slice(0, i) + c + text.slice(i + 1)),
    at.map((i) => text.slice(0, i) + text.slice(i + 1)),
    fc.tuple(at, char).map(([i, c]) => text.slice(0, i) + c + text.slice(i)),
    at.map((i) => text.slice(0, i)),
  );
}

/** Byte sequences that are not UTF-8: stray continuation, truncated sequences, overlong forms, surrogates, 0xFF. */
export const invalidUtf8: fc.Arbitrary<Buffer> = fc
  .constantFrom([0xff], [0x80], [0xc3], [0xc3, 0x28], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xfe, 0xfe])
  .map((bytes) => Buffer.from(bytes));

/** `bytes` cut into chunks at random places (none empty). */
export function randomChunks(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  if (bytes.length === 0) return [];
  const at = [...new Set(cuts.map((c) => c % bytes.length))].filter((c) => c > 0).sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const cut of [...at, bytes.length]) {
    chunks.push(bytes.subarray(start, cut));
    start = cut;
  }
  return chunks;
}

/** How a stream is cut: random cuts, one byte at a time, or each two-piece split in turn. */
export type Chunking = { readonly kind: 'random'; readonly cuts: readonly number[] } | { readonly kind: 'bytes' } | { readonly kind: 'every-offset' };

export const chunking: fc.Arbitrary<Chunking> = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.nat(), { maxLength: 40 }).map((cuts): Chunking => ({ kind: 'random', cuts })) },
  { weight: 1, arbitrary: fc.constant<Chunking>({ kind: 'bytes' }) },
  { weight: 1, arbitrary: fc.constant<Chunking>({ kind: 'every-offset' }) },
);

/**
 * The ways to feed `bytes` under `how`: one list of chunks, or for `every-offset` one list per
 * offset (capped at `maxSplits` offsets spread over the stream, so a long stream stays quick).
 */
export function feedings(bytes: Buffer, how: Chunking, maxSplits = 400): Buffer[][] {
  switch (how.kind) {
    case 'random':
      return [randomChunks(bytes, how.cuts)];
    case 'bytes':
      return [bytes.length > 20_000 ? randomChunks(bytes, [1, 2, 3, 4, 5]) : [...bytes].map((b) => Buffer.from([b]))];
    case 'every-offset': {
      const step = Math.max(1, Math.ceil((bytes.length + 1) / maxSplits));
      const out: Buffer[][] = [];
      for (let cut = 0; cut <= bytes.length; cut += step) out.push([bytes.subarray(0, cut), bytes.subarray(cut)].filter((b) => b.length > 0));
      return out;
    }
  }
}

/**
 * Structural equality without recursion (values may be nested 10,000 deep); `sent`: `a` is what
 * was sent for `b`, where a number too large for a double (Infinity) became null, and a negative
 * one too small for it (read as -0) became 0, as JSON.stringify writes them.
 */
export function sameJson(a: unknown, b: unknown, options: { readonly sent?: boolean } = {}): boolean {
  const stack: Array<[unknown, unknown]> = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop() as [unknown, unknown];
    if (Object.is(x, y)) continue;
    // What JSON.stringify sends for a number JSON.parse read as ±Infinity (over 1.8e308): null.
    if (options.sent === true && x === null && typeof y === 'number' && !Number.isFinite(y)) continue;
    // What JSON.stringify sends for -0 (e.g. -3.7e-2027, which JSON.parse reads as -0): 0.
    if (options.sent === true && x === 0 && Object.is(y, -0)) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.length !== ky.length) return false;
    for (const k of kx) {
      if (!Object.prototype.hasOwnProperty.call(y, k)) return false;
      stack.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
    }
  }
  return true;
}

/** Throws when something wrote onto Object.prototype (a `__proto__` key that polluted). */
export function assertPrototypeClean(): void {
  const keys = Object.getOwnPropertyNames(Object.prototype);
  if (keys.length !== PROTOTYPE_KEYS.length || keys.some((k) => !PROTOTYPE_KEYS.includes(k))) {
    throw new Error(`Object.prototype was polluted: it now has ${keys.filter((k) => !PROTOTYPE_KEYS.includes(k)).join(', ')}`);
  }
  const probe: Record<string, unknown> = {};
  if ('polluted' in probe) throw new Error('Object.prototype was polluted: {} has "polluted"');
}

const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype);

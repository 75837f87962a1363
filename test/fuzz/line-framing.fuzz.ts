import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { ErrorCode } from '../../src/errors/error-code.js';
import { McpError } from '../../src/errors/mcp-error.js';
import { LineReader } from '../../src/message/line-reader.js';
import { defineFuzzTarget } from './fuzz-target.js';
import { chunking, feedings, invalidUtf8, messageText, sameJson, type Chunking } from './grammar.js';

/** What the reader tells of one line. */
type Seen =
  | { readonly kind: 'value'; readonly text: string; readonly bytes: Buffer; readonly value: unknown }
  | { readonly kind: 'malformed'; readonly code: number; readonly message: string; readonly line: string | undefined };

/** One line of the stream, without its newline (it may end in CR). */
const line: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 6, arbitrary: messageText.map((text) => Buffer.from(text)) },
  { weight: 2, arbitrary: messageText.map((text) => Buffer.from(text + '\r')) },
  { weight: 1, arbitrary: fc.constantFrom('', '\r', ' ', '\t \r', '\ufeff', '\ufeff{"a":1}', '\u00a0', '{"a":1}\r\r', '\r{"a":1}').map((t) => Buffer.from(t)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes.map((b) => (b === 0x0a ? 0x20 : b)))) },
  {
    weight: 2,
    arbitrary: fc.tuple(messageText, fc.nat(), invalidUtf8).map(([text, at, bad]) => {
      const bytes = Buffer.from(text);
      const i = at % (bytes.length + 1);
      return Buffer.concat([bytes.subarray(0, i), bad, bytes.subarray(i)]);
    }),
  },
);

/** A stream: lines, a limit that some of them cross (near it: one under, at, one over), and how it is cut. */
interface Input {
  readonly lines: readonly Buffer[];
  readonly max: number;
  /** The stream ends without a final newline: the last line must not be delivered. */
  readonly unterminated: Buffer;
  readonly how: Chunking;
}

const input: fc.Arbitrary<Input> = fc
  .record({
    lines: fc.array(line, { maxLength: 8 }),
    max: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constant(64 * 1024)),
    near: fc.array(fc.tuple(fc.nat(), fc.integer({ min: -2, max: 2 }), fc.boolean()), { maxLength: 3 }),
    unterminated: fc.oneof(fc.constant(Buffer.alloc(0)), line),
    how: chunking,
  })
  .map(({ lines, max, near, unterminated, how }) => {
    const all = [...lines];
    // Lines of exactly the limit's length give or take two bytes, some ending in CR.
    for (const [at, delta, cr] of near) {
      const length = Math.max(0, max + delta);
      const body = Buffer.alloc(length, 0x61);
      if (cr && length > 0) body[length - 1] = 0x0d;
      all.splice(at % (all.length + 1), 0, body);
    }
    return { lines: all, max, unterminated, how };
  });

const SENTINEL = '{"jsonrpc":"2.0","method":"sentinel"}';

/** The reference: split the whole stream at each newline byte and judge each line by itself. */
function expected(stream: Buffer, max: number): Seen[] {
  const out: Seen[] = [];
  let start = 0;
  for (let nl = stream.indexOf(0x0a); nl !== -1; start = nl + 1, nl = stream.indexOf(0x0a, start)) {
    let bytes = stream.subarray(start, nl);
    if (bytes.length > max) {
      out.push({ kind: 'malformed', code: ErrorCode.InvalidRequest, message: `Invalid Request: message larger than ${max} bytes`, line: undefined });
      continue;
    }
    if (bytes.at(-1) === 0x0d) bytes = bytes.subarray(0, -1);
    if (!isUtf8(bytes)) {
      out.push({ kind: 'malformed', code: ErrorCode.ParseError, message: 'Parse error: invalid UTF-8', line: undefined });
      continue;
    }
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    const text = bytes.toString('utf8');
    if (text.trim() === '') continue;
    try {
      out.push({ kind: 'value', text, bytes, value: JSON.parse(text) });
    } catch {
      out.push({ kind: 'malformed', code: ErrorCode.ParseError, message: 'Parse error: invalid JSON', line: text });
    }
  }
  // An unfinished line is refused as soon as it is over the limit, before its newline comes.
  if (stream.length - start > max) out.push({ kind: 'malformed', code: ErrorCode.InvalidRequest, message: `Invalid Request: message larger than ${max} bytes`, line: undefined });
  return out;
}

function same(got: Seen, want: Seen): boolean {
  if (got.kind !== want.kind) return false;
  if (got.kind === 'malformed' && want.kind === 'malformed') return got.code === want.code && got.message === want.message && got.line === want.line;
  if (got.kind === 'value' && want.kind === 'value') {
    if (got.text !== want.text || !got.bytes.equals(want.bytes)) return false;
    return sameJson(got.value, want.value);
  }
  return false;
}

function describe(seen: Seen | undefined): string {
  if (seen === undefined) return 'nothing';
  return seen.kind === 'value' ? `value ${JSON.stringify(seen.text.slice(0, 80))}` : `${seen.code} ${seen.message} ${JSON.stringify(seen.line?.slice(0, 80))}`;
}

export const fuzzTargets = [
  defineFuzzTarget({
    name: 'line-framing',
    invariant:
      'however a stream of lines is cut, the reader reports exactly what splitting the whole stream at each newline gives (the same bytes and text, -32600 for a line over the limit, -32700 for invalid UTF-8 or JSON), buffers at most the limit, and still delivers the line after',
    arbitrary: input,
    quickRuns: 300,
    open: () => ({
      check({ lines, max, unterminated, how }: Input) {
        // The sentinel comes last (after the last over-limit or broken line) and must be delivered.
        const stream = Buffer.concat([...lines.flatMap((l) => [l, Buffer.from('\n')]), Buffer.from(SENTINEL + '\n'), unterminated]);
        const want = expected(stream, max);
        const sentinelAt = want.findIndex((w) => w.kind === 'value' && w.text === SENTINEL);
        if (max >= SENTINEL.length && (sentinelAt === -1 || sentinelAt < want.length - 2)) throw new Error('the reference lost the sentinel');
        for (const chunks of feedings(stream, how, 60)) {
          const seen: Seen[] = [];
          const reader = new LineReader(
            {
              onValue: (value, text, bytes) => seen.push({ kind: 'value', value, text: text ?? bytes.toString('utf8'), bytes: Buffer.from(bytes) }),
              onMalformed: (error, text) => {
                if (!(error instanceof McpError)) throw new Error(`onMalformed got ${String(error)}`);
                seen.push({ kind: 'malformed', code: error.code, message: error.message, line: text });
              },
            },
            max,
          );
          for (const chunk of chunks) {
            reader.push(chunk);
            if (reader.buffered > max) throw new Error(`buffered ${reader.buffered} bytes, over the limit of ${max}`);
          }
          const at = chunks.map((c) => c.length).join('+');
          for (let i = 0; i < Math.max(seen.length, want.length); i++) {
            const got = seen[i];
            const wanted = want[i];
            if (got === undefined || wanted === undefined || !same(got, wanted)) {
              throw new Error(`chunks ${at}: report ${i} is ${describe(got)}, the reference says ${describe(wanted)}`);
            }
          }
          // What is held at the end is the unterminated line (or nothing, when it was over the limit).
          const held = unterminated.length > max ? 0 : unterminated.length;
          if (reader.buffered !== held) throw new Error(`chunks ${at}: holds ${reader.buffered} bytes at the end, expected ${held}`);
        }
      },
    }),
  }),
];

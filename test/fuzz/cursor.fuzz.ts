import fc from 'fast-check';
import { McpError } from '../../src/errors/mcp-error.js';
import { ErrorCode } from '../../src/errors/error-code.js';
import { CursorCodec } from '../../src/upstream/aggregate/cursor-codec.js';
import { defineFuzzTarget } from './fuzz-target.js';

const codec = new CursorCodec(Buffer.from('fuzz key, fixed so that a failure replays'));
const other = new CursorCodec(Buffer.from('another server'));

/** A cursor a client could send: ours altered at a byte, truncated, extended, another server's, or any text. */
const cursorText = fc.oneof(
  fc.record({ kind: fc.constantFrom('tools', 'prompts', 'resources'), digest: fc.string(), offset: fc.nat() }).chain((cursor) => {
    const text = codec.encode(cursor);
    return fc.oneof(
      fc.constant(text),
      fc.nat({ max: text.length - 1 }).map((at) => text.slice(0, at)),
      fc.tuple(fc.nat({ max: text.length - 1 }), fc.constantFrom('A', '_', '-', '0', '=', '%', ' ')).map(([at, c]) => text.slice(0, at) + c + text.slice(at + 1)),
      fc.string().map((tail) => text + tail),
      fc.constant(other.encode(cursor)),
    );
  }),
  fc.string({ unit: 'binary', maxLength: 2000 }),
  fc.base64String({ maxLength: 1100 }),
  fc.anything(),
);

export const fuzzTargets = [
  defineFuzzTarget({
    name: 'cursor',
    invariant: 'a cursor a client sends decodes to what this server made, or is refused with -32602, never anything else',
    arbitrary: fc.tuple(cursorText, fc.constantFrom('tools', 'prompts', 'resources')),
    quickRuns: 2000,
    open: () => ({
      check([text, kind]: [unknown, string]) {
        try {
          const cursor = codec.decode(text, kind);
          // Only a cursor this codec made for this list decodes, and it decodes to what was encoded.
          if (typeof text !== 'string' || codec.encode(cursor) !== text || cursor.kind !== kind) throw new Error(`accepted a cursor it did not make: ${String(text)}`);
        } catch (error) {
          if (!(error instanceof McpError) || error.code !== ErrorCode.InvalidParams) throw error;
          if (!error.message.startsWith('Invalid cursor')) throw new Error(`unexpected message: ${error.message}`);
        }
      },
    }),
  }),
];

import { isUtf8 } from 'node:buffer';
import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import { lazyMessage } from './lazy-message.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export interface LineReaderHandlers {
  /**
   * A complete line decoded as UTF-8 and parsed as JSON, with the line's text and the bytes it
   * was decoded from (a view of the bytes read, not a copy). A line read lazily (see
   * `lazyFromBytes`) has no text: it was never decoded as a whole.
   */
  onValue(value: unknown, text: string | undefined, bytes: Buffer): void;
  /** A line that could not become a JSON value, or one over the size limit. */
  onMalformed(error: McpError, line: string | undefined): void;
}

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Newline-delimited JSON framing for byte streams. Splits on the newline *byte*, so a chunk may end
 * anywhere, even inside a multi-byte UTF-8 character; accepts CRLF; skips blank lines; decodes each
 * line strictly (invalid UTF-8 is a parse error, never U+FFFD); and never buffers more than
 * `maxMessageBytes` of one line: an oversized line is discarded up to its newline and reported.
 */
export class LineReader {
  readonly #handlers: LineReaderHandlers;
  readonly #max: number;
  readonly #lazyFrom: number;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #discarding = false;

  /**
   * `lazyFromBytes`: a JSON object on a line at least this long is read with `lazyMessage` (checked
   * without being built; its `params` or `result` parsed one member at a time when read, and sent
   * on as its own bytes when not changed). Off by default.
   */
  constructor(handlers: LineReaderHandlers, maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES, lazyFromBytes = Number.POSITIVE_INFINITY) {
    this.#handlers = handlers;
    this.#max = maxMessageBytes;
    this.#lazyFrom = lazyFromBytes;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      if (this.#discarding) {
        this.#discarding = false;
      } else if (this.#buffered + (nl - start) > this.#max) {
        this.#reset();
        this.#tooLarge();
      } else {
        const piece = chunk.subarray(start, nl);
        const line = this.#chunks.length === 0 ? piece : Buffer.concat([...this.#chunks, piece]);
        this.#reset();
        this.#line(line);
      }
      start = nl + 1;
    }
    if (start >= chunk.length || this.#discarding) return;
    const rest = chunk.subarray(start);
    if (this.#buffered + rest.length > this.#max) {
      this.#reset();
      this.#discarding = true;
      this.#tooLarge();
      return;
    }
    this.#chunks.push(rest);
    this.#buffered += rest.length;
  }

  /** Bytes held for an unfinished line. */
  get buffered(): number {
    return this.#buffered;
  }

  #reset(): void {
    this.#chunks = [];
    this.#buffered = 0;
  }

  #tooLarge(): void {
    this.#handlers.onMalformed(
      new McpError(ErrorCode.InvalidRequest, `Invalid Request: message larger than ${this.#max} bytes`),
      undefined,
    );
  }

  #line(bytes: Buffer): void {
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === CR) end -= 1;
    let line = end === bytes.length ? bytes : bytes.subarray(0, end);
    // Validation (native, vectorized) then decoding: faster than a fatal TextDecoder on big lines.
    if (!isUtf8(line)) {
      this.#handlers.onMalformed(new McpError(ErrorCode.ParseError, 'Parse error: invalid UTF-8'), undefined);
      return;
    }
    if (line.length >= this.#lazyFrom && line[0] !== 0xef) {
      // Anything but one JSON object (a batch, malformed JSON, a BOM) is read below as it always was.
      const value = lazyMessage(line);
      if (value !== undefined) {
        this.#handlers.onValue(value, undefined, line);
        return;
      }
    }
    let text = line.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) {
      text = text.slice(1);
      line = line.subarray(3);
    }
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#handlers.onMalformed(new McpError(ErrorCode.ParseError, 'Parse error: invalid JSON'), text);
      return;
    }
    this.#handlers.onValue(value, text, line);
  }
}

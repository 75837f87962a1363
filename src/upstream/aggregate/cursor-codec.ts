import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';

/** Where a page of a merged list starts: which list, which version of it, how far in. */
export interface ListCursor {
  /** Which list (`tools`, `prompts`, ...): a cursor of one is refused by the others. */
  readonly kind: string;
  /** The {@link listDigest} of the list the cursor was made for, to tell a stale cursor. */
  readonly digest: string;
  /** The index of the first item of the page. A non-negative integer. */
  readonly offset: number;
}

/** Longest cursor text decoded; anything longer is refused unread. */
const MAX_CURSOR_LENGTH = 1024;
/** HMAC-SHA256. */
const TAG_LENGTH = 32;
/** How much of a refused cursor an error message shows. */
const PREVIEW_LENGTH = 24;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

let processKey: Buffer | undefined;

/**
 * Makes and checks the cursors of merged lists. A cursor is opaque text to the client: base64url
 * of a small JSON payload (`[kind, digest, offset]`) followed by its HMAC-SHA256 tag. Only this
 * process (or whoever holds the key) can make one, so a made-up, altered or truncated cursor, or
 * one of another list, is refused with -32602 (Invalid params) before anything else is read.
 * Whether a cursor is stale (its digest is not the list's) is for the caller to decide.
 */
export class CursorCodec {
  readonly #key: Buffer;

  /**
   * @param key The HMAC key. Default: 32 random bytes made once per process, shared by every codec
   * made without a key, so cursors stay valid across sessions of one process and never across
   * restarts.
   */
  constructor(key?: Uint8Array) {
    if (key !== undefined && key.length === 0) throw new RangeError('CursorCodec key must not be empty');
    this.#key = key === undefined ? (processKey ??= randomBytes(32)) : Buffer.from(key);
  }

  /** The cursor's text. @throws RangeError for an offset that is not a non-negative safe integer. */
  encode(cursor: ListCursor): string {
    if (!Number.isSafeInteger(cursor.offset) || cursor.offset < 0) {
      throw new RangeError(`Cursor offset must be a non-negative integer, got ${String(cursor.offset)}`);
    }
    const payload = Buffer.from(JSON.stringify([cursor.kind, cursor.digest, cursor.offset]), 'utf8');
    return Buffer.concat([payload, this.#tag(payload)]).toString('base64url');
  }

  /**
   * The cursor behind a client's text, if this codec made it for a list of `kind`.
   * @throws McpError -32602 `Invalid cursor: ...` for anything else: not a string, empty, longer
   * than 1 KiB, not base64url, tag wrong, of another kind, or a payload that is not a cursor.
   * The message shows at most the first 24 characters of what was sent.
   */
  decode(text: unknown, kind: string): ListCursor {
    if (typeof text !== 'string') throw invalid(`expected a string, got ${text === null ? 'null' : typeof text}`);
    if (text.length === 0) throw invalid('empty');
    if (text.length > MAX_CURSOR_LENGTH) throw invalid(`too long (${text.length} characters)`);
    if (!BASE64URL.test(text)) throw invalid(`not base64url: ${preview(text)}`);
    const bytes = Buffer.from(text, 'base64url');
    // Node decodes leniently; only the one canonical spelling of the bytes is ours.
    if (bytes.length <= TAG_LENGTH || bytes.toString('base64url') !== text) throw invalid(`not issued by this server: ${preview(text)}`);
    const payload = bytes.subarray(0, bytes.length - TAG_LENGTH);
    if (!timingSafeEqual(bytes.subarray(bytes.length - TAG_LENGTH), this.#tag(payload))) {
      throw invalid(`not issued by this server (or issued before it restarted): ${preview(text)}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload.toString('utf8'));
    } catch {
      throw invalid('malformed');
    }
    if (!Array.isArray(parsed) || parsed.length !== 3) throw invalid('malformed');
    const [cursorKind, digest, offset] = parsed as unknown[];
    if (typeof cursorKind !== 'string' || typeof digest !== 'string') throw invalid('malformed');
    if (cursorKind !== kind) throw invalid(`made for another list than ${kind}`);
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) throw invalid('bad offset');
    return { kind: cursorKind, digest, offset };
  }

  #tag(payload: Buffer): Buffer {
    return createHmac('sha256', this.#key).update(payload).digest();
  }
}

/**
 * A short (16 characters, base64url), stable hash of names in their order: the same names in
 * the same order give the same digest in any process; any change, reordering included, gives
 * another (but for a 2^-96 chance).
 */
export function listDigest(names: Iterable<string>): string {
  const hash = createHash('sha256');
  // Length-prefixed, so ['ab'] and ['a', 'b'] differ.
  for (const name of names) hash.update(`${name.length}:${name}`, 'utf8');
  return hash.digest().subarray(0, 12).toString('base64url');
}

function invalid(reason: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${reason}`);
}

function preview(text: string): string {
  return JSON.stringify(text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH)}...` : text);
}

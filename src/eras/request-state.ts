import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';

/** What a requestState says, once verified. */
export interface RequestStateClaims {
  /** The parked call it resumes (an opaque handle the bridge chose). */
  readonly call: string;
  /** Which round of input it answers (0, 1, …): a state of an earlier round is stale (replay). */
  readonly round: number;
  /** Who asked: the authenticated principal, or '' when there is none (stdio). */
  readonly principal: string;
  /** `requestDigest(method, params)` of the original request. */
  readonly digest: string;
  /** Expiry, ms since the epoch. */
  readonly expiresAt: number;
}

/** How a {@link RequestStateCodec} seals and what it accepts. */
export interface RequestStateCodecOptions {
  /** HMAC key; default 32 random bytes (per process). At least 32 bytes, else throws. */
  key?: Uint8Array;
  /** How long a state is good for. */
  ttlMs: number;
  /** Clock (tests). Default Date.now. */
  now?: () => number;
}

/** Why `open` refused a state, as `data.requestState` of its -32602. */
export type RequestStateRefusal = 'malformed' | 'invalid' | 'expired' | 'foreign' | 'mismatch';

/** The version prefix of every state this module seals; another prefix is not ours (or is stale). */
const PREFIX = 'mc1.';
/** HMAC-SHA256 is 32 bytes: 43 base64url characters without padding. */
const MAC_BYTES = 32;
const MAC_CHARS = 43;
/** The smallest key `RequestStateCodec` takes (the size of the MAC). */
const MIN_KEY_BYTES = 32;
/**
 * The longest state `open` reads (and `seal` makes): far above what real claims need, low enough
 * that a client cannot make us MAC or parse megabytes.
 */
const MAX_STATE_CHARS = 8192;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const REASONS: Readonly<Record<RequestStateRefusal, string>> = {
  malformed: 'it is malformed',
  invalid: 'it failed verification',
  expired: 'it has expired',
  foreign: 'it was issued to another caller',
  mismatch: 'it was issued for another request',
};

/**
 * Seals and opens the `requestState` of an `input_required` result the chain answers for a parked
 * call (wire-rules §3 "requestState security"): the claims in clear (base64url JSON), HMAC-SHA256
 * over them and the version prefix, `mc1.<payload>.<mac>`. `open` believes nothing before the MAC
 * checks (constant time), then refuses an expired state, one issued to another principal, or one
 * issued for another request. It does not make a state single-use: the bridge does, by `round`.
 */
export class RequestStateCodec {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: RequestStateCodecOptions) {
    const { key, ttlMs, now } = options;
    if (key !== undefined && key.byteLength < MIN_KEY_BYTES) {
      throw new RangeError(`RequestStateCodec: the key must be at least ${MIN_KEY_BYTES} bytes`);
    }
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('RequestStateCodec: ttlMs must be a positive number');
    // A copy: the caller's buffer may change (or be zeroed) later.
    this.#key = key === undefined ? randomBytes(MIN_KEY_BYTES) : Buffer.from(key);
    this.#ttlMs = ttlMs;
    this.#now = now ?? Date.now;
  }

  /** A sealed, opaque, URL-safe string (base64url payload + '.' + base64url MAC, prefixed 'mc1.' as a version). */
  seal(claims: Omit<RequestStateClaims, 'expiresAt'>): string {
    const { call, round, principal, digest } = claims;
    if (!Number.isSafeInteger(round) || round < 0) throw new RangeError('RequestStateCodec.seal: round must be a non-negative integer');
    const expiresAt = this.#now() + this.#ttlMs;
    const payload = Buffer.from(JSON.stringify([call, round, principal, digest, expiresAt]), 'utf8').toString('base64url');
    const state = `${PREFIX}${payload}.${this.#mac(payload).toString('base64url')}`;
    if (state.length > MAX_STATE_CHARS) throw new RangeError(`RequestStateCodec.seal: the state would exceed ${MAX_STATE_CHARS} characters`);
    return state;
  }

  /**
   * The claims of `state`, verified: throws McpError(ErrorCode.InvalidParams, …) with a message that
   * says which check failed (malformed / failed verification / expired / issued to another caller /
   * issued for another request) and `data: { requestState: 'malformed'|'invalid'|'expired'|'foreign'|'mismatch' }`.
   * A non-string state is 'malformed'. Checks the MAC before anything else is believed.
   */
  open(state: unknown, expected: { principal: string; digest: string }): RequestStateClaims {
    if (typeof state !== 'string' || state.length > MAX_STATE_CHARS || !state.startsWith(PREFIX)) throw refusal('malformed');
    const parts = state.slice(PREFIX.length).split('.');
    if (parts.length !== 2) throw refusal('malformed');
    const [payload = '', macText = ''] = parts;
    if (!BASE64URL.test(payload) || macText.length !== MAC_CHARS || !BASE64URL.test(macText)) throw refusal('malformed');
    const mac = Buffer.from(macText, 'base64url');
    // Canonical encodings only: Node's decoder ignores the spare low bits of the last character.
    if (mac.length !== MAC_BYTES || mac.toString('base64url') !== macText) throw refusal('malformed');
    if (!timingSafeEqual(mac, this.#mac(payload))) throw refusal('invalid');
    // Past this point the payload is one this key sealed.
    const claims = decodeClaims(payload);
    if (claims === undefined) throw refusal('malformed');
    if (this.#now() >= claims.expiresAt) throw refusal('expired');
    if (claims.principal !== expected.principal) throw refusal('foreign');
    if (claims.digest !== expected.digest) throw refusal('mismatch');
    return claims;
  }

  /** The MAC of a payload, over the version prefix too (a state cannot be re-read as another version). */
  #mac(payload: string): Buffer {
    return createHmac('sha256', this.#key).update(PREFIX).update(payload).digest();
  }
}

function refusal(reason: RequestStateRefusal): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid requestState: ${REASONS[reason]}`, { requestState: reason });
}

function decodeClaims(payload: string): RequestStateClaims | undefined {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 5) return undefined;
  const [call, round, principal, digest, expiresAt] = decoded as unknown[];
  if (typeof call !== 'string' || typeof principal !== 'string' || typeof digest !== 'string') return undefined;
  if (typeof round !== 'number' || !Number.isSafeInteger(round) || round < 0) return undefined;
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return undefined;
  return { call, round, principal, digest, expiresAt };
}

/** The params a retry adds or that do not name what is asked: left out of the digest. */
const UNSALIENT = new Set(['_meta', 'inputResponses', 'requestState']);

/**
 * A digest (base64url SHA-256) of a request's method and its salient params: everything in
 * `params` except `_meta`, `inputResponses` and `requestState`, in canonical JSON (keys sorted at
 * every depth, so key order does not matter). Must not throw on any JSON value (cycles need not be handled).
 *
 * Absent params and `{}` digest alike. Values JSON cannot hold are read as `JSON.stringify` reads
 * them (undefined and functions left out of objects and null in arrays, non-finite numbers null),
 * a bigint as its digits. Nesting depth is not limited by the stack.
 */
export function requestDigest(method: string, params: Record<string, unknown> | undefined): string {
  const salient: Record<string, unknown> = {};
  if (params !== undefined) {
    for (const key of Object.keys(params)) if (!UNSALIENT.has(key)) salient[key] = params[key];
  }
  const hash = createHash('sha256');
  hash.update(JSON.stringify(method));
  hash.update('\n');
  writeCanonical(salient, (text) => hash.update(text));
  return hash.digest('base64url');
}

/** A piece of output still to write, or a value still to serialize (an explicit stack: no recursion). */
type Pending = { readonly text: string } | { readonly value: unknown };

function writeCanonical(root: unknown, write: (text: string) => void): void {
  const stack: Pending[] = [{ value: root }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if ('text' in item) {
      write(item.text);
      continue;
    }
    const value = item.value;
    const scalar = scalarText(value);
    if (scalar !== undefined) {
      write(scalar);
    } else if (Array.isArray(value)) {
      write('[');
      stack.push({ text: ']' });
      for (let i = value.length - 1; i >= 0; i--) {
        const element: unknown = value[i];
        stack.push(omitted(element) ? { text: 'null' } : { value: element });
        if (i > 0) stack.push({ text: ',' });
      }
    } else {
      const object = value as Record<string, unknown>;
      const keys = Object.keys(object)
        .filter((key) => !omitted(object[key]))
        .sort();
      write('{');
      stack.push({ text: '}' });
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        stack.push({ value: object[key] });
        stack.push({ text: `${JSON.stringify(key)}:` });
        if (i > 0) stack.push({ text: ',' });
      }
    }
  }
}

/** Left out of an object, null in an array, as in `JSON.stringify`. */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** The JSON text of a value that is not an array or an object; undefined for those. */
function scalarText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      return value === null ? 'null' : undefined;
    default:
      // undefined, a function or a symbol at the top or passed where a value was due.
      return 'null';
  }
}

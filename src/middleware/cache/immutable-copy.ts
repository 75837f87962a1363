import type { JsonObject } from '../../message/jsonrpc.js';
import { rawByteLengthOf } from '../../message/raw-json.js';

/** A value safe to hand out many times, and the size of its JSON text in bytes. */
export interface Immutable {
  readonly value: JsonObject;
  readonly bytes: number;
}

/**
 * A deeply frozen version of `result`, to store and hand out on every hit, and its size.
 *
 * A result read off the wire with its text remembered (see `rawByteLengthOf`) is owned by the message
 * path alone: it is frozen in place, so a hit is the same object and still goes out as its
 * original text, and its size is that text's. Any other result (an in-process server's, which may
 * keep and reuse its objects) is copied first, and measured by serializing it once.
 */
export function immutableCopy(result: JsonObject): Immutable {
  const raw = rawByteLengthOf(result);
  if (raw !== undefined) return { value: deepFreeze(result), bytes: raw };
  const text = JSON.stringify(result);
  return { value: deepFreeze(structuredClone(result)), bytes: Buffer.byteLength(text) };
}

/** Freezes `root` and everything in it, without recursion (no stack limit on deep values). */
function deepFreeze<T extends object>(root: T): T {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const current = stack.pop() as object;
    Object.freeze(current);
    for (const child of Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push(child as object);
    }
  }
  return root;
}

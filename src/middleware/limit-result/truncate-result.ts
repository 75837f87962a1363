/**
 * @module
 * Cutting a `tools/call` result down to a size: text cut, other items dropped, a note the model
 * can read saying what happened.
 */
import type { JsonObject } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { fittingPrefix, formatBytes, jsonBytes } from './json-size.js';

/** A cap on one result: bytes of the whole serialized result, and/or characters of its text content. */
export interface ResultLimit {
  readonly maxBytes?: number | undefined;
  readonly maxTextChars?: number | undefined;
}

/** How big a result is, by the measures a limit uses (`bytes` only measured when a limit needs it). */
export interface ResultSize {
  readonly bytes: number | undefined;
  readonly textChars: number;
}

/** Room kept for the note and the `content` key itself, so the cut result stays under `maxBytes`. */
const NOTE_RESERVE_BYTES = 512;

/** The smallest `maxBytes` that leaves room for a note and some content. */
export const MIN_MAX_BYTES = 1024;

function isText(item: unknown): item is JsonObject & { type: 'text'; text: string } {
  return isJsonObject(item) && item.type === 'text' && typeof item.text === 'string';
}

function contentOf(result: JsonObject): readonly unknown[] {
  return Array.isArray(result.content) ? (result.content as unknown[]) : [];
}

/** Measures `result`: its text characters always, its bytes only when `limit` has `maxBytes`. */
export function measure(result: JsonObject, limit: ResultLimit): ResultSize {
  let textChars = 0;
  for (const item of contentOf(result)) if (isText(item)) textChars += item.text.length;
  return { bytes: limit.maxBytes === undefined ? undefined : jsonBytes(result), textChars };
}

/** True when `size` is over `limit`. */
export function exceeds(size: ResultSize, limit: ResultLimit): boolean {
  return (limit.maxBytes !== undefined && size.bytes !== undefined && size.bytes > limit.maxBytes) ||
    (limit.maxTextChars !== undefined && size.textChars > limit.maxTextChars);
}

/** What was over which limit, in words: `the result was 1.2 MB, over the gateway's limit of 100 KB`. */
export function describeExcess(size: ResultSize, limit: ResultLimit): string {
  const parts: string[] = [];
  if (limit.maxBytes !== undefined && size.bytes !== undefined && size.bytes > limit.maxBytes) {
    parts.push(`the result was ${formatBytes(size.bytes)}, over the gateway's limit of ${formatBytes(limit.maxBytes)}`);
  }
  if (limit.maxTextChars !== undefined && size.textChars > limit.maxTextChars) {
    parts.push(`its text was ${count(size.textChars)} characters, over the gateway's limit of ${count(limit.maxTextChars)}`);
  }
  return parts.join(' and ');
}

/**
 * A copy of `result` that fits `limit`: content items are kept in order while they fit; the text
 * item that crosses a limit is cut (never inside a surrogate pair), a non-text item that does not
 * fit is dropped (later, smaller items may still fit); `structuredContent` is kept only if it still
 * fits after the content. A last text item says what was cut. Other keys (`isError`, `_meta`) are kept.
 */
export function truncateResult(result: JsonObject, limit: ResultLimit, size: ResultSize): JsonObject {
  const { content: _content, structuredContent, ...base } = result;
  let bytesLeft = limit.maxBytes === undefined ? Infinity : limit.maxBytes - jsonBytes(base) - NOTE_RESERVE_BYTES;
  let charsLeft = limit.maxTextChars ?? Infinity;
  const kept: unknown[] = [];
  const dropped: string[] = [];
  let keptChars = 0;
  let cut = false;

  for (const item of contentOf(result)) {
    const itemBytes = jsonBytes(item) + 1;
    if (isText(item)) {
      if (item.text.length <= charsLeft && itemBytes <= bytesLeft) {
        kept.push(item);
        charsLeft -= item.text.length;
        bytesLeft -= itemBytes;
        keptChars += item.text.length;
        continue;
      }
      cut = true;
      const overhead = jsonBytes({ ...item, text: '' }) + 1;
      const length = bytesLeft > overhead ? fittingPrefix(item.text, charsLeft, bytesLeft - overhead) : 0;
      if (length === 0) {
        dropped.push('text');
        continue;
      }
      const shortened = { ...item, text: item.text.slice(0, length) };
      kept.push(shortened);
      charsLeft -= length;
      bytesLeft -= jsonBytes(shortened) + 1;
      keptChars += length;
    } else if (itemBytes <= bytesLeft) {
      kept.push(item);
      bytesLeft -= itemBytes;
    } else {
      dropped.push(isJsonObject(item) && typeof item.type === 'string' ? item.type : 'item');
    }
  }

  const keepStructured = structuredContent !== undefined && jsonBytes(structuredContent) + 24 <= bytesLeft;
  const done: string[] = [];
  if (cut) done.push(`text cut to ${count(keptChars)} of ${count(size.textChars)} characters`);
  if (dropped.length > 0) done.push(`${dropped.length} ${dropped.length === 1 ? 'item' : 'items'} dropped (${dropped.join(', ')})`);
  if (structuredContent !== undefined && !keepStructured) done.push('structuredContent dropped');
  const note = `[… truncated by the gateway: ${describeExcess(size, limit)}; ${done.join('; ') || 'nothing could be kept'}]`;
  const out: JsonObject = { ...base, content: [...kept, { type: 'text', text: note }] };
  if (keepStructured) out.structuredContent = structuredContent;
  return out;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

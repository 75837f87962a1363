/**
 * @module
 * Sizes as the wire sees them: UTF-8 bytes of JSON text, measured without serializing twice, and
 * prefixes of strings that fit a budget without splitting a UTF-16 surrogate pair.
 */

/** Bytes of `value` serialized as JSON (UTF-8). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/** Bytes one UTF-16 code unit (or a whole pair, at a high surrogate) takes inside a JSON string. */
function unitCost(text: string, i: number): { bytes: number; units: number } {
  const code = text.charCodeAt(i);
  if (code < 0x80) {
    if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return { bytes: 2, units: 1 };
    return { bytes: code < 0x20 ? 6 : 1, units: 1 };
  }
  if (code < 0x800) return { bytes: 2, units: 1 };
  if (code >= 0xd800 && code <= 0xdbff) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return { bytes: 4, units: 2 };
    return { bytes: 6, units: 1 }; // a lone surrogate is escaped as \uXXXX
  }
  if (code >= 0xdc00 && code <= 0xdfff) return { bytes: 6, units: 1 };
  return { bytes: 3, units: 1 };
}

/**
 * The length of the longest prefix of `text` that has at most `maxUnits` UTF-16 code units and
 * takes at most `maxBytes` bytes inside a JSON string; it never ends between the two halves of a
 * surrogate pair.
 */
export function fittingPrefix(text: string, maxUnits: number, maxBytes: number): number {
  let units = 0;
  let bytes = 0;
  while (units < text.length) {
    const cost = unitCost(text, units);
    if (units + cost.units > maxUnits || bytes + cost.bytes > maxBytes) break;
    units += cost.units;
    bytes += cost.bytes;
  }
  return units;
}

/** A size for people: `812 B`, `1.2 KB`, `100 KB`, `3.4 MB` (powers of 1024). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KB'] : [bytes / (1024 * 1024), 'MB'];
  const rounded = value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  return `${rounded} ${unit}`;
}

/**
 * One output stream of a program, kept up to `maxBytes` (the rest is counted and dropped, so the
 * program is never blocked on a full pipe), decoded as UTF-8 with invalid bytes replaced; a cut
 * never falls inside a multi-byte character.
 */
export class CappedOutput {
  readonly #maxBytes: number;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #total = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    const room = this.#maxBytes - this.#kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.#chunks.push(part);
    this.#kept += part.length;
  }

  /** Every byte the program wrote, kept or not. */
  get totalBytes(): number {
    return this.#total;
  }

  get truncated(): boolean {
    return this.#total > this.#maxBytes;
  }

  /** What was kept, as text; when cut, without the partial character at the end. */
  text(): string {
    let bytes = Buffer.concat(this.#chunks, this.#kept);
    if (this.truncated) bytes = bytes.subarray(0, completeUtf8Length(bytes));
    return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  }
}

/** The length of `bytes` without an incomplete UTF-8 sequence at its end (a cut in the middle of a character). */
export function completeUtf8Length(bytes: Uint8Array): number {
  const length = bytes.length;
  for (let start = length - 1; start >= 0 && start >= length - 4; start--) {
    const byte = bytes[start] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: the lead is further back
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return start + needed > length ? start : length;
  }
  return length;
}

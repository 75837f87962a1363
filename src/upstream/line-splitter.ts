const MAX_LINE = 8 * 1024;

/**
 * Splits a byte stream (a child's stderr) into text lines for the log. Holds at most 8 KiB of an
 * unfinished line; a longer line is cut and passed on in pieces, so memory stays bounded however
 * much a process writes.
 */
export class LineSplitter {
  readonly #onLine: (line: string) => void;
  #partial = '';

  constructor(onLine: (line: string) => void) {
    this.#onLine = onLine;
  }

  push(chunk: Buffer): void {
    const lines = (this.#partial + chunk.toString('utf8')).split(/\r?\n/);
    this.#partial = lines.pop() ?? '';
    for (const line of lines) if (line !== '') this.#onLine(line);
    while (this.#partial.length > MAX_LINE) {
      this.#onLine(this.#partial.slice(0, MAX_LINE));
      this.#partial = this.#partial.slice(MAX_LINE);
    }
  }

  flush(): void {
    if (this.#partial !== '') this.#onLine(this.#partial);
    this.#partial = '';
  }
}

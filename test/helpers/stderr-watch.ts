import { withTimeout } from './client.js';

/** How long `waitFor` waits for its pattern. */
const STDERR_WAIT_MS = 15_000;

/** A child's stderr as it arrives, and bounded waits for a pattern in it. */
export class StderrWatch {
  /** Everything received so far. */
  text = '';
  readonly #waiters = new Set<{ pattern: RegExp; from: number; resolve: (match: RegExpExecArray) => void }>();

  /** @param what names the stream in the error of a wait that times out (e.g. "the gateway's stderr"). */
  constructor(readonly what = 'stderr') {}

  /** Adds a chunk of the stream; resolves the waits it completes. */
  push(chunk: Buffer | string): void {
    this.text += chunk.toString();
    for (const waiter of [...this.#waiters]) {
      const match = waiter.pattern.exec(this.text.slice(waiter.from));
      if (match) {
        this.#waiters.delete(waiter);
        waiter.resolve(match);
      }
    }
  }

  /** The first match of `pattern` in what comes from now on (or since `from`), within 15 s. */
  waitFor(pattern: RegExp, from = this.text.length): Promise<RegExpExecArray> {
    const match = pattern.exec(this.text.slice(from));
    if (match) return Promise.resolve(match);
    return withTimeout(new Promise((resolve) => this.#waiters.add({ pattern, from, resolve })), STDERR_WAIT_MS, () => `${String(pattern)} on ${this.what}: ${this.text}`);
  }
}

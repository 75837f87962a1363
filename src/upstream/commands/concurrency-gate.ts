/**
 * At most `limit` holders at once; the others wait their turn in order. A wait ends early when
 * its signal aborts (resolving `undefined`: no turn was taken).
 */
export class ConcurrencyGate {
  readonly #limit: number;
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Resolves with the function that gives the turn back, or undefined if `signal` aborted first. */
  acquire(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    if (this.#active < this.#limit) {
      this.#active++;
      return Promise.resolve(this.#release());
    }
    return new Promise((resolve) => {
      const turn = (): void => {
        signal.removeEventListener('abort', abort);
        this.#active++;
        resolve(this.#release());
      };
      const abort = (): void => {
        const at = this.#waiting.indexOf(turn);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(undefined);
      };
      signal.addEventListener('abort', abort, { once: true });
      this.#waiting.push(turn);
    });
  }

  #release(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active--;
      this.#waiting.shift()?.();
    };
  }
}

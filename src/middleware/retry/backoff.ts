/**
 * @module
 * Exponential backoff with full jitter (a uniformly random wait between 0 and the exponential
 * ceiling), with the randomness and the waiting injectable for tests.
 */

export interface BackoffOptions {
  /** The ceiling of the first wait, in ms. */
  readonly initialDelayMs: number;
  /** The ceiling never grows past this, in ms. */
  readonly maxDelayMs: number;
  /** How much the ceiling grows per retry. */
  readonly multiplier: number;
  /** A number in [0, 1). */
  readonly random: () => number;
}

/** The wait before retry number `retry` (1 for the first retry): `random() × min(max, initial × multiplier^(retry-1))`. */
export function backoffDelay(retry: number, options: BackoffOptions): number {
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * options.multiplier ** (retry - 1));
  return Math.floor(options.random() * ceiling);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

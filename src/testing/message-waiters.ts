import type { JsonObject } from '../message/jsonrpc.js';
import { withDeadline, type WaitOptions } from './with-deadline.js';

/**
 * Pending `waitFor`s of a test peer: each resolves with the first message after it that matches,
 * or rejects, naming what it waited for, when its deadline passes first.
 */
export class MessageWaiters {
  readonly #listeners = new Set<(message: JsonObject) => void>();
  readonly #timeoutMs: number | undefined;
  readonly #release: AbortSignal | undefined;

  /**
   * `timeoutMs`: the default deadline of every wait; `release`: aborted when the owner closes (see
   * {@link withDeadline}).
   */
  constructor(timeoutMs?: number, release?: AbortSignal) {
    this.#timeoutMs = timeoutMs;
    this.#release = release;
  }

  /**
   * Resolves with the first message (after now) for which `predicate` holds. `options.what` says
   * what that is in the error when none comes in time (default: the predicate's source).
   */
  waitFor(predicate: (message: JsonObject) => boolean, options: WaitOptions = {}): Promise<JsonObject> {
    let listener: ((message: JsonObject) => void) | undefined;
    const what = options.what ?? `a message matching ${describePredicate(predicate)}`;
    return withDeadline(
      new Promise<JsonObject>((resolve) => {
        listener = (message: JsonObject): void => {
          if (!predicate(message)) return;
          if (listener) this.#listeners.delete(listener);
          resolve(message);
        };
        this.#listeners.add(listener);
      }),
      { timeoutMs: this.#timeoutMs, ...options, what },
      {
        onTimeout: () => {
          if (listener) this.#listeners.delete(listener);
        },
        release: this.#release,
      },
    );
  }

  /** Offers a received message to every waiter. */
  deliver(message: JsonObject): void {
    for (const listener of [...this.#listeners]) listener(message);
  }

  /** How many waits are pending (a test can check it left none behind). */
  get pending(): number {
    return this.#listeners.size;
  }
}

/** The predicate's source, on one line and short: enough to tell which wait it was. */
function describePredicate(predicate: (message: JsonObject) => boolean): string {
  const source = String(predicate).replace(/\s+/g, ' ');
  return source.length > 160 ? `${source.slice(0, 157)}...` : source;
}

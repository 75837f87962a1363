import type { JsonObject } from '../message/jsonrpc.js';

/** Pending `waitFor`s of a test peer: each resolves with the first message after it that matches. */
export class MessageWaiters {
  readonly #listeners = new Set<(message: JsonObject) => void>();

  /** Resolves with the first message (after now) for which `predicate` holds. */
  waitFor(predicate: (message: JsonObject) => boolean): Promise<JsonObject> {
    return new Promise((resolve) => {
      const listener = (message: JsonObject): void => {
        if (!predicate(message)) return;
        this.#listeners.delete(listener);
        resolve(message);
      };
      this.#listeners.add(listener);
    });
  }

  /** Offers a received message to every waiter. */
  deliver(message: JsonObject): void {
    for (const listener of [...this.#listeners]) listener(message);
  }
}

/**
 * @module
 * Bounded keyed state for the rate limiter: a map that keeps at most `max` entries, forgetting
 * the least recently used one when a new key would go over.
 */

/** A map bounded to `max` entries, least recently used first out. */
export class BucketStore<V> {
  readonly #max: number;
  readonly #entries = new Map<string, V>();

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The entry for `key`, now the most recently used. While the store is under half full nothing
   * is near eviction and the order is left as it is (a use then costs one lookup); past that, a
   * used entry moves to the back.
   */
  get(key: string): V | undefined {
    const entries = this.#entries;
    const found = entries.get(key);
    if (found !== undefined && entries.size > this.#max >> 1) {
      entries.delete(key);
      entries.set(key, found);
    }
    return found;
  }

  /** Adds an entry for a new `key`, forgetting the least recently used one past `max`; returns `value`. */
  add(key: string, value: V): V {
    const entries = this.#entries;
    entries.set(key, value);
    if (entries.size > this.#max) {
      const oldest = entries.keys().next();
      if (oldest.done !== true) entries.delete(oldest.value);
    }
    return value;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}

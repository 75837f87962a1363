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

  /** The entry for `key` (now the most recently used), or a new one made by `make`. */
  use(key: string, make: () => V): V {
    const entries = this.#entries;
    const found = entries.get(key);
    if (found !== undefined) {
      entries.delete(key);
      entries.set(key, found);
      return found;
    }
    const made = make();
    entries.set(key, made);
    if (entries.size > this.#max) {
      const oldest = entries.keys().next();
      if (oldest.done !== true) entries.delete(oldest.value);
    }
    return made;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}

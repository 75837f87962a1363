/**
 * @module
 * A small cache bounded in entries (least recently used goes first) whose entries each expire at
 * their own time. Used for introspection results, keyed by a hash of the token.
 */

/** A bounded cache of values that expire. */
export class TtlLruCache<V> {
  readonly #entries = new Map<string, { readonly value: V; readonly until: number }>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  /** `maxEntries` at least 1; `now` is the clock (ms), `Date.now` by default. */
  constructor(maxEntries: number, now: () => number = Date.now) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  /** The value, when present and not expired (it becomes the most recently used). */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (this.#now() >= entry.until) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` until `until` (ms since the epoch); an entry already expired is not kept. */
  set(key: string, value: V, until: number): void {
    this.#entries.delete(key);
    if (this.#now() >= until) return;
    this.#entries.set(key, { value, until });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** How many entries are held (expired ones included until looked up or pushed out). */
  get size(): number {
    return this.#entries.size;
  }
}

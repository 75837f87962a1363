/**
 * @module
 * The cache's storage: entries in least-recently-used order, bounded in count and in bytes, each
 * with its own expiry.
 */

/** One stored value, with what the bounds and the invalidation need to know about it. */
export interface StoredEntry<V> {
  readonly value: V;
  /** The value's serialized size, in bytes. */
  readonly bytes: number;
  /** When it stops being served, on the store's clock (ms). */
  readonly expiresAt: number;
  /** Who may see it (an identity, a session, or everyone), for invalidation. */
  readonly partition: string;
  /** What it is (a list method, `resources/read`, `tools/call`), for invalidation. */
  readonly kind: string;
  /** The rest of the key (a cursor, a uri, a tool and its arguments). */
  readonly subject: string;
}

export interface LruStoreOptions {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/**
 * A map kept in least-recently-used order (a `Map` iterates in insertion order: a hit moves its
 * entry to the end, eviction takes from the front). Expired entries are dropped when read.
 */
export class LruStore<V> {
  readonly #entries = new Map<string, StoredEntry<V>>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;
  /** Entries dropped to make room (not those that expired or were invalidated). */
  evictions = 0;

  constructor(options: LruStoreOptions) {
    this.#maxEntries = options.maxEntries;
    this.#maxBytes = options.maxBytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The live entry at `key` (now the most recently used), or `undefined`; an expired one is dropped. */
  get(key: string, now: number): StoredEntry<V> | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= now) {
      this.#bytes -= entry.bytes;
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry;
  }

  /**
   * Stores `entry` at `key` as the most recently used, evicting the least recently used until both
   * bounds hold. An entry larger than the byte bound on its own is not stored (returns false).
   */
  set(key: string, entry: StoredEntry<V>): boolean {
    this.delete(key);
    if (entry.bytes > this.#maxBytes || this.#maxEntries < 1) return false;
    while (this.#entries.size >= this.#maxEntries || this.#bytes + entry.bytes > this.#maxBytes) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.delete(oldest.value);
      this.evictions++;
    }
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    return true;
  }

  delete(key: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    return true;
  }

  /** Drops every entry `predicate` accepts; returns how many. */
  deleteWhere(predicate: (entry: StoredEntry<V>) => boolean): number {
    let count = 0;
    for (const [key, entry] of this.#entries) {
      if (!predicate(entry)) continue;
      this.#entries.delete(key);
      this.#bytes -= entry.bytes;
      count++;
    }
    return count;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}

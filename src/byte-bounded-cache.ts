/**
 * A least-recently-used cache bounded by the bytes its entries hold, not by their number: one
 * entry can be a 40-byte robots verdict or a 5 MB rule set, so a count bound is either wasteful
 * or unbounded in memory (issue 28 §9). Sizes are the caller's estimate of each entry
 * (`approximateBytes` for parsed JSON); an entry larger than the whole bound is not kept.
 */
/** A kept entry, in a list from the least recently used (`#oldest`) to the most (`#newest`). */
interface Entry<K, V> {
  readonly key: K;
  value: V;
  bytes: number;
  older: Entry<K, V> | undefined;
  newer: Entry<K, V> | undefined;
}

export class ByteBoundedCache<K, V> {
  readonly #maxBytes: number;
  readonly #sizeOf: (value: V, key: K) => number;
  /**
   * Recency is a linked list, not the map's insertion order: dropping the map's oldest entries
   * (delete, then iterate from the start) left deleted slots at the front of V8's table that
   * every later iteration stepped over until the table was rebuilt, ~7 µs per `set` at 20,000
   * entries with a cache that keeps evicting (the matcher's profile cache).
   */
  readonly #entries = new Map<K, Entry<K, V>>();
  #oldest: Entry<K, V> | undefined;
  #newest: Entry<K, V> | undefined;
  #bytes = 0;

  /** `maxBytes`: the bound; `sizeOf`: an entry's estimated size in bytes. */
  constructor(maxBytes: number, sizeOf: (value: V, key: K) => number) {
    this.#maxBytes = maxBytes;
    this.#sizeOf = sizeOf;
  }

  /** The value of `key` (now the most recently used), or `undefined`. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry !== this.#newest) {
      this.#unlink(entry);
      this.#append(entry);
    }
    return entry.value;
  }

  /** The value of `key` without changing its place (a read that should not keep it). */
  peek(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** Keeps `value` under `key`, dropping the least recently used entries beyond the bound. */
  set(key: K, value: V): void {
    this.delete(key);
    const bytes = this.#sizeOf(value, key);
    if (bytes > this.#maxBytes) return;
    const entry: Entry<K, V> = { key, value, bytes, older: undefined, newer: undefined };
    this.#entries.set(key, entry);
    this.#append(entry);
    this.#bytes += bytes;
    while (this.#bytes > this.#maxBytes && this.#oldest) this.delete(this.#oldest.key);
  }

  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return false;
    this.#entries.delete(key);
    this.#unlink(entry);
    this.#bytes -= entry.bytes;
    return true;
  }

  clear(): void {
    this.#entries.clear();
    this.#oldest = undefined;
    this.#newest = undefined;
    this.#bytes = 0;
  }

  /** Entries kept. */
  get size(): number {
    return this.#entries.size;
  }

  /** Their estimated bytes (never above the bound). */
  get bytes(): number {
    return this.#bytes;
  }

  #unlink(entry: Entry<K, V>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.#oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.#newest = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }

  #append(entry: Entry<K, V>): void {
    entry.older = this.#newest;
    if (this.#newest) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
  }
}

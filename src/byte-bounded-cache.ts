/**
 * A least-recently-used cache bounded by the bytes its entries hold, not by their number: one
 * entry can be a 40-byte robots verdict or a 5 MB rule set, so a count bound is either wasteful
 * or unbounded in memory (issue 28 §9). Sizes are the caller's estimate of each entry
 * (`approximateBytes` for parsed JSON); an entry larger than the whole bound is not kept.
 */
export class ByteBoundedCache<K, V> {
  readonly #maxBytes: number;
  readonly #sizeOf: (value: V, key: K) => number;
  readonly #entries = new Map<K, { value: V; bytes: number }>();
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
    this.#entries.delete(key);
    this.#entries.set(key, entry);
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
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }

  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return false;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    return true;
  }

  clear(): void {
    this.#entries.clear();
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
}

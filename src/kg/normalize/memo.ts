/**
 * A bounded memo for normalisers whose inputs repeat (country, region and city names, hosts):
 * each distinct input is computed once, and the whole memo is dropped when what it holds reaches
 * `maxBytes`, so memory stays bounded however many distinct inputs pass, and however long they
 * are (a count of entries was no bound on memory: a request's place names may be 100 KB each).
 */
export class BoundedMemo<T> {
  readonly #maxBytes: number;
  readonly #valueBytes: (value: T) => number;
  readonly #values = new Map<string, T>();
  #bytes = 0;

  /**
   * `maxBytes`: the bound, estimated as each key's and value's UTF-16 size plus a per-entry
   * overhead; `valueBytes` estimates a value that is not a string (default 64).
   */
  constructor(maxBytes: number, valueBytes: (value: T) => number = () => 64) {
    this.#maxBytes = maxBytes;
    this.#valueBytes = valueBytes;
  }

  /** The value remembered for `key`, else `compute()` (then remembered). */
  get(key: string, compute: () => T): T {
    // One lookup for a remembered value; `has` only to tell a remembered `undefined` from none.
    const known = this.#values.get(key);
    if (known !== undefined || this.#values.has(key)) return known as T;
    const value = compute();
    const bytes =
      48 + 2 * key.length + (typeof value === 'string' ? 2 * value.length : this.#valueBytes(value));
    if (bytes > this.#maxBytes) return value;
    if (this.#bytes + bytes > this.#maxBytes) {
      this.#values.clear();
      this.#bytes = 0;
    }
    this.#values.set(key, value);
    this.#bytes += bytes;
    return value;
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.#bytes;
  }
}

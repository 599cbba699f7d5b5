/**
 * A bounded memo for normalisers whose inputs repeat (country, region and city names, hosts):
 * each distinct input is computed once, and the whole memo is dropped when it reaches `capacity`
 * entries, so memory stays bounded however many distinct inputs pass.
 */
export class BoundedMemo<T> {
  readonly #capacity: number;
  readonly #values = new Map<string, T>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** The value remembered for `key`, else `compute()` (then remembered). */
  get(key: string, compute: () => T): T {
    // One lookup for a remembered value; `has` only to tell a remembered `undefined` from none.
    const known = this.#values.get(key);
    if (known !== undefined || this.#values.has(key)) return known as T;
    const value = compute();
    if (this.#values.size >= this.#capacity) this.#values.clear();
    this.#values.set(key, value);
    return value;
  }
}

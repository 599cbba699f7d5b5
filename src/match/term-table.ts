/**
 * An immutable table of terms and their counts in shared memory, so that every thread of the
 * process reads one copy: a matcher's vocabularies on the 1M + 1M demo graph hold ~1.5M terms,
 * about 120 MiB as JS maps in each thread, and took ~4 s to load in each.
 *
 * Layout (all in `SharedArrayBuffer`s, so posting the table to another thread copies nothing):
 * the terms' UTF-16 code units end to end (`chars`) with `offsets` (n + 1 entries) and `counts`;
 * an open-addressing hash index (`slots`: term index + 1 and a tag of the term's hash above it,
 * `slotEntry`; 0 = empty) over a mixed polynomial hash of the code units (`polynomialHash`). Terms are stored in order of (first code unit,
 * length), and `buckets` lists, per such pair, the range of terms it holds, for scans of terms
 * "of about this length with this initial".
 */

/** The plain data of a table: structured-clonable, shared buffers not copied. */
export interface TermTableData {
  readonly chars: Uint16Array;
  readonly offsets: Uint32Array;
  readonly counts: Int32Array;
  readonly slots: Int32Array;
  /**
   * Two bits per slot, set at the low bits of each term's mixed hash (one bit more than a slot
   * index takes): a lookup whose bit is clear is no term, known from an array 16 times smaller
   * than `slots` (~1 MiB for a 1M + 1M vocabulary, which stays in cache where `slots` does not).
   */
  readonly filter: Int32Array;
  /** `[first code unit, length, start, end)` quadruples, flattened. */
  readonly buckets: Int32Array;
}

/**
 * The slots' hash: a polynomial over the code units (`h = h * HASH_BASE + unit`, mod 2^32),
 * mixed at the end (`mixHash`, so that the low bits the mask keeps depend on every unit). Being
 * polynomial, the hash of a one-edit variant of a token follows from the token's prefix and
 * suffix hashes in a few operations (`Vocabulary.neighbours` looks up hundreds of variants),
 * where FNV-1a had to rehash each variant whole.
 */
export const HASH_BASE = 0x01000193;

/** The polynomial hash of `codes[start, start + length)`, before `mixHash`. */
function polynomialHash(codes: Uint16Array, start: number, length: number): number {
  let h = 0;
  for (let j = start; j < start + length; j++) h = (Math.imul(h, HASH_BASE) + codes[j]) | 0;
  return h;
}

/** The finalizer of MurmurHash3 (fmix32). */
function mixHash(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Bits of a slot entry that hold a term's index + 1 in a table of `size` terms; the bits above
 * them (up to 31) hold a tag of the term's hash. A lookup compares the tags first: most of
 * `Vocabulary.neighbours`' hundreds of variants per token are no term, and a slot holding
 * another term was told apart only by reading that term's offsets, a cache miss in a table of
 * millions of terms (its `#findNeighbours` was ~5% of a 1M + 1M query). A table too large for
 * a tag (2^30 terms) still works: its tags are 0.
 */
function indexBits(size: number): number {
  return Math.max(1, Math.ceil(Math.log2(size + 2)));
}

/** The slot entry of the term at `index` with mixed hash `mixed`. */
function slotEntry(index: number, mixed: number, bits: number): number {
  return bits >= 31 ? index + 1 : (index + 1) | ((mixed >>> (bits + 1)) << bits);
}

function sharedArray<T extends Uint16Array | Uint32Array | Int32Array>(
  Kind: { new (buffer: SharedArrayBuffer): T; readonly BYTES_PER_ELEMENT: number },
  length: number,
): T {
  return new Kind(new SharedArrayBuffer(Math.max(1, length) * Kind.BYTES_PER_ELEMENT));
}

const bucketKey = (first: number, length: number) => first * 65_536 + Math.min(length, 65_535);

export class TermTable {
  readonly data: TermTableData;
  readonly #mask: number;
  /** `indexBits` of the table: below them a slot entry's index + 1, above them its tag. */
  readonly #indexBits: number;
  readonly #indexMask: number;
  /** The bits of a mixed hash that pick its bit of `filter`. */
  readonly #filterMask: number;
  readonly #buckets: Map<number, readonly [number, number]>;
  /** `get`'s buffer for the code units of the term looked up. */
  #scratch = new Uint16Array(64);

  /** Builds a table from `(term, count)` pairs (terms distinct and non-empty). */
  static build(entries: Iterable<readonly [string, number]>): TermTable {
    // Sorted by (first code unit, length, term): buckets are contiguous, a repeated term is
    // next to its first statement (kept; the sort is stable) and dropped.
    const pairs = [...entries].filter(([term]) => term.length > 0);
    pairs.sort(
      ([a], [b]) => a.charCodeAt(0) - b.charCodeAt(0) || a.length - b.length || (a < b ? -1 : a > b ? 1 : 0),
    );
    const terms: string[] = [];
    const termCounts: number[] = [];
    for (const [term, count] of pairs) {
      if (terms.length > 0 && terms[terms.length - 1] === term) continue;
      terms.push(term);
      termCounts.push(count);
    }
    pairs.length = 0;
    let units = 0;
    for (const term of terms) units += term.length;
    const chars = sharedArray(Uint16Array, units);
    const offsets = sharedArray(Uint32Array, terms.length + 1);
    const counts = sharedArray(Int32Array, terms.length);
    let capacity = 16;
    while (capacity < terms.length * 2) capacity *= 2;
    const slots = sharedArray(Int32Array, capacity);
    const filter = sharedArray(Int32Array, capacity / 16);
    const bits = indexBits(terms.length);
    const buckets: number[] = [];
    let at = 0;
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i];
      offsets[i] = at;
      for (let j = 0; j < term.length; j++) chars[at + j] = term.charCodeAt(j);
      at += term.length;
      counts[i] = termCounts[i];
      const mixed = mixHash(polynomialHash(chars, offsets[i], term.length));
      let slot = mixed & (capacity - 1);
      while (slots[slot] !== 0) slot = (slot + 1) & (capacity - 1);
      slots[slot] = slotEntry(i, mixed, bits);
      const bit = mixed & (2 * capacity - 1);
      filter[bit >>> 5] |= 1 << (bit & 31);
      const first = term.charCodeAt(0);
      const last = buckets.length - 4;
      if (last >= 0 && buckets[last] === first && buckets[last + 1] === term.length)
        buckets[last + 3] = i + 1;
      else buckets.push(first, term.length, i, i + 1);
    }
    offsets[terms.length] = at;
    const bucketArray = sharedArray(Int32Array, buckets.length);
    bucketArray.set(buckets);
    return new TermTable({ chars, offsets, counts, slots, filter, buckets: bucketArray });
  }

  constructor(data: TermTableData) {
    this.data = data;
    this.#mask = data.slots.length - 1;
    this.#indexBits = indexBits(data.offsets.length - 1);
    this.#indexMask = this.#indexBits >= 31 ? 0x7fffffff : 2 ** this.#indexBits - 1;
    this.#filterMask = data.filter.length * 32 - 1;
    this.#buckets = new Map();
    const b = data.buckets;
    for (let i = 0; i + 3 < b.length; i += 4)
      this.#buckets.set(bucketKey(b[i], b[i + 1]), [b[i + 2], b[i + 3]]);
  }

  /** Number of terms. */
  get size(): number {
    return this.data.offsets.length - 1;
  }

  /** The count of `term`, undefined when the table does not hold it. */
  get(term: string): number | undefined {
    const length = term.length;
    if (this.#scratch.length < length) this.#scratch = new Uint16Array(length * 2);
    const codes = this.#scratch;
    for (let j = 0; j < length; j++) codes[j] = term.charCodeAt(j);
    return this.getCodes(codes, length);
  }

  /**
   * The count of the term whose UTF-16 code units are `codes[0, length)`, without making it a
   * string (typo tolerance looks up hundreds of variants of a token, most of them no term).
   */
  getCodes(codes: Uint16Array, length: number): number | undefined {
    return this.getHashed(codes, length, polynomialHash(codes, 0, length));
  }

  /** `getCodes`, given the code units' `polynomialHash` (computed from a related term's). */
  getHashed(codes: Uint16Array, length: number, hash: number): number | undefined {
    const { slots, offsets, chars, counts, filter } = this.data;
    const mixed = mixHash(hash);
    const bit = mixed & this.#filterMask;
    if ((filter[bit >>> 5] & (1 << (bit & 31))) === 0) return undefined;
    const indexMask = this.#indexMask;
    // The entry this term would have at its index: equal above `indexMask` (the tag) or not it.
    const tag = slotEntry(0, mixed, this.#indexBits) & ~indexMask;
    let slot = mixed & this.#mask;
    for (;;) {
      const entry = slots[slot];
      if (entry === 0) return undefined;
      if ((entry & ~indexMask) !== tag) {
        slot = (slot + 1) & this.#mask;
        continue;
      }
      const index = (entry & indexMask) - 1;
      const start = offsets[index];
      if (offsets[index + 1] - start === length) {
        let same = true;
        for (let j = 0; j < length; j++) {
          if (chars[start + j] !== codes[j]) {
            same = false;
            break;
          }
        }
        if (same) return counts[index];
      }
      slot = (slot + 1) & this.#mask;
    }
  }

  /** The term at `index` (0 ≤ index < size). */
  term(index: number): string {
    const { offsets, chars } = this.data;
    return String.fromCharCode(...chars.subarray(offsets[index], offsets[index + 1]));
  }

  count(index: number): number {
    return this.data.counts[index];
  }

  /** Indexes `[start, end)` of the terms starting with code unit `first` and of `length` units. */
  bucket(first: number, length: number): readonly [number, number] {
    return this.#buckets.get(bucketKey(first, length)) ?? [0, 0];
  }
}

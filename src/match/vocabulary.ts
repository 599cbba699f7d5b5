/**
 * The name-token vocabulary of one entity type: document frequencies for IDF weights, and
 * typo tolerance (a query token missing from the vocabulary is replaced by the vocabulary
 * tokens one edit away).
 */

import { approximateBytes } from '../approximate-bytes.ts';
import { ByteBoundedCache } from '../byte-bounded-cache.ts';
import { editDistance } from './similarity.ts';
import { HASH_BASE, TermTable } from './term-table.ts';

const ALPHABET_CODES = Uint16Array.from('abcdefghijklmnopqrstuvwxyz', (ch) => ch.charCodeAt(0));
/**
 * Bytes of remembered neighbours per vocabulary (queries repeat common tokens): 10,000–20,000
 * ordinary tokens (100–200 bytes each, `neighbourEntryBytes`), least recently used out. Was
 * 20,000 tokens emptied whole when full (10,000 held on average), whatever their length
 * (issue 28 §9).
 */
const NEIGHBOUR_CACHE_BYTES = 2 * 2 ** 20;
/**
 * Longest token given typo neighbours. Looking them up costs ~54 variants per character, each
 * hashed whole: quadratic in the length (a 2,000-character name, one token, took 2 s of an
 * enhance thread). No word that long is a typo worth correcting.
 */
const MAX_NEIGHBOUR_TOKEN = 64;
/** Most vocabulary tokens compared when looking for two-edit corrections. */
const MAX_TWO_EDIT_SCAN = 3000;

export class Vocabulary {
  /** The terms and their counts, in shared memory (one copy for every thread, see term-table.ts). */
  readonly table: TermTable;
  readonly #neighbourCache: ByteBoundedCache<string, string[]>;
  /** Number of entities the frequencies are out of. */
  readonly size: number;
  /** IDF of a token nobody carries: the largest possible weight. */
  readonly maxIdf: number;

  /** `neighbourCacheBytes`: the bound of remembered neighbours (tests; default 2 MiB). */
  constructor(
    counts: TermTable | ReadonlyMap<string, number>,
    entities: number,
    neighbourCacheBytes = NEIGHBOUR_CACHE_BYTES,
  ) {
    this.#neighbourCache = new ByteBoundedCache(neighbourCacheBytes, neighbourEntryBytes);
    this.table = counts instanceof TermTable ? counts : TermTable.build(counts);
    this.size = Math.max(1, entities);
    this.maxIdf = Math.log(this.size + 1);
  }

  /** Entities carrying `token` (0 when unknown). */
  count(token: string): number {
    return this.table.get(token) ?? 0;
  }

  /** Inverse document frequency, `ln((N + 1) / (df + 1))`, at least 0.05. */
  idf(token: string): number {
    return Math.max(0.05, Math.log((this.size + 1) / (this.count(token) + 1)));
  }

  /**
   * Vocabulary tokens one edit (insert, delete, substitute, transpose) from `token`, most
   * frequent first, at most `limit`. Only for tokens of 4 to 64 characters: shorter ones have
   * too many neighbours to be a reliable correction, longer ones cost too much to look up.
   */
  neighbours(token: string, limit = 4): string[] {
    if (token.length < 4 || token.length > MAX_NEIGHBOUR_TOKEN) return [];
    const key = `${limit}:${token}`;
    const cached = this.#neighbourCache.get(key);
    if (cached) return cached;
    const found = this.#findNeighbours(token, limit);
    this.#neighbourCache.set(key, found);
    return found;
  }

  /** Bytes of remembered neighbours (estimated), never above the bound. */
  get neighbourCacheBytes(): number {
    return this.#neighbourCache.bytes;
  }

  #findNeighbours(token: string, limit: number): string[] {
    const found = new Map<string, number>();
    // Each variant is written into `codes` and looked up as code units: only the few that are
    // terms become strings (a 7-letter token has ~400 variants). Its hash is made from the
    // token's prefix and suffix hashes (term-table.ts's polynomial hash), not from every unit.
    const n = token.length;
    const codes = new Uint16Array(n + 1);
    const units = new Uint16Array(n);
    for (let j = 0; j < n; j++) units[j] = token.charCodeAt(j);
    // prefix[i]: hash of units[0, i); suffix[i]: of units[i, n); power[k]: HASH_BASE^k (mod 2^32).
    const prefix = new Int32Array(n + 1);
    const suffix = new Int32Array(n + 2);
    const power = new Int32Array(n + 2);
    power[0] = 1;
    for (let k = 1; k <= n + 1; k++) power[k] = Math.imul(power[k - 1], HASH_BASE);
    for (let i = 0; i < n; i++) prefix[i + 1] = (Math.imul(prefix[i], HASH_BASE) + units[i]) | 0;
    for (let i = n - 1; i >= 0; i--) suffix[i] = (Math.imul(units[i], power[n - 1 - i]) + suffix[i + 1]) | 0;
    const whole = prefix[n];
    const consider = (length: number, hash: number) => {
      const count = this.table.getHashed(codes, length, hash);
      if (count === undefined) return;
      const candidate = String.fromCharCode(...codes.subarray(0, length));
      if (candidate !== token && !found.has(candidate)) found.set(candidate, count);
    };
    const spell = (from: number, to: number, at: number) => {
      for (let j = from; j < to; j++) codes[at + j - from] = units[j];
    };
    for (let i = 0; i < n; i++) {
      // Deleted, then transposed with the next, then substituted.
      spell(0, i, 0);
      spell(i + 1, n, i);
      consider(n - 1, (Math.imul(prefix[i], power[n - 1 - i]) + suffix[i + 1]) | 0);
      spell(0, n, 0);
      if (i + 1 < n) {
        codes[i] = units[i + 1];
        codes[i + 1] = units[i];
        const swapped =
          Math.imul(prefix[i], power[n - i]) +
          Math.imul(units[i + 1], power[n - i - 1]) +
          Math.imul(units[i], power[n - i - 2]) +
          suffix[i + 2];
        consider(n, swapped | 0);
        spell(i, i + 2, i);
      }
      const weight = power[n - 1 - i];
      const without = (whole - Math.imul(units[i], weight)) | 0;
      for (let c = 0; c < ALPHABET_CODES.length; c++) {
        codes[i] = ALPHABET_CODES[c];
        consider(n, (without + Math.imul(ALPHABET_CODES[c], weight)) | 0);
      }
    }
    for (let i = 0; i <= n; i++) {
      // Inserted before position i.
      spell(0, i, 0);
      spell(i, n, i + 1);
      const head = (Math.imul(prefix[i], power[n - i + 1]) + suffix[i]) | 0;
      const weight = power[n - i];
      for (let c = 0; c < ALPHABET_CODES.length; c++) {
        codes[i] = ALPHABET_CODES[c];
        consider(n + 1, (head + Math.imul(ALPHABET_CODES[c], weight)) | 0);
      }
    }
    if (found.size === 0 && token.length >= 6) this.#twoEdits(token, found);
    return [...found.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, limit)
      .map(([candidate]) => candidate);
  }

  /**
   * Tokens two edits away, among those with the same first letter and a length within ±1
   * (the table's buckets by first letter and length keep the scan short on large vocabularies).
   */
  #twoEdits(token: string, found: Map<string, number>): void {
    const first = token.charCodeAt(0);
    const ranges = [-1, 0, 1].map((d) => this.table.bucket(first, token.length + d));
    // Bounded work: on a very large vocabulary (e-mail words) the scan would cost milliseconds.
    if (ranges.reduce((n, [start, end]) => n + end - start, 0) > MAX_TWO_EDIT_SCAN) return;
    for (const [start, end] of ranges) {
      for (let i = start; i < end; i++) {
        const term = this.table.term(i);
        if (term.length >= 5 && editDistance(token, term, 2) <= 2) found.set(term, this.table.count(i));
      }
    }
  }
}

/** A remembered neighbour list's estimated heap: its map slot, the key, the array. */
function neighbourEntryBytes(found: string[], key: string): number {
  return 48 + 16 + key.length + approximateBytes(found);
}

/**
 * The name-token vocabulary of one entity type: document frequencies for IDF weights, and
 * typo tolerance (a query token missing from the vocabulary is replaced by the vocabulary
 * tokens one edit away).
 */

import { editDistance } from './similarity.ts';
import { TermTable } from './term-table.ts';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';
/** Tokens whose neighbours are remembered, per vocabulary (queries repeat common tokens). */
const NEIGHBOUR_CACHE_SIZE = 20_000;
/** Most vocabulary tokens compared when looking for two-edit corrections. */
const MAX_TWO_EDIT_SCAN = 3000;

export class Vocabulary {
  /** The terms and their counts, in shared memory (one copy for every thread, see term-table.ts). */
  readonly table: TermTable;
  #neighbourCache = new Map<string, string[]>();
  /** Number of entities the frequencies are out of. */
  readonly size: number;
  /** IDF of a token nobody carries: the largest possible weight. */
  readonly maxIdf: number;

  constructor(counts: TermTable | ReadonlyMap<string, number>, entities: number) {
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
   * frequent first, at most `limit`. Only for tokens of 4+ characters: shorter ones have too
   * many neighbours to be a reliable correction.
   */
  neighbours(token: string, limit = 4): string[] {
    if (token.length < 4) return [];
    const key = `${limit}:${token}`;
    const cached = this.#neighbourCache.get(key);
    if (cached) return cached;
    const found = this.#findNeighbours(token, limit);
    if (this.#neighbourCache.size >= NEIGHBOUR_CACHE_SIZE) this.#neighbourCache.clear();
    this.#neighbourCache.set(key, found);
    return found;
  }

  #findNeighbours(token: string, limit: number): string[] {
    const found = new Map<string, number>();
    const consider = (candidate: string) => {
      if (candidate === token || found.has(candidate)) return;
      const n = this.table.get(candidate);
      if (n !== undefined) found.set(candidate, n);
    };
    for (let i = 0; i < token.length; i++) {
      consider(token.slice(0, i) + token.slice(i + 1));
      if (i + 1 < token.length) consider(token.slice(0, i) + token[i + 1] + token[i] + token.slice(i + 2));
      for (const ch of ALPHABET) consider(token.slice(0, i) + ch + token.slice(i + 1));
    }
    for (let i = 0; i <= token.length; i++)
      for (const ch of ALPHABET) consider(token.slice(0, i) + ch + token.slice(i));
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

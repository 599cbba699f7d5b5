/**
 * A candidate source whose graph version lags the store's by at most `maxLagMs`, for the
 * matchers refresh and search make on the main thread (one per answer: postings and profiles
 * are read from the store as it is now). Every refresh or search that stores an entity changes
 * the graph version, and term vocabularies follow the version: a matcher over the store itself
 * would rebuild them (a scan of every key of a kind) after each such write — measured on a
 * 10,000-entity graph, a fifth of the main thread's time in a bulk job with refresh. Over this
 * source they are rebuilt at most once per `maxLagMs`; until then the words of entities stored
 * meanwhile weigh as unseen words (their exact keys — whole name, host, phone — are found as
 * always). Scores differ from an up-to-date vocabulary's in the last digits at most.
 */
import type { CandidateSource } from '../match/index.ts';

/** How stale the vocabularies of refresh and search matchers may get. */
export const DEFAULT_MAX_LAG_MS = 30_000;

export class LaggingVersionSource implements CandidateSource {
  readonly #base: CandidateSource;
  readonly #maxLagMs: number;
  readonly #now: () => number;
  #pinned: string | undefined;
  #pinnedAt = 0;
  /** Vocabularies at a lagging version lack the words of entities stored since. */
  readonly partialTermCounts = true;

  constructor(base: CandidateSource, options: { maxLagMs?: number; now?: () => number } = {}) {
    this.#base = base;
    this.#maxLagMs = options.maxLagMs ?? DEFAULT_MAX_LAG_MS;
    this.#now = options.now ?? Date.now;
  }

  version(): string {
    const now = this.#now();
    if (this.#pinned === undefined || now - this.#pinnedAt >= this.#maxLagMs) {
      this.#pinned = this.#base.version();
      this.#pinnedAt = now;
    }
    return this.#pinned;
  }

  refsForKeys(keys: readonly string[], limitPerKey: number): Map<string, number[]> {
    return this.#base.refsForKeys(keys, limitPerKey);
  }

  profiles(refs: readonly number[]) {
    return this.#base.profiles(refs);
  }

  termCounts(prefix: string): Map<string, number> {
    return this.#base.termCounts(prefix);
  }

  counts() {
    return this.#base.counts();
  }
}

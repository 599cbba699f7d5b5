/**
 * What page outcomes add to their jobs' counters (docs/api.md#counters), in one place: every
 * store adapter sums the outcomes it applied with `CrawlCounterDeltas` and adds each job's sums
 * in the transaction that records them (one update per job). The crawl side says what happened
 * to a page (`CrawlPageOutcome`); only this rule turns that into counts.
 */
import type { CrawlPageOutcome } from './ports.ts';

/** What a batch of outcomes adds to one job's counters. */
export interface CrawlCounterDelta {
  /** `pageCrawlAttempts`: every request made (retries, and redirect hops robots.txt refused). */
  readonly crawlAttempts: number;
  /** `pageCrawlSuccesses` and this round's: pages fetched with a 2xx answer. */
  readonly crawlSuccesses: number;
  /** `pageProcessAttempts`: pages extraction ran on. */
  readonly processAttempts: number;
  /** `pageProcessSuccesses` and this round's: pages extracted. */
  readonly processSuccesses: number;
  /** `objectsFound`. */
  readonly objects: number;
}

/** Sums of applied outcomes per job. */
export class CrawlCounterDeltas {
  readonly #byJob = new Map<number, CrawlCounterDelta>();

  /** Counts an outcome the store applied (its claim still held). */
  add(outcome: CrawlPageOutcome): void {
    const sum = this.#byJob.get(outcome.jobId);
    this.#byJob.set(outcome.jobId, {
      crawlAttempts: (sum?.crawlAttempts ?? 0) + outcome.crawlAttempts,
      crawlSuccesses: (sum?.crawlSuccesses ?? 0) + (outcome.crawled ? 1 : 0),
      processAttempts: (sum?.processAttempts ?? 0) + (outcome.processAttempted ? 1 : 0),
      processSuccesses: (sum?.processSuccesses ?? 0) + (outcome.processed ? 1 : 0),
      objects: (sum?.objects ?? 0) + outcome.objects.length,
    });
  }

  /** Each job's sums, jobs in the order first seen. */
  entries(): IterableIterator<[number, CrawlCounterDelta]> {
    return this.#byJob.entries();
  }
}

/**
 * Batches page outcomes into store transactions. Each page's outcome (URL state, counter
 * increments, objects, graph ingestion) is applied whole or not at all; grouping many pages
 * per transaction keeps 500+ pages/s cheap. A crash loses at most the last unwritten batch:
 * those URLs are still claimed in the store, go back to pending at start-up and are fetched
 * and counted again — once.
 */
import type { Logger } from '../logging.ts';
import type { CrawlJobStore, CrawlPageOutcome, Storage } from '../storage/index.ts';
import type { ExtractedObject, GraphIngester } from './dependencies.ts';

/** An outcome with what must happen along with it. */
export interface PendingOutcome {
  readonly outcome: CrawlPageOutcome;
  readonly hostId: number;
  /** Objects to merge into the graph in the same transaction, stated by `origin`. */
  readonly ingest?: { readonly objects: readonly ExtractedObject[]; readonly origin: string };
}

export interface OutcomeWriterOptions {
  readonly storage: Pick<Storage, 'transaction'> & { readonly crawlJobs: CrawlJobStore };
  readonly ingester?: GraphIngester;
  readonly logger: Logger;
  /** Longest time an outcome waits before being written, ms. */
  readonly flushIntervalMs: number;
  /** Outcomes that trigger a write at once. */
  readonly flushBatch: number;
  /** Called after each successful write with the outcomes and whether each applied. */
  readonly onWritten: (written: readonly PendingOutcome[], applied: readonly boolean[]) => void;
}

/** Collects outcomes and writes them in batches; `flush()` writes what is waiting now. */
export class OutcomeWriter {
  readonly #options: OutcomeWriterOptions;
  #buffer: PendingOutcome[] = [];
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;

  constructor(options: OutcomeWriterOptions) {
    this.#options = options;
  }

  /** Outcomes waiting to be written. */
  get pending(): number {
    return this.#buffer.length;
  }

  /** Whether an outcome of `jobId` waits to be written. */
  hasPendingFor(jobId: number): boolean {
    return this.#buffer.some((entry) => entry.outcome.jobId === jobId);
  }

  add(entry: PendingOutcome): void {
    this.#buffer.push(entry);
    if (this.#buffer.length >= this.#options.flushBatch) {
      this.flush();
    } else if (!this.#timer) {
      this.#timer = setTimeout(() => this.flush(), this.#options.flushIntervalMs);
    }
  }

  /**
   * Writes every waiting outcome in one transaction. When the store fails (e.g. the disk is
   * full), nothing of the batch is applied: it stays buffered and is retried with backoff.
   */
  flush(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#buffer.length === 0) return;
    const batch = this.#buffer;
    this.#buffer = [];
    const { storage, ingester } = this.#options;
    let applied: boolean[];
    try {
      applied = storage.transaction(() => {
        const result = storage.crawlJobs.recordOutcomes(batch.map((entry) => entry.outcome));
        if (ingester) {
          batch.forEach((entry, i) => {
            if (!result[i] || !entry.ingest || entry.ingest.objects.length === 0) return;
            // One page's objects that the graph refuses must not block every other page's outcome.
            try {
              ingester.ingest(entry.ingest.objects, entry.ingest.origin);
            } catch (error) {
              this.#options.logger.warn(
                { err: error, origin: entry.ingest.origin },
                'crawl: merging extracted objects into the knowledge graph failed',
              );
            }
          });
        }
        return result;
      });
    } catch (error) {
      this.#buffer = [...batch, ...this.#buffer];
      this.#failures++;
      this.#options.logger.error(
        { err: error, outcomes: batch.length },
        'crawl: writing page outcomes failed',
      );
      const delay = Math.min(5_000, this.#options.flushIntervalMs * 2 ** this.#failures);
      this.#timer ??= setTimeout(() => this.flush(), delay);
      return;
    }
    this.#failures = 0;
    this.#options.onWritten(batch, applied);
  }

  /** Stops the timer after a last write. */
  close(): void {
    this.flush();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

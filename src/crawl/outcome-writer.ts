/**
 * Batches page outcomes into store transactions. Each page's outcome (URL state, counter
 * increments, objects, graph ingestion) is applied whole or not at all; grouping many pages
 * per transaction keeps hundreds of pages per second cheap. A crash loses at most the batches
 * not yet committed: those URLs are still claimed in the store, go back to pending at start-up
 * and are fetched and counted again — once.
 *
 * Where the transaction runs is the sink's business: in this thread (`StoreOutcomeSink`) or in
 * a writer thread with its own connection (`ThreadOutcomeSink`), which keeps commits and WAL
 * checkpoints (tens of MB/s of extracted objects) off the thread that fetches.
 */
import type { Logger } from '../logging.ts';
import type { CrawlPageOutcome, Storage } from '../storage/index.ts';
import type { ExtractedObject, GraphIngester } from './dependencies.ts';

/** An outcome with what must happen along with it. */
export interface PendingOutcome {
  readonly outcome: CrawlPageOutcome;
  readonly hostId: number;
  /** Objects to merge into the graph in the same transaction, stated by `origin`. */
  readonly ingest?: { readonly objects: readonly ExtractedObject[]; readonly origin: string };
}

/** Applies a batch of outcomes in one transaction; resolves with whether each applied. */
export interface OutcomeSink {
  apply(batch: readonly PendingOutcome[]): Promise<boolean[]>;
  close(): Promise<void>;
}

/**
 * Applies a batch in one transaction of `storage`: the outcomes, then the graph ingestion of
 * those that applied. One page's objects that the graph refuses do not block the others.
 */
export function applyOutcomes(
  storage: Pick<Storage, 'transaction'>,
  batch: readonly PendingOutcome[],
  ingester: GraphIngester | undefined,
  logger: Pick<Logger, 'warn'>,
): Promise<boolean[]> {
  // The ingester writes through the store's synchronous `entities`, which join the transaction
  // (docs of `Storage.transaction`).
  return storage.transaction(async (tx) => {
    const applied = await tx.crawlJobs.recordOutcomes(batch.map((entry) => entry.outcome));
    if (ingester) {
      batch.forEach((entry, i) => {
        if (!applied[i] || !entry.ingest || entry.ingest.objects.length === 0) return;
        try {
          ingester.ingest(entry.ingest.objects, entry.ingest.origin);
        } catch (error) {
          logger.warn(
            { err: error, origin: entry.ingest.origin },
            'crawl: merging extracted objects into the knowledge graph failed',
          );
        }
      });
    }
    return applied;
  });
}

/** Writes in the calling thread, through the given storage. */
export class StoreOutcomeSink implements OutcomeSink {
  readonly #storage: Pick<Storage, 'transaction'>;
  readonly #ingester: GraphIngester | undefined;
  readonly #logger: Logger;

  constructor(options: {
    storage: Pick<Storage, 'transaction'>;
    ingester?: GraphIngester;
    logger: Logger;
  }) {
    this.#storage = options.storage;
    this.#ingester = options.ingester;
    this.#logger = options.logger;
  }

  async apply(batch: readonly PendingOutcome[]): Promise<boolean[]> {
    return applyOutcomes(this.#storage, batch, this.#ingester, this.#logger);
  }

  async close(): Promise<void> {}
}

export interface OutcomeWriterOptions {
  readonly sink: OutcomeSink;
  readonly logger: Logger;
  /** Longest time an outcome waits before being written, ms. */
  readonly flushIntervalMs: number;
  /** Outcomes written per transaction at most; this many waiting triggers a write at once. */
  readonly flushBatch: number;
  /** Called after each successful write with the outcomes and whether each applied. */
  readonly onWritten: (written: readonly PendingOutcome[], applied: readonly boolean[]) => void;
}

/**
 * Collects outcomes and writes them in batches, one batch at a time. When the store fails
 * (e.g. the disk is full), the batch stays waiting and is tried again with backoff.
 */
export class OutcomeWriter {
  readonly #options: OutcomeWriterOptions;
  #buffer: PendingOutcome[] = [];
  #writing: readonly PendingOutcome[] | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;
  #idle: Array<() => void> = [];

  constructor(options: OutcomeWriterOptions) {
    this.#options = options;
  }

  /** Outcomes not yet written (waiting or being written). */
  get pending(): number {
    return this.#buffer.length + (this.#writing?.length ?? 0);
  }

  /** Whether an outcome of `jobId` is not yet written. */
  hasPendingFor(jobId: number): boolean {
    const matches = (entry: PendingOutcome) => entry.outcome.jobId === jobId;
    return this.#buffer.some(matches) || (this.#writing?.some(matches) ?? false);
  }

  add(entry: PendingOutcome): void {
    this.#buffer.push(entry);
    if (this.#buffer.length >= this.#options.flushBatch) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.#options.flushIntervalMs);
  }

  /** Starts writing what waits now (unless a write is in progress: it follows that one). */
  flush(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#writing || this.#buffer.length === 0) {
      if (!this.#writing) this.#settle();
      return;
    }
    const batch = this.#buffer.slice(0, this.#options.flushBatch);
    this.#buffer = this.#buffer.slice(batch.length);
    this.#writing = batch;
    this.#options.sink.apply(batch).then(
      (applied) => {
        this.#writing = undefined;
        this.#failures = 0;
        this.#options.onWritten(batch, applied);
        this.#continue();
      },
      (error: unknown) => {
        this.#writing = undefined;
        this.#buffer = [...batch, ...this.#buffer];
        this.#failures++;
        this.#options.logger.error(
          { err: error, outcomes: batch.length },
          'crawl: writing page outcomes failed',
        );
        const delay = Math.min(5_000, this.#options.flushIntervalMs * 2 ** this.#failures);
        this.#timer ??= setTimeout(() => this.flush(), delay);
      },
    );
  }

  #continue(): void {
    if (
      this.#buffer.length >= this.#options.flushBatch ||
      (this.#buffer.length > 0 && this.#idle.length > 0)
    ) {
      this.flush();
    } else if (this.#buffer.length > 0) {
      this.#timer ??= setTimeout(() => this.flush(), this.#options.flushIntervalMs);
    } else {
      this.#settle();
    }
  }

  #settle(): void {
    if (this.#buffer.length > 0 || this.#writing) return;
    const waiting = this.#idle;
    this.#idle = [];
    for (const resolve of waiting) resolve();
  }

  /** Resolves once everything added so far is written. */
  drain(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.#idle.push(resolve));
    this.flush();
    return done;
  }

  /** Writes what waits, then closes the sink. */
  async close(): Promise<void> {
    await this.drain();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#options.sink.close();
  }
}

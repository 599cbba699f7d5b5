/**
 * Bulk jobs on a store several processes share: the records of a job are queued in batches on
 * the store's work queue (pg-boss), and every process (`quarry serve` and `quarry worker`) works
 * on whichever batch comes next. A batch's results, their charge and the job's progress commit
 * in the same transaction as the batch's completion in the queue, under the job's row lock:
 * - each record is answered exactly once: a process killed mid-batch commits nothing, and its
 *   batch is handed to another process (after pg-boss's heartbeat lapses);
 * - a stop or delete, from any process, is in force once it answers: a batch committing after it
 *   finds the job no longer running and stores nothing;
 * - credits are charged with the results: a conditional debit, never below zero.
 */
import type { CreditCosts } from '../config.ts';
import { isDiskFullError } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type { BulkMetrics } from '../metrics/index.ts';
import type {
  BulkJobRow,
  BulkJobStore,
  BulkResult,
  StorageTransaction,
  WorkItem,
  WorkQueue,
} from '../storage/index.ts';
import { answerBatch } from './answer-batch.ts';
import {
  type BatchExecutor,
  type BulkJobRunner,
  type ChargedResults,
  chargeResults,
  reportStored,
  type StorageFault,
} from './bulk-runner.ts';
import { type BulkJobOptions, stateMessage } from './job-record.ts';
import { markFinished, markStopped, RUNNING } from './job-transitions.ts';

/** The queue of bulk enhance batches. */
export const BULK_QUEUE = 'quarry-bulk-batches';

/** One item of the queue: records [from, to) of a job. */
interface BatchItem {
  readonly jobId: string;
  readonly from: number;
  readonly to: number;
}

/** How often each process looks for jobs whose last batch committed but that are not finished. */
const FINISH_SWEEP_MS = 500;
/**
 * How long past its retry time a refusal seen here still speaks for the job when no later
 * attempt here failed or succeeded: another process may have stored the job's batches since.
 */
const FAULT_STALE_MS = 60_000;

export interface QueueBulkRunnerDeps {
  readonly store: BulkJobStore;
  readonly queue: WorkQueue;
  readonly credits: CreditCosts;
  readonly executor: BatchExecutor;
  readonly logger: Logger;
  /** Records per queued batch. */
  readonly batchSize: number;
  /** Called once, in the process that finished it, when a job reaches a final state. */
  readonly onFinal: (job: BulkJobRow) => void;
  /** Where stored records and their charges are reported (docs/metrics.md); default: nowhere. */
  readonly metrics?: BulkMetrics;
  readonly now?: () => number;
}

export class QueueBulkRunner implements BulkJobRunner {
  readonly #deps: QueueBulkRunnerDeps;
  readonly #now: () => number;
  /** Jobs whose last batch tried here could not be stored (held in memory: the store refuses). */
  readonly #faults = new Map<string, StorageFault>();
  /** Errors thrown by the store's writes in a handler (as opposed to answering or shutting down). */
  readonly #storeErrors = new WeakSet<object>();
  #sweep: NodeJS.Timeout | undefined;
  #handling = 0;
  #closed = false;

  constructor(deps: QueueBulkRunnerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** Starts working on the queue (and finishing jobs other processes left complete). */
  async resume(): Promise<void> {
    await this.#deps.queue.work(
      BULK_QUEUE,
      {
        concurrency: this.#deps.executor.capacity,
        onFailure: (item, error, retryInMs) => this.#failed(item as unknown as BatchItem, error, retryInMs),
      },
      (item, tx) => this.#handle(item as unknown as BatchItem, tx),
    );
    this.#sweep = setInterval(() => void this.#finishDone(), FINISH_SWEEP_MS);
    this.#sweep.unref();
  }

  /** Queues the job's records in batches, in the transaction that publishes it. */
  async enqueueIn(tx: StorageTransaction, job: BulkJobRow): Promise<void> {
    const items: WorkItem[] = [];
    for (let from = 0; from < job.total; from += this.#deps.batchSize) {
      items.push({ jobId: job.id, from, to: Math.min(job.total, from + this.#deps.batchSize) });
    }
    await this.#deps.queue.send(tx, BULK_QUEUE, items);
  }

  enqueue(): void {
    // Queued with the publishing transaction: every process takes it from there.
  }

  /** Stops the job in the store; batches in flight anywhere find it stopped when they commit. */
  async stop(jobId: string): Promise<BulkJobRow | undefined> {
    const stopped = await markStopped(this.#deps.store, jobId, this.#now());
    this.#faults.delete(jobId);
    if (stopped) this.#deps.onFinal(stopped);
    return stopped;
  }

  forget(jobId: string): void {
    // The job's state (DELETING) tells every process's batches to store nothing.
    this.#faults.delete(jobId);
  }

  /**
   * Why the job's last batch tried in this process could not be stored: a batch the store
   * refuses rolls back whole and goes back to the queue, which tries it again after a backoff.
   */
  storageFault(jobId: string): StorageFault | undefined {
    const fault = this.#faults.get(jobId);
    if (fault && this.#now() > fault.retryAt + FAULT_STALE_MS) {
      this.#faults.delete(jobId);
      return undefined;
    }
    return fault;
  }

  /** An attempt at `item` rolled back: a refusal of the store is the job's storage fault. */
  #failed(item: BatchItem, error: Error, retryInMs: number): void {
    // Shutting down: the batch goes back to the queue by design.
    if (this.#closed) return;
    const diskFull = isDiskFullError(error);
    if (!diskFull && !this.#storeErrors.has(error)) {
      this.#deps.logger.error({ err: error, jobId: item.jobId }, 'bulk: a batch failed; it is tried again');
      return;
    }
    const now = this.#now();
    const fault: StorageFault = {
      reason: diskFull ? 'disk_full' : 'write_failed',
      since: this.#faults.get(item.jobId)?.since ?? now,
      retryAt: now + retryInMs,
    };
    this.#faults.set(item.jobId, fault);
    this.#deps.logger.warn(
      { err: error, jobId: item.jobId, reason: fault.reason, retryInMs },
      'bulk results cannot be stored; trying again',
    );
  }

  /** Resolves when no job is running in the store and no batch is being answered here. */
  async idle(): Promise<void> {
    for (;;) {
      const running = await this.#deps.store.listByState(RUNNING);
      if (running.length === 0 && this.#handling === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweep);
    // Batches being answered here roll back and go to another process (or the next start).
    await this.#deps.queue.close();
    await this.#deps.executor.close();
  }

  /** Answers one batch and commits it with the batch's completion (see the module comment). */
  async #handle(item: BatchItem, tx: StorageTransaction): Promise<void> {
    const { store } = this.#deps;
    this.#handling++;
    try {
      const job = await tx.bulkJobs.get(item.jobId);
      // Stopped, deleted or finished: the batch is done with nothing to do.
      if (!job || !RUNNING.includes(job.state)) return;
      const records = (await tx.bulkJobs.pendingRecords(job.id, item.from, item.to - item.from)).filter(
        (record) => record.index < item.to,
      );
      if (records.length === 0) return;
      if (job.state === 'NOT_STARTED') {
        await store.update(
          job.id,
          {
            state: 'IN_PROCESS',
            startTime: job.startTime ?? this.#now(),
            message: stateMessage({ ...job, state: 'IN_PROCESS' }),
          },
          ['NOT_STARTED'],
        );
      }
      if (this.#closed) throw new Error('shutting down: the batch goes back to the queue');
      const options = job.options as unknown as BulkJobOptions;
      const results = await answerBatch(
        this.#deps.executor,
        { jobId: job.id, options, records },
        this.#deps.logger,
      );
      const paid = await this.#commit(tx, job.id, results).catch((error: unknown) => {
        if (error !== null && typeof error === 'object') this.#storeErrors.add(error);
        throw error;
      });
      this.#faults.delete(job.id);
      // The queue commits the handler's transaction as it returns; a commit that fails after
      // this (rare: the batch is then answered again) is counted twice.
      if (paid) reportStored(this.#deps.metrics, paid);
    } finally {
      this.#handling--;
    }
    // The commit follows the handler: look for the job's end once it has landed.
    setTimeout(() => void this.#finishDone(item.jobId), 20);
  }

  async #commit(
    tx: StorageTransaction,
    jobId: string,
    results: readonly BulkResult[],
  ): Promise<ChargedResults | undefined> {
    const job = await tx.bulkJobs.lockRunning(jobId);
    // Stopped or deleted while the batch was answered: its results are not stored.
    if (!job) return undefined;
    const paid = await chargeResults(tx.tokens, job.tokenId, results, this.#deps.credits);
    await tx.bulkJobs.saveResults(jobId, paid.results);
    const done = job.completed + paid.results.length;
    const elapsed = (this.#now() - (job.startTime ?? this.#now())) / 1000;
    const estimateSec =
      done > 0 && elapsed > 0 ? Math.ceil(Math.max(0, job.total - done) / (done / elapsed)) : null;
    await tx.bulkJobs.update(jobId, { estimateSec });
    return paid;
  }

  /** Finishes the running jobs (or `jobId`) whose every record has a result. */
  async #finishDone(jobId?: string): Promise<void> {
    if (this.#closed) return;
    try {
      const { store } = this.#deps;
      const candidates = jobId
        ? [await store.get(jobId)].filter((job): job is BulkJobRow => job !== undefined)
        : await store.listByState(RUNNING);
      for (const row of candidates) {
        if (!RUNNING.includes(row.state) || row.completed < row.total) continue;
        // Conditional: of all the processes looking, one finishes it and tells its listeners.
        const finished = await markFinished(store, row, this.#now());
        if (!finished) continue;
        this.#faults.delete(row.id);
        this.#deps.onFinal(finished);
      }
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'bulk: finishing complete jobs failed');
    }
  }
}

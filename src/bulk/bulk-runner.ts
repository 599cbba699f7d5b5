import type { CreditCosts } from '../config.ts';
import { creditCost } from '../enhance/index.ts';
import { InsufficientCreditsError, isDiskFullError, outcomeOf } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type { BulkMetrics } from '../metrics/index.ts';
import type {
  BulkJobRow,
  BulkJobStore,
  BulkRecord,
  BulkResult,
  StorageTransaction,
  TokenStore,
} from '../storage/index.ts';
import { BATCH_TRIES, failedRecordMessage, RECORD_TRIES } from './answer-batch.ts';
import type { EnhanceBatch, EnhanceBatchResult } from './enhance-batch.ts';
import { type BulkJobOptions, stateMessage } from './job-record.ts';
import { markFinished, markStopped } from './job-transitions.ts';
import { failureResult } from './result-text.ts';

/** The part of the worker pool the runner uses (a real `WorkerPool` in production). */
export interface BatchExecutor {
  /** Batches the executor runs at once; the runner keeps this many in flight. */
  readonly capacity: number;
  run(batch: EnhanceBatch): Promise<EnhanceBatchResult>;
  close(): Promise<void>;
}

/**
 * What the bulk service asks of whatever works on its jobs: `BulkRunner` in this process (a
 * store one process uses), `QueueBulkRunner` through the store's work queue (several processes).
 */
export interface BulkJobRunner {
  /** Starts working: unfinished jobs resume (after a restart or a crash). */
  resume(): Promise<void>;
  /** Inside the transaction that publishes `job`: hands its records over, atomically with it. */
  enqueueIn(tx: StorageTransaction, job: BulkJobRow): Promise<void>;
  /** After that transaction committed. */
  enqueue(job: BulkJobRow): void;
  /**
   * Stops a job (results so far stay) and tells the final-state listener; `undefined` when the
   * runner had nothing to stop (the caller stops it in the store).
   */
  stop(jobId: string): Promise<BulkJobRow | undefined>;
  /** Drops a job being deleted. */
  forget(jobId: string): void;
  /**
   * Why the job's results cannot be stored right now, while this runner waits to try again
   * (docs/api.md#bulk-job-status); `undefined` when nothing holds it up.
   */
  storageFault(jobId: string): StorageFault | undefined;
  /** Resolves when no job is being worked on (tests, shutdown). */
  idle(): Promise<void>;
  /** Stops working; unfinished work resumes at the next start (or in another process). */
  close(): Promise<void>;
}

export interface BulkRunnerDeps {
  readonly store: BulkJobStore;
  /** Runs a function in one store transaction (`Storage.transaction`). */
  readonly transaction: <T>(fn: (tx: StorageTransaction) => Promise<T>) => Promise<T>;
  readonly credits: CreditCosts;
  readonly executor: BatchExecutor;
  readonly logger: Logger;
  /** Records per batch. */
  readonly batchSize: number;
  /** Called once when a job reaches a final state (complete, with failures, or stopped). */
  readonly onFinal: (job: BulkJobRow) => void;
  /** Where stored records and their charges are reported (docs/metrics.md); default: nowhere. */
  readonly metrics?: BulkMetrics;
  readonly now?: () => number;
}

/** The 429 message a record that cannot be paid carries in its result (docs/api.md#credits). */
export const UNPAID_MESSAGE = new InsufficientCreditsError().message;

/**
 * Answered records a job gathers before storing them in one transaction (`BulkRunner.#gather`):
 * the executor's whole capacity of 256-record batches. Each transaction has costs of its own on
 * the main thread (BEGIN and COMMIT, the charge, the job's counters and estimate): a quarter of
 * the transactions took the main thread from ~19 to ~15 µs per record (bench/NOTES.md). The
 * workers' reads did not change: single enhances commit their charges meanwhile, and a worker's
 * read snapshot drops its page cache after any commit anyway.
 */
const COMMIT_RECORDS = 1024;
/** Longest that answered records wait for others before they are stored anyway, ms. */
const COMMIT_WAIT_MS = 250;

/** Tries to store a batch's results before the job is left until the next start. */
const STORE_TRIES = 3;
/**
 * Waits before writing again what the store refused (a full disk), ms: doubling from the first
 * to the last, then the last again for as long as it takes. Short enough to resume soon after
 * space returns, long enough not to flood the log.
 */
const STORE_RETRY_MS = { first: 500, max: 30_000 } as const;

/** A job's results the store refused, and when the runner tries again. */
export interface StorageFault {
  /** `disk_full` when the store said so, else `write_failed`. */
  readonly reason: 'disk_full' | 'write_failed';
  /** When the first refusal of this episode happened (ms since the epoch). */
  readonly since: number;
  /** When the runner tries again (ms since the epoch). */
  readonly retryAt: number;
}

/** A job's storage fault as the runner tracks it. */
interface FaultState {
  reason: StorageFault['reason'];
  readonly since: number;
  retryAt: number;
  tries: number;
  timer: NodeJS.Timeout | undefined;
}

interface Retry {
  readonly records: readonly BulkRecord[];
  readonly tries: number;
}

/** A job the runner is working on (in memory; the store holds everything durable). */
interface ActiveJob {
  readonly id: string;
  readonly tokenId: string;
  readonly options: BulkJobOptions;
  readonly total: number;
  /** Next position to look for pending records from. */
  cursor: number;
  /** No pending record at or after `cursor` (apart from `retries`). */
  exhausted: boolean;
  inFlight: number;
  readonly retries: Retry[];
  /** Records with a result, counted from the store at activation. */
  done: number;
  /** When this run of the job (since submission or restart) began, and how many it did. */
  readonly runStart: number;
  runDone: number;
  /** Answered records not stored yet, gathered to be stored together (`#gather`). */
  ready: BulkResult[];
  /** Stores `ready` when no more batches come back soon enough (`COMMIT_WAIT_MS`). */
  readyTimer: NodeJS.Timeout | undefined;
  /** Answered batches the store refused, in order, kept to be stored when it can (not answered again). */
  readonly unstored: (readonly BulkResult[])[];
  /** Set while the store refuses the job's writes: nothing more is dispatched until it is cleared. */
  fault: FaultState | undefined;
}

/**
 * Runs bulk enhance jobs: claims batches of pending records, has worker threads answer them,
 * then charges and stores each batch's results with the job's progress in one transaction.
 * A record's result and its charge therefore happen exactly once; after a crash, the records
 * still to do are those without a result. Jobs of different tokens take turns (round robin by
 * token, then by job), so one token's huge job does not starve another's small one.
 */
export class BulkRunner implements BulkJobRunner {
  readonly #deps: BulkRunnerDeps;
  readonly #now: () => number;
  readonly #jobs = new Map<string, ActiveJob>();
  /** Token ids in turn order, and per token its job ids in turn order. */
  readonly #turns = new Map<string, string[]>();
  #tokenTurn = 0;
  #inFlight = 0;
  #closed = false;
  /** A `#fill` is running (claims are asynchronous); `#pumpAgain` asks it for another pass. */
  #pumping = false;
  #pumpAgain = false;
  readonly #idleWaiters: (() => void)[] = [];

  constructor(deps: BulkRunnerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** Number of jobs being worked on. */
  get activeJobs(): number {
    return this.#jobs.size;
  }

  /** Picks up every unfinished job in the store (at start-up, after a restart or crash). */
  async resume(): Promise<void> {
    for (const job of await this.#deps.store.listByState(['NOT_STARTED', 'IN_PROCESS'])) this.#activate(job);
    this.#pump();
  }

  async enqueueIn(): Promise<void> {
    // Records wait in the store; the job is activated once its publication has committed.
  }

  /** Starts working on a newly published job. */
  enqueue(job: BulkJobRow): void {
    this.#activate(job);
    this.#pump();
  }

  /**
   * Stops a job at once: batches in flight are discarded when they come back, nothing more is
   * dispatched, and the job becomes `STOPPED` (results so far stay). Returns the stopped job, or
   * `undefined` when the runner was not working on it.
   */
  async stop(jobId: string): Promise<BulkJobRow | undefined> {
    // Records answered before the stop are stored (and charged), as results so far stay.
    const job = this.#jobs.get(jobId);
    if (job) await this.#storeReady(job);
    if (!this.#forget(jobId)) return undefined;
    const stopped = await markStopped(this.#deps.store, jobId, this.#now());
    if (stopped) this.#deps.onFinal(stopped);
    return stopped;
  }

  /** Drops a job without touching the store (it is being deleted). */
  forget(jobId: string): void {
    this.#forget(jobId);
  }

  storageFault(jobId: string): StorageFault | undefined {
    const fault = this.#jobs.get(jobId)?.fault;
    return fault && { reason: fault.reason, since: fault.since, retryAt: fault.retryAt };
  }

  /** Resolves when no batch is in flight and no job is active (tests, shutdown). */
  idle(): Promise<void> {
    if (this.#inFlight === 0 && this.#jobs.size === 0 && !this.#pumping) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops dispatching and closes the executor; unfinished work resumes at the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    // Answered records are stored rather than answered again at the next start.
    for (const job of [...this.#jobs.values()]) {
      try {
        await this.#storeReady(job);
      } catch (error) {
        this.#deps.logger.error({ err: error, jobId: job.id }, 'bulk results could not be stored at close');
      }
    }
    for (const job of this.#jobs.values()) clearTimeout(job.fault?.timer);
    this.#jobs.clear();
    this.#turns.clear();
    await this.#deps.executor.close();
  }

  #activate(row: BulkJobRow): void {
    if (this.#closed || this.#jobs.has(row.id)) return;
    const job: ActiveJob = {
      id: row.id,
      tokenId: row.tokenId,
      options: row.options as unknown as BulkJobOptions,
      total: row.total,
      cursor: 0,
      exhausted: false,
      inFlight: 0,
      retries: [],
      done: row.completed,
      runStart: this.#now(),
      runDone: 0,
      ready: [],
      readyTimer: undefined,
      unstored: [],
      fault: undefined,
    };
    this.#jobs.set(row.id, job);
    const turn = this.#turns.get(row.tokenId);
    if (turn) turn.push(row.id);
    else this.#turns.set(row.tokenId, [row.id]);
  }

  #forget(jobId: string): boolean {
    const job = this.#jobs.get(jobId);
    if (!job) return false;
    clearTimeout(job.fault?.timer);
    clearTimeout(job.readyTimer);
    this.#jobs.delete(jobId);
    const turn = this.#turns.get(job.tokenId);
    if (turn) {
      turn.splice(turn.indexOf(jobId), 1);
      if (turn.length === 0) this.#turns.delete(job.tokenId);
    }
    this.#notifyIdle();
    return true;
  }

  /** Fills the executor with batches, taking jobs in turn; one fill at a time. */
  #pump(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    this.#fill()
      .catch((error: unknown) =>
        this.#deps.logger.error({ err: error }, 'bulk runner could not read pending records'),
      )
      .finally(() => {
        this.#pumping = false;
        if (this.#pumpAgain) {
          this.#pumpAgain = false;
          this.#pump();
        } else this.#notifyIdle();
      });
  }

  async #fill(): Promise<void> {
    while (!this.#closed && this.#inFlight < this.#deps.executor.capacity) {
      const job = this.#nextJob();
      if (!job) break;
      const batch = await this.#claim(job);
      if (!batch || this.#jobs.get(job.id) !== job) continue;
      if (job.inFlight === 0 && job.runDone === 0 && !(await this.#markStarted(job, batch))) continue;
      if (this.#jobs.get(job.id) === job) this.#dispatch(job, batch);
    }
  }

  /** The next job with work to hand out: next token in turn, then that token's next job. */
  #nextJob(): ActiveJob | undefined {
    const tokens = [...this.#turns.keys()];
    for (let t = 0; t < tokens.length; t++) {
      const tokenId = tokens[(this.#tokenTurn + t) % tokens.length];
      const turn = this.#turns.get(tokenId)!;
      for (let j = 0; j < turn.length; j++) {
        const jobId = turn.shift()!;
        turn.push(jobId);
        const job = this.#jobs.get(jobId)!;
        if ((!job.exhausted || job.retries.length > 0) && !job.fault) {
          this.#tokenTurn = (this.#tokenTurn + t + 1) % tokens.length;
          return job;
        }
      }
    }
    return undefined;
  }

  async #claim(job: ActiveJob): Promise<Retry | undefined> {
    const retry = job.retries.shift();
    if (retry) return retry;
    const records = await this.#deps.store.pendingRecords(job.id, job.cursor, this.#deps.batchSize);
    if (records.length === 0) {
      job.exhausted = true;
      await this.#finishIfDone(job);
      return undefined;
    }
    job.cursor = records[records.length - 1].index + 1;
    return { records, tries: 0 };
  }

  #dispatch(job: ActiveJob, batch: Retry): void {
    job.inFlight++;
    this.#inFlight++;
    this.#deps.executor
      .run({ jobId: job.id, options: job.options, records: batch.records })
      .then(
        async (answer) => {
          if (this.#jobs.get(job.id) === job) await this.#gather(job, answer.results);
        },
        async (error: Error) => {
          if (this.#jobs.get(job.id) === job) await this.#retry(job, batch, error);
        },
      )
      .catch((error: Error) => {
        // Storing failed (disk full, store closed). The records stay pending: try again a few
        // times, then leave the job to the next start rather than spin.
        this.#deps.logger.error({ err: error, jobId: job.id }, 'bulk batch could not be stored');
        if (this.#jobs.get(job.id) !== job) return;
        if (batch.tries + 1 < STORE_TRIES)
          job.retries.push({ records: batch.records, tries: batch.tries + 1 });
        else this.#forget(job.id);
      })
      .finally(async () => {
        job.inFlight--;
        this.#inFlight--;
        try {
          if (this.#jobs.get(job.id) === job) await this.#finishIfDone(job);
        } catch (error) {
          this.#deps.logger.error({ err: error, jobId: job.id }, 'bulk job could not be finished');
        }
        this.#pump();
      });
  }

  /**
   * Marks the job `IN_PROCESS` before its first batch; false when the store refused (the batch
   * goes back to the job's retries, and the job waits for its storage fault to clear).
   */
  async #markStarted(job: ActiveJob, batch: Retry): Promise<boolean> {
    const row = await this.#deps.store.get(job.id);
    if (row && row.state === 'NOT_STARTED') {
      try {
        await this.#deps.store.update(
          job.id,
          {
            state: 'IN_PROCESS',
            startTime: row.startTime ?? this.#now(),
            message: stateMessage({ ...row, state: 'IN_PROCESS' }),
          },
          ['NOT_STARTED'],
        );
      } catch (error) {
        job.retries.unshift(batch);
        this.#storeRefused(job, error as Error);
        return false;
      }
    }
    return true;
  }

  /**
   * Adds a batch's answers to the job's answered records and stores them all in one transaction
   * once they reach `COMMIT_RECORDS` or no other batch of the job is in flight; otherwise after
   * `COMMIT_WAIT_MS` at the latest. Until stored they are not the job's (not charged, not
   * counted): a crash or restart answers them again, as it does batches in flight.
   */
  async #gather(job: ActiveJob, results: readonly BulkResult[]): Promise<void> {
    for (const result of results) job.ready.push(result);
    // This batch still counts in `inFlight` (the dispatch's `finally` comes after).
    if (job.ready.length >= COMMIT_RECORDS || job.inFlight <= 1) {
      await this.#storeReady(job);
      return;
    }
    job.readyTimer ??= setTimeout(() => {
      this.#storeReady(job)
        .then(() => this.#finishIfDone(job))
        .catch((error: unknown) =>
          this.#deps.logger.error({ err: error, jobId: job.id }, 'bulk job could not be finished'),
        )
        .finally(() => this.#pump());
    }, COMMIT_WAIT_MS);
  }

  /** Stores the job's answered records gathered so far (`#gather`). */
  async #storeReady(job: ActiveJob): Promise<void> {
    clearTimeout(job.readyTimer);
    job.readyTimer = undefined;
    if (job.ready.length === 0 || this.#jobs.get(job.id) !== job) return;
    const results = job.ready;
    job.ready = [];
    await this.#commitOrKeep(job, results);
  }

  /** Stores answered results, or keeps them to store once the store accepts writes again. */
  async #commitOrKeep(job: ActiveJob, results: readonly BulkResult[]): Promise<void> {
    if (job.fault) {
      job.unstored.push(results);
      return;
    }
    try {
      await this.#commit(job, results);
    } catch (error) {
      job.unstored.push(results);
      this.#storeRefused(job, error as Error);
    }
  }

  /**
   * The store refused a write of `job` (a full disk, most often): the job says so in its status
   * (`storageFault`), dispatches nothing more, and tries again after a wait that doubles up to
   * `STORE_RETRY_MS.max`, for as long as it takes; nothing answered is answered again or lost.
   */
  #storeRefused(job: ActiveJob, error: Error): void {
    if (this.#jobs.get(job.id) !== job) return;
    const reason = isDiskFullError(error) ? 'disk_full' : 'write_failed';
    job.fault ??= { reason, since: this.#now(), retryAt: 0, tries: 0, timer: undefined };
    const fault = job.fault;
    fault.reason = reason;
    fault.tries++;
    const wait = Math.min(STORE_RETRY_MS.first * 2 ** (fault.tries - 1), STORE_RETRY_MS.max);
    fault.retryAt = this.#now() + wait;
    this.#deps.logger.warn(
      {
        err: error,
        jobId: job.id,
        reason,
        tries: fault.tries,
        retryInMs: wait,
        unstored: job.unstored.length,
      },
      'bulk results cannot be stored; trying again',
    );
    clearTimeout(fault.timer);
    fault.timer = setTimeout(() => void this.#storeAgain(job), wait);
  }

  /** Writes what the store refused, then lets the job go on (or finish). */
  async #storeAgain(job: ActiveJob): Promise<void> {
    const fault = job.fault;
    if (!fault || this.#jobs.get(job.id) !== job) return;
    fault.timer = undefined;
    try {
      while (job.unstored.length > 0) {
        await this.#commit(job, job.unstored[0]);
        job.unstored.shift();
      }
    } catch (error) {
      this.#storeRefused(job, error as Error);
      return;
    }
    this.#deps.logger.info(
      { jobId: job.id, stalledMs: this.#now() - fault.since },
      'bulk results stored again; the job goes on',
    );
    job.fault = undefined;
    try {
      await this.#finishIfDone(job);
    } catch (error) {
      this.#storeRefused(job, error as Error);
      return;
    }
    this.#pump();
  }

  /** Charges and stores a batch's results with the job's progress, in one transaction. */
  async #commit(job: ActiveJob, results: readonly BulkResult[]): Promise<void> {
    const paid = await this.#deps.transaction(async ({ tokens, bulkJobs }) => {
      const charged = await chargeResults(tokens, job.tokenId, results, this.#deps.credits);
      await bulkJobs.saveResults(job.id, charged.results);
      await bulkJobs.update(job.id, { estimateSec: this.#estimate(job, charged.results.length) });
      return charged;
    });
    reportStored(this.#deps.metrics, paid);
    job.done += results.length;
    job.runDone += results.length;
  }

  /** Seconds left once `adding` more records are done. */
  #estimate(job: ActiveJob, adding: number): number | null {
    const elapsed = (this.#now() - job.runStart) / 1000;
    const runDone = job.runDone + adding;
    if (runDone === 0 || elapsed <= 0) return null;
    const remaining = Math.max(0, job.total - job.done - adding);
    return Math.ceil(remaining / (runDone / elapsed));
  }

  /**
   * A batch that failed, acted on by the error's registered outcome (`outcomeOf`): `stop-job`
   * stops the job; `fail-record` splits a batch into single records at once (one of them is at
   * fault) and stores a single record failed with the error's message; `retry`, and an error that
   * is no registered one (a worker died), retry the batch, then its records one by one, then
   * store them failed.
   */
  async #retry(job: ActiveJob, batch: Retry, error: Error): Promise<void> {
    const outcome = outcomeOf(error);
    this.#deps.logger.warn(
      { err: error, jobId: job.id, records: batch.records.length, outcome },
      'bulk batch failed',
    );
    if (outcome === 'stop-job') {
      this.#deps.logger.error({ err: error, jobId: job.id }, 'bulk job stopped by an error that ends it');
      await this.stop(job.id);
      return;
    }
    const tries = outcome === 'fail-record' ? Number.POSITIVE_INFINITY : batch.tries + 1;
    if (batch.records.length > 1) {
      if (tries < BATCH_TRIES) job.retries.push({ records: batch.records, tries });
      else for (const record of batch.records) job.retries.push({ records: [record], tries: 0 });
      return;
    }
    if (tries < RECORD_TRIES) {
      job.retries.push({ records: batch.records, tries });
      return;
    }
    const [record] = batch.records;
    await this.#commitOrKeep(job, [failureResult(record, job.id, failedRecordMessage(error, outcome))]);
  }

  async #finishIfDone(job: ActiveJob): Promise<void> {
    const busy = () =>
      !job.exhausted ||
      job.inFlight > 0 ||
      job.retries.length > 0 ||
      job.ready.length > 0 ||
      job.unstored.length > 0 ||
      !!job.fault;
    if (busy()) return;
    const row = await this.#deps.store.get(job.id);
    // Looked at meanwhile by another caller (a batch came back as the last claim ran dry).
    if (this.#jobs.get(job.id) !== job || busy()) return;
    if (!row) {
      this.#forget(job.id);
      return;
    }
    if (row.completed < row.total) {
      // Should not happen (the cursor only moves past claimed records); look again from the start.
      this.#deps.logger.warn(
        { jobId: job.id, completed: row.completed, total: row.total },
        'bulk job rescan',
      );
      job.cursor = 0;
      job.exhausted = false;
      return;
    }
    let finished: BulkJobRow | undefined;
    try {
      // Conditional: a second caller finishing meanwhile, or a stop, changes nothing more.
      finished = await markFinished(this.#deps.store, row, this.#now());
    } catch (error) {
      // The job stays active: it finishes once the store accepts the write.
      this.#storeRefused(job, error as Error);
      return;
    }
    this.#forget(job.id);
    // Stopped or deleted meanwhile: that change stands.
    if (finished) this.#deps.onFinal(finished);
  }

  #notifyIdle(): void {
    if (this.#inFlight > 0 || this.#jobs.size > 0 || this.#pumping) return;
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}

/** Reports a committed batch: its records and the credits they took. */
export function reportStored(metrics: BulkMetrics | undefined, paid: ChargedResults): void {
  if (!metrics) return;
  const failed = paid.results.reduce((n, r) => n + (r.failed ? 1 : 0), 0);
  metrics.bulkRecordsStored(paid.results.length - failed, failed);
  metrics.creditsCharged('bulk', paid.charged);
}

/** A batch's results as they are stored, and the credits taken for them. */
export interface ChargedResults {
  readonly results: readonly BulkResult[];
  readonly charged: number;
}

/**
 * Charges the token for a batch's results (in the caller's transaction) and returns the results
 * to store with the credits taken: one charge for the whole batch when the balance covers it (the usual case);
 * otherwise record by record, in order, so every record that can be paid is, and the others
 * carry the 429 message. The refresh price for the entities web work was done for
 * (docs/api.md#credits).
 */
export async function chargeResults(
  tokens: TokenStore,
  tokenId: string,
  results: readonly BulkResult[],
  credits: CreditCosts,
): Promise<ChargedResults> {
  const cost = (r: BulkResult) => (r.failed ? 0 : creditCost(r.hits, r.premium ?? 0, credits));
  const total = results.reduce((sum, r) => sum + cost(r), 0);
  if (total === 0 || (await tokens.charge(tokenId, total))) return { results, charged: total };
  const paid: BulkResult[] = [];
  let charged = 0;
  for (const r of results) {
    const price = cost(r);
    if (price === 0 || (await tokens.charge(tokenId, price))) {
      paid.push(r);
      charged += price;
    } else paid.push(unpaid(r));
  }
  return { results: paid, charged };
}

/** The result of a record that could not be paid: no data, and the 429 message. */
function unpaid(result: BulkResult): BulkResult {
  const response = JSON.parse(result.response) as { hits: number; data: unknown[]; errors: string[] };
  response.hits = 0;
  response.data = [];
  response.errors = [...response.errors, UNPAID_MESSAGE];
  return { index: result.index, hits: 0, failed: true, response: JSON.stringify(response), searchInfo: '{}' };
}

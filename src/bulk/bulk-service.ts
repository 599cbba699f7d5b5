import type { CreditCosts, Limits } from '../config.ts';
import { parseEnhanceQuery } from '../enhance/index.ts';
import {
  InvalidParameterError,
  NotFoundError,
  NotReadyError,
  PayloadTooLargeError,
  QuarryError,
} from '../errors.ts';
import { MAX_JSON_DEPTH } from '../json-depth.ts';
import type { Logger } from '../logging.ts';
import type { BulkMetrics } from '../metrics/index.ts';
import type { BulkJobRow, BulkJobStore, StorageTransaction, WorkQueue } from '../storage/index.ts';
import { type BatchExecutor, type BulkJobRunner, BulkRunner } from './bulk-runner.ts';
import { QueueBulkRunner } from './queue-runner.ts';
import { isJobId, newJobId } from './ids.ts';
import {
  type BulkJobStatusRecord,
  isComplete,
  parseSubmitParams,
  stateMessage,
  statusRecord,
  storageFaultMessage,
} from './job-record.ts';
import {
  JsonArraySyntaxError,
  JsonBodyTooLargeError,
  JsonElementTooDeepError,
  JsonElementTooLargeError,
  splitJsonArray,
} from './json-array-stream.ts';
import { fullResponseText } from './result-text.ts';
import { type WebhookPost, WebhookSender } from './webhooks.ts';

/** Largest accepted single record of a submission (a valid one is a few KiB at most). */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** Records written per store transaction while a submission streams in. */
const SUBMIT_CHUNK = 5_000;
/**
 * A submission still arriving after this long, on a store other processes share, is taken for
 * one whose process died: it is purged (200 MB at 1 Mbit/s take half of it).
 */
const STALLED_SUBMISSION_MS = 3_600_000;
/** Rows deleted per transaction when a job is purged; small enough to keep requests flowing. */
const PURGE_CHUNK = 5_000;

/** What the service reports when a job reaches a final state (coverage report, webhook). */
export type BulkFinalListener = (job: BulkJobRow) => void | Promise<void>;

export interface BulkServiceDeps {
  readonly store: BulkJobStore;
  readonly transaction: <T>(fn: (tx: StorageTransaction) => Promise<T>) => Promise<T>;
  /**
   * The store's work queue when several processes share it: jobs are then worked on by all of
   * them (`QueueBulkRunner`); without one, in this process (`BulkRunner`).
   */
  readonly workQueue?: WorkQueue;
  readonly credits: CreditCosts;
  readonly limits: Limits;
  readonly logger: Logger;
  /** Creates the batch executor (the worker pool) when the service starts. */
  readonly createExecutor: () => BatchExecutor;
  /** Sends webhook requests (an SSRF-safe fetcher in production). */
  readonly webhookPost: WebhookPost;
  /** Allow webhooks to loopback/private addresses (`config.allowPrivateNetwork`). */
  readonly allowPrivateNetwork?: boolean;
  /** Delays between webhook tries (default `DEFAULT_WEBHOOK_DELAYS_MS`). */
  readonly webhookDelaysMs?: readonly number[];
  /**
   * How long finished jobs are kept, milliseconds after they finished; 0 (default) keeps them
   * until deleted (docs/api.md#limits).
   */
  readonly retentionMs?: number;
  /** Records per batch handed to a worker thread. */
  readonly batchSize?: number;
  /** Where stored records and their charges are reported (docs/metrics.md); default: nowhere. */
  readonly metrics?: BulkMetrics;
  readonly now?: () => number;
}

/** Answer of the stop endpoint (docs/api.md#stop-and-delete). */
export interface StopAnswer {
  status: string;
  message: string;
}

/**
 * Bulk enhance jobs: submission, status, stop, delete and single results
 * (docs/api.md#area-a-bulk-enhance-jobs); downloads and reports live in `BulkExports`. Every method
 * taking a job id and a token checks that the id is well formed (400) and that the job exists and
 * belongs to the token (404 otherwise — another token's job looks absent).
 */
export class BulkService {
  readonly #deps: BulkServiceDeps;
  readonly #now: () => number;
  readonly #finalListeners: BulkFinalListener[] = [];
  readonly #deleteListeners: ((jobId: string) => void | Promise<void>)[] = [];
  readonly #webhooks: WebhookSender;
  #runner: BulkJobRunner | undefined;
  #purging: Promise<void> | undefined;
  #retentionTimer: NodeJS.Timeout | undefined;
  #purgeAgain = false;
  #closed = false;

  constructor(deps: BulkServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#webhooks = new WebhookSender({
      store: deps.store,
      post: deps.webhookPost,
      statusRecord: (job) => this.#record(job),
      logger: deps.logger,
      delaysMs: deps.webhookDelaysMs,
      now: this.#now,
    });
    this.onFinal((job) => this.#webhooks.schedule(job));
  }

  /** Webhook deliveries (tests wait on `settled()`). */
  get webhooks(): WebhookSender {
    return this.#webhooks;
  }

  /** Registers a listener for jobs reaching a final state. */
  onFinal(listener: BulkFinalListener): void {
    this.#finalListeners.push(listener);
  }

  /**
   * Starts the runner: drops submissions a crash interrupted, finishes purging deleted jobs,
   * and resumes every unfinished job. Idempotent.
   */
  async start(): Promise<void> {
    if (this.#runner || this.#closed) return;
    const { store } = this.#deps;
    const common = {
      store,
      credits: this.#deps.credits,
      executor: this.#deps.createExecutor(),
      logger: this.#deps.logger,
      batchSize: this.#deps.batchSize ?? 256,
      now: this.#now,
      onFinal: (job: BulkJobRow) => this.#final(job),
      metrics: this.#deps.metrics,
    };
    const queue = this.#deps.workQueue;
    this.#runner = queue
      ? new QueueBulkRunner({ ...common, queue })
      : new BulkRunner({ ...common, transaction: this.#deps.transaction });
    // Submissions a crash interrupted. Where other processes share the store, only those stalled
    // far longer than any submission takes: the others may be arriving right now.
    const stalledBefore = queue ? this.#now() - STALLED_SUBMISSION_MS : Number.POSITIVE_INFINITY;
    for (const job of await store.listByState(['SUBMITTING'])) {
      if (job.submitTime < stalledBefore) await store.update(job.id, { state: 'DELETING' }, ['SUBMITTING']);
    }
    await this.#runner.resume();
    this.#webhooks.resume(await store.listByState(['COMPLETE', 'COMPLETE_WITH_FAILURES', 'STOPPED']));
    this.#schedulePurge();
    const retention = this.#deps.retentionMs ?? 0;
    if (retention > 0) {
      const sweep = () =>
        this.deleteFinishedBefore(this.#now() - retention).catch((error: unknown) =>
          this.#deps.logger.error({ err: error }, 'bulk retention sweep failed'),
        );
      await sweep();
      // A tenth of the retention, between a minute and an hour: expired jobs go soon enough.
      this.#retentionTimer = setInterval(sweep, Math.min(3_600_000, Math.max(60_000, retention / 10)));
      this.#retentionTimer.unref();
    }
  }

  /** Stops the runner (unfinished jobs resume at the next start) and waits for purging. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#retentionTimer);
    await this.#webhooks.close();
    await this.#runner?.close();
    await this.#purging;
  }

  /** Resolves once deleted and refused jobs are purged (tests). */
  async purged(): Promise<void> {
    while (this.#purging) await this.#purging;
  }

  /** Jobs queued or in process, and their records without a result (the metrics' queue depth). */
  async pendingWork(): Promise<{ jobs: number; records: number }> {
    const running = await this.#deps.store.listByState(['NOT_STARTED', 'IN_PROCESS']);
    return { jobs: running.length, records: running.reduce((n, job) => n + job.total - job.completed, 0) };
  }

  /** Resolves when the runner has no active job (tests and benchmarks). */
  async idle(): Promise<void> {
    await this.#runner?.idle();
  }

  /**
   * `POST /kg/v3/enhance/bulk`: validates the query parameters, then streams the body (a JSON
   * array) into the store, validating each record as it arrives. Any invalid record, a body over
   * the size limit or too many records: the error names the problem and no job is created.
   */
  async submit(
    tokenId: string,
    query: Readonly<Record<string, unknown>>,
    body: AsyncIterable<Uint8Array | string>,
    contentLength?: number,
  ): Promise<BulkJobRow> {
    const { limits, store } = this.#deps;
    const params = parseSubmitParams(query, limits.maxSize, {
      allowPrivateNetwork: this.#deps.allowPrivateNetwork,
    });
    if (contentLength !== undefined && contentLength > limits.bulkBodyBytes) {
      throw new PayloadTooLargeError(`The body is larger than the limit of ${limits.bulkBodyBytes} bytes`);
    }
    const id = newJobId();
    await store.create({
      id,
      tokenId,
      name: params.name ?? id,
      options: { ...params.options },
      webhookUrl: params.webhookUrl,
      submitTime: this.#now(),
    });
    let count = 0;
    try {
      let chunk: string[] = [];
      const flush = async () => {
        if (chunk.length === 0) return;
        await store.appendRecords(id, count - chunk.length, chunk);
        chunk = [];
      };
      const elements = splitJsonArray(body, {
        maxBytes: limits.bulkBodyBytes,
        maxElementBytes: MAX_RECORD_BYTES,
        maxDepth: MAX_JSON_DEPTH,
      });
      for await (const group of elements) {
        for (const text of group) {
          if (count >= limits.bulkMaxRecords) {
            throw new PayloadTooLargeError(`A bulk job holds at most ${limits.bulkMaxRecords} records`);
          }
          validateRecord(text, count);
          chunk.push(text);
          count++;
          if (chunk.length >= SUBMIT_CHUNK) await flush();
        }
      }
      await flush();
      if (count === 0)
        throw new InvalidParameterError('body', 'The body is an empty array: submit at least one record');
      // Published and handed to the runner in one transaction: no job without its work.
      const queued = await this.#deps.transaction(async (tx) => {
        const job = await tx.bulkJobs.publish(id, count);
        const ready = (await tx.bulkJobs.update(id, { message: stateMessage(job) }))!;
        await this.#runner?.enqueueIn(tx, ready);
        return ready;
      });
      this.#runner?.enqueue(queued);
      return queued;
    } catch (error) {
      await store.update(id, { state: 'DELETING' });
      this.#schedulePurge();
      throw submissionError(error);
    }
  }

  /** `GET /kg/v3/enhance/bulk/status`: the token's jobs, newest first. */
  async list(tokenId: string): Promise<BulkJobStatusRecord[]> {
    const jobs = await this.#deps.store.listForToken(tokenId);
    return Promise.all(jobs.map((job) => this.#record(job)));
  }

  /** `GET /kg/v3/enhance/bulk/{id}/status`: the job's status record and whether it is complete. */
  async status(tokenId: string, jobId: string): Promise<{ complete: boolean; record: BulkJobStatusRecord }> {
    const job = await this.job(tokenId, jobId);
    return { complete: isComplete(job.state), record: await this.#record(job) };
  }

  /** The status record of a job. */
  statusRecord(job: BulkJobRow): Promise<BulkJobStatusRecord> {
    return this.#record(job);
  }

  /** `GET /kg/v3/enhance/bulk/{id}/stop`. Stopping a finished job changes nothing. */
  async stop(tokenId: string, jobId: string): Promise<StopAnswer> {
    const job = await this.job(tokenId, jobId);
    if (isComplete(job.state)) return { status: job.state, message: `Bulkjob [${job.id}] is completed` };
    if (job.state === 'STOPPED')
      return { status: 'STOPPED', message: `Bulkjob [${job.id}] is already stopped` };
    let stopped = await this.#runner?.stop(job.id);
    if (!stopped) {
      // Not in the runner (it is not started, or another process works on it): in the store.
      stopped = await this.#deps.store.update(
        job.id,
        {
          state: 'STOPPED',
          completedTime: this.#now(),
          estimateSec: null,
          message: stateMessage({ ...job, state: 'STOPPED' }),
        },
        ['NOT_STARTED', 'IN_PROCESS'],
      );
      if (stopped) this.#final(stopped);
    }
    if (!stopped) {
      // It finished (or was stopped) meanwhile: say so, as for a job found finished.
      const now = await this.job(tokenId, jobId);
      if (now.state !== 'STOPPED') return { status: now.state, message: `Bulkjob [${now.id}] is completed` };
      return { status: 'STOPPED', message: `Bulkjob [${now.id}] is already stopped` };
    }
    return { status: 'STOPPED', message: `Bulkjob [${job.id}] was stopped` };
  }

  /** `GET /kg/v3/enhance/bulk/{id}/delete`: the job is gone at once; its data is purged behind. */
  async delete(tokenId: string, jobId: string): Promise<void> {
    await this.#remove(await this.job(tokenId, jobId));
  }

  async #remove(job: BulkJobRow): Promise<void> {
    this.#runner?.forget(job.id);
    await this.#deps.store.update(job.id, { state: 'DELETING' });
    const failed = (error: unknown) =>
      this.#deps.logger.error({ err: error, jobId: job.id }, 'bulk delete listener failed');
    for (const listener of this.#deleteListeners) {
      try {
        listener(job.id)?.catch(failed);
      } catch (error) {
        failed(error);
      }
    }
    this.#schedulePurge();
  }

  /**
   * Retention: deletes every job that finished (complete, with failures, or stopped) before
   * `before` (epoch ms), as the delete endpoint would. Returns how many were deleted.
   */
  async deleteFinishedBefore(before: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const expired = await this.#deps.store.listFinishedBefore(before, 100);
      if (expired.length === 0) return deleted;
      for (const job of expired) {
        await this.#remove(job);
        deleted++;
      }
    }
  }

  /** Registers a listener called when a job is deleted (exports remove their files). */
  onDelete(listener: (jobId: string) => void | Promise<void>): void {
    this.#deleteListeners.push(listener);
  }

  /**
   * `GET /kg/v3/enhance/bulk/{id}/{jobIdx}`: the enhance response (JSON text) of the record at
   * 0-based `jobIdx`. 201 while that record has no result; 404 beyond the last record.
   */
  async singleResult(tokenId: string, jobId: string, jobIdx: string): Promise<string> {
    const job = await this.job(tokenId, jobId);
    if (!/^\d{1,9}$/.test(jobIdx)) {
      throw new InvalidParameterError('jobIdx', "Invalid parameter 'jobIdx': must be a 0-based record index");
    }
    const index = Number(jobIdx);
    if (index >= job.total) {
      throw new NotFoundError(`Bulkjob [${job.id}] has ${job.total} records: no record at index ${index}`);
    }
    const result = await this.#deps.store.result(job.id, index);
    if (!result) {
      const why = job.state === 'STOPPED' ? 'was not processed: the job was stopped' : 'is not processed yet';
      throw await this.notReady(job, `Record ${index} of bulkjob [${job.id}] ${why}`);
    }
    return fullResponseText(result);
  }

  /** The job `jobId` of `tokenId`: 400 for a malformed id, 404 when absent or another token's. */
  async job(tokenId: string, jobId: string): Promise<BulkJobRow> {
    if (!isJobId(jobId)) {
      throw new InvalidParameterError(
        'bulkjobId',
        `Invalid bulkjobId ${JSON.stringify(jobId.slice(0, 100))}`,
      );
    }
    const job = await this.#deps.store.get(jobId);
    if (!job || job.tokenId !== tokenId) throw new NotFoundError(`Bulkjob [${jobId}] not found`);
    return job;
  }

  /**
   * The 201 "not ready" answer for a job, with its status record: `IN_PROCESS` while it runs,
   * `STOPPED` once stopped (what it has not processed it never will).
   */
  async notReady(job: BulkJobRow, message: string): Promise<NotReadyError> {
    const status = job.state === 'STOPPED' ? 'STOPPED' : 'IN_PROCESS';
    return new NotReadyError(message, { status, bulkjobStatus: await this.#record(job) });
  }

  async #record(job: BulkJobRow): Promise<BulkJobStatusRecord> {
    const record = statusRecord(job, await this.#deps.store.reports(job.id));
    // Held in memory: while the store refuses writes, the status cannot be written there.
    const fault = this.#runner?.storageFault(job.id);
    if (fault && (record.status === 'IN_PROCESS' || record.status === 'NOT_STARTED'))
      record.message = storageFaultMessage(job.id, fault, this.#now());
    return record;
  }

  #final(job: BulkJobRow): void {
    const failed = (error: unknown) =>
      this.#deps.logger.error({ err: error, jobId: job.id }, 'bulk final-state listener failed');
    for (const listener of this.#finalListeners) {
      try {
        listener(job)?.catch(failed);
      } catch (error) {
        failed(error);
      }
    }
  }

  /** Purges `DELETING` jobs in small transactions, yielding to requests between them. */
  #schedulePurge(): void {
    if (this.#purging) {
      this.#purgeAgain = true;
      return;
    }
    this.#purging = (async () => {
      do {
        this.#purgeAgain = false;
        for (const job of await this.#deps.store.listByState(['DELETING'])) {
          while (!(await this.#deps.store.purge(job.id, PURGE_CHUNK))) {
            await new Promise((resolve) => setImmediate(resolve));
          }
        }
      } while (this.#purgeAgain);
    })()
      .catch((error: unknown) => this.#deps.logger.error({ err: error }, 'bulk purge failed'))
      .finally(() => {
        this.#purging = undefined;
      });
  }
}

/**
 * Validates one submitted record (JSON text) at 0-based position `index`; throws a 400 whose
 * parameter and message name the record and the field: `body[12].type`.
 */
function validateRecord(text: string, index: number): void {
  const where = `body[${index}]`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidParameterError(
      where,
      `Invalid parameter '${where}': not valid JSON: ${(error as Error).message}`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new InvalidParameterError(
      where,
      `Invalid parameter '${where}': must be a JSON object, got ${kind}`,
    );
  }
  try {
    parseEnhanceQuery(value as Record<string, unknown>, 'bulk-record');
  } catch (error) {
    if (!(error instanceof InvalidParameterError)) throw error;
    const field = `'${error.parameter}'`;
    if (error.message.includes(field)) {
      const parameter = `${where}.${error.parameter}`;
      throw new InvalidParameterError(parameter, error.message.replace(field, `'${parameter}'`));
    }
    throw new InvalidParameterError(where, `Invalid parameter '${where}': ${error.message}`);
  }
}

function submissionError(error: unknown): unknown {
  if (error instanceof QuarryError) return error;
  if (error instanceof JsonArraySyntaxError) {
    return new InvalidParameterError('body', `The body is not a valid JSON array: ${error.message}`);
  }
  if (error instanceof JsonBodyTooLargeError)
    return new PayloadTooLargeError(`The body is too large: ${error.message}`);
  if (error instanceof JsonElementTooDeepError) {
    return new InvalidParameterError(
      `body[${error.index}]`,
      `Invalid parameter 'body[${error.index}]': JSON nested deeper than ${MAX_JSON_DEPTH} levels is refused`,
    );
  }
  if (error instanceof JsonElementTooLargeError) {
    return new PayloadTooLargeError(`Record ${error.index} is larger than ${MAX_RECORD_BYTES} bytes`);
  }
  return error;
}

/**
 * Streaming import of entities (JSON Lines or CSV) into the entity store.
 *
 * The input is read chunk by chunk and never held whole. The main thread splits it into lines;
 * parsing, validation and match indexing run in worker threads on jobs of lines, while the main
 * thread merges each statement with what is stored (fact ledger) and writes atomic batches, in
 * input order; retrieval keys are bulk-indexed at the end. A crash leaves
 * every committed batch valid, and the next import (or `indexPendingKeys`) indexes keys left
 * pending. Rejected lines are reported with their number and reason; they never stop the rest.
 */
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EntityStore } from '../storage/index.ts';
import {
  DEFAULT_BATCH_SIZE,
  type ImportCounts,
  ImportSession,
  type SessionOptions,
} from './import-session.ts';
import type { WorkerAnswer, WorkerJob } from './import-worker.ts';
import {
  fromColumns,
  ImportInputError,
  type ImportFormat,
  JobPreparer,
  LineBatcher,
  type PreparedChunk,
  type PrepareJob,
  type PrepareOptions,
  type Rejection,
  toPostedJob,
} from './record-preparer.ts';

export interface ImportOptions extends SessionOptions {
  /** Default: from the file name (`.csv` → csv), else jsonl. */
  readonly format?: ImportFormat;
  /** Name of the input (reports, default source `import:<name>`); default `stdin`. */
  readonly fileName?: string;
  readonly source?: string;
  readonly type?: PrepareOptions['type'];
  readonly map?: string;
  readonly maxLineBytes?: number;
  /** Records state their source's own lower-ranked values in `nonCanonicalFacts` (Wikidata ranks). */
  readonly statedNonCanonicalFacts?: boolean;
  /** Called after each chunk with the bytes read so far. */
  readonly onProgress?: (bytesRead: number) => void;
  /**
   * Called once everything is read and written, before the retrieval keys of the written
   * entities are indexed: a last pass that takes about a fifth of a large import into an empty
   * store and reports no progress of its own (`keyIndexMs` tells how long it took). A large pass
   * runs off the calling thread (`EntityStore.indexPendingKeysOffThread`), so timers still fire.
   */
  readonly onIndexing?: () => void;
  /**
   * Index retrieval keys (default true): first those an earlier import left pending, then, at
   * the end, those of what this import wrote. `false` leaves them all pending, so that a caller
   * importing several inputs indexes once after the last (`EntityStore.indexPendingKeys`): one
   * pass costs less than a pass per input, each of which merges into the whole key index. Until
   * then the entities are stored but not found by enhance.
   */
  readonly indexKeys?: boolean;
  /**
   * Worker threads preparing records (default: the number of cores, at most 2, and 0 on one
   * core); 0 prepares everything on the calling thread.
   */
  readonly workers?: number;
}

/** What an import did. */
export interface ImportSummary extends ImportCounts {
  readonly file: string;
  readonly format: ImportFormat;
  readonly bytesRead: number;
  readonly elapsedMs: number;
  /** The part of `elapsedMs` spent indexing retrieval keys at the end (0 with `indexKeys: false`). */
  readonly keyIndexMs: number;
  /** Accepted lines (created + updated + unchanged) per second of the whole import. */
  readonly entitiesPerSecond: number;
  /** The first rejections (`keepRejects`), in line order. */
  readonly rejects: readonly Rejection[];
}

/** The format of a file by its extension: `.csv` is CSV, anything else JSON Lines. */
export function formatFor(fileName: string): ImportFormat {
  return path.extname(fileName).toLowerCase() === '.csv' ? 'csv' : 'jsonl';
}

/** Lines per job: big enough to amortise messaging, small enough to keep every thread busy. */
const JOB_LINES = 2000;

function defaultWorkers(): number {
  const cores = os.availableParallelism();
  return cores > 1 ? Math.min(2, cores) : 0;
}

/**
 * Imports the entities of `input` (a byte stream: a file, stdin) into `store`. Resolves with the
 * summary; rejects only when the input as a whole cannot be imported (read error, bad column
 * mapping), after writing the valid records read before the failure.
 */
export async function importEntities(
  store: EntityStore,
  input: AsyncIterable<Uint8Array | string>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const started = performance.now();
  const fileName = options.fileName ?? 'stdin';
  const format = options.format ?? formatFor(fileName);
  const prepareOptions: PrepareOptions = {
    format,
    fileName,
    ...(options.source !== undefined ? { source: options.source } : {}),
    ...(options.type !== undefined ? { type: options.type } : {}),
    ...(options.map !== undefined ? { map: options.map } : {}),
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
    ...(options.statedNonCanonicalFacts === true ? { statedNonCanonicalFacts: true } : {}),
  };
  const batcher = new LineBatcher(prepareOptions);
  const session = new ImportSession(store, options);
  // Keys left pending by an import that crashed are indexed first.
  const indexKeys = options.indexKeys !== false;
  if (indexKeys && store.pendingKeyCount() > 0) await store.indexPendingKeysOffThread();
  const workers = options.workers ?? defaultWorkers();
  // Jobs in flight cover a whole batch: while the main thread writes one (seconds, synchronous),
  // the workers prepare the next instead of idling.
  const inFlight = Math.ceil((options.batchSize ?? DEFAULT_BATCH_SIZE) / JOB_LINES) + 2 * workers;
  const preparer =
    workers > 0 ? new PreparerPool(workers, inFlight, prepareOptions) : new InlinePreparer(prepareOptions);
  let bytesRead = 0;
  const take = (chunk: PreparedChunk) => {
    for (const rejection of chunk.rejects) session.reject(rejection);
    session.add(chunk.prepared);
  };
  try {
    for await (const chunk of input) {
      const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      batcher.push(data);
      bytesRead += data.byteLength;
      for (let job = batcher.take(JOB_LINES); job !== undefined; job = batcher.take(JOB_LINES)) {
        for (const done of await preparer.submit(job)) take(done);
      }
      options.onProgress?.(bytesRead);
    }
    batcher.end();
    for (let job = batcher.take(JOB_LINES); job !== undefined; job = batcher.take(JOB_LINES)) {
      for (const done of await preparer.submit(job)) take(done);
    }
    for (const done of await preparer.drain()) take(done);
  } catch (error) {
    // The input broke off (read error, unusable CSV header): what was read and prepared before is
    // valid, so it is written and made findable before the error is reported.
    try {
      for (const done of await preparer.drain()) take(done);
    } catch {
      // The preparation itself failed: keep what was taken so far.
    }
    await preparer.close();
    session.finish({ indexKeys });
    throw error;
  }
  await preparer.close();
  session.counts.linesRead = batcher.linesRead;
  session.finish({ indexKeys: false });
  let keyIndexMs = 0;
  if (indexKeys) {
    // Off the calling thread where the store can: the caller's progress display keeps turning.
    options.onIndexing?.();
    const keysStarted = performance.now();
    await store.indexPendingKeysOffThread();
    keyIndexMs = performance.now() - keysStarted;
  }
  const elapsedMs = performance.now() - started;
  const accepted = session.counts.created + session.counts.updated + session.counts.unchanged;
  return {
    ...session.counts,
    file: fileName,
    format,
    bytesRead,
    elapsedMs,
    keyIndexMs,
    entitiesPerSecond: elapsedMs > 0 ? accepted / (elapsedMs / 1000) : 0,
    rejects: session.rejects,
  };
}

/** Prepares jobs; results come back in submission order. */
interface Preparer {
  /** Submits a job; returns the results that are ready, in order (maybe none). */
  submit(job: PrepareJob): Promise<PreparedChunk[]>;
  /** Waits for every submitted job; returns their results in order. */
  drain(): Promise<PreparedChunk[]>;
  close(): Promise<void>;
}

class InlinePreparer implements Preparer {
  readonly #preparer: JobPreparer;
  constructor(options: PrepareOptions) {
    this.#preparer = new JobPreparer(options);
  }
  async submit(job: PrepareJob): Promise<PreparedChunk[]> {
    return [this.#preparer.prepare(job)];
  }
  async drain(): Promise<PreparedChunk[]> {
    return [];
  }
  async close(): Promise<void> {}
}

/** Worker threads preparing jobs round-robin; a bounded number of jobs in flight. */
class PreparerPool implements Preparer {
  readonly #workers: Worker[];
  readonly #maxInFlight: number;
  readonly #answers = new Map<number, WorkerAnswer>();
  #nextSeq = 0;
  #nextAnswer = 0;
  #wake: (() => void) | undefined;
  #failure: Error | undefined;

  constructor(count: number, maxInFlight: number, options: PrepareOptions) {
    this.#maxInFlight = Math.max(maxInFlight, 2 * count);
    this.#workers = Array.from({ length: count }, () => {
      const worker = new Worker(new URL('./import-worker.ts', import.meta.url), { workerData: options });
      worker.on('message', (answer: WorkerAnswer) => {
        this.#answers.set(answer.seq, answer);
        this.#wake?.();
      });
      worker.on('error', (error) => {
        this.#failure ??= error;
        this.#wake?.();
      });
      worker.on('exit', (code) => {
        if (this.#nextAnswer < this.#nextSeq) {
          this.#failure ??= new Error(`import worker exited (code ${code}) before answering`);
          this.#wake?.();
        }
      });
      return worker;
    });
  }

  async submit(job: PrepareJob): Promise<PreparedChunk[]> {
    const seq = this.#nextSeq++;
    const message: WorkerJob = { seq, ...toPostedJob(job) };
    this.#workers[seq % this.#workers.length].postMessage(message);
    const ready: PreparedChunk[] = [];
    while (this.#nextSeq - this.#nextAnswer >= this.#maxInFlight) ready.push(await this.#next());
    while (this.#answers.has(this.#nextAnswer)) ready.push(await this.#next());
    return ready;
  }

  async drain(): Promise<PreparedChunk[]> {
    const ready: PreparedChunk[] = [];
    while (this.#nextAnswer < this.#nextSeq) ready.push(await this.#next());
    return ready;
  }

  async #next(): Promise<PreparedChunk> {
    for (;;) {
      if (this.#failure) throw this.#failure;
      const answer = this.#answers.get(this.#nextAnswer);
      if (answer !== undefined) {
        this.#answers.delete(this.#nextAnswer);
        this.#nextAnswer++;
        if (answer.error !== undefined) {
          const { name, message } = answer.error;
          throw name === 'ImportInputError' ? new ImportInputError(message) : new Error(message);
        }
        return { prepared: fromColumns(answer.columns), rejects: answer.rejects };
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }
}

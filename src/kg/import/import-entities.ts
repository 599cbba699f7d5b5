/**
 * Streaming import of entities (JSON Lines or CSV) into the entity store.
 *
 * The input is read chunk by chunk and never held whole. Parsing, validation and match indexing
 * run in a worker thread while the main thread merges each statement with what is stored (fact
 * ledger) and writes atomic batches; retrieval keys are bulk-indexed at the end. A crash leaves
 * every committed batch valid, and the next import (or `indexPendingKeys`) indexes keys left
 * pending. Rejected lines are reported with their number and reason; they never stop the rest.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EntityStore } from '../../storage/index.ts';
import { type ImportCounts, ImportSession, type SessionOptions } from './import-session.ts';
import {
  ImportInputError,
  type ImportFormat,
  type PreparedChunk,
  type PrepareOptions,
  RecordPreparer,
  type Rejection,
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
  /** Called after each chunk with the bytes read so far. */
  readonly onProgress?: (bytesRead: number) => void;
  /** Prepare records in a worker thread (default true; false runs everything inline). */
  readonly worker?: boolean;
}

/** What an import did. */
export interface ImportSummary extends ImportCounts {
  readonly file: string;
  readonly format: ImportFormat;
  readonly bytesRead: number;
  readonly elapsedMs: number;
  /** Accepted lines (created + updated + unchanged) per second of the whole import. */
  readonly entitiesPerSecond: number;
  /** The first rejections (`keepRejects`), in line order. */
  readonly rejects: readonly Rejection[];
}

/** The format of a file by its extension: `.csv` is CSV, anything else JSON Lines. */
export function formatFor(fileName: string): ImportFormat {
  return path.extname(fileName).toLowerCase() === '.csv' ? 'csv' : 'jsonl';
}

/** Chunks posted to the worker and not yet answered: bounds memory, keeps both threads busy. */
const MAX_IN_FLIGHT = 8;

/**
 * Imports the entities of `input` (a byte stream: a file, stdin) into `store`. Resolves with the
 * summary; rejects only when the input as a whole cannot be imported (read error, bad column
 * mapping), leaving what was already committed in place.
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
  };
  const session = new ImportSession(store, options);
  // Keys left pending by an import that crashed are indexed first.
  store.indexPendingKeys();
  let bytesRead = 0;
  const take = (chunk: PreparedChunk) => {
    for (const rejection of chunk.rejects) session.reject(rejection);
    session.add(chunk.prepared);
    session.counts.linesRead = chunk.lines;
  };
  const bytes = (chunk: Uint8Array | string): Uint8Array =>
    typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;

  if (options.worker === false) {
    const preparer = new RecordPreparer(prepareOptions);
    for await (const chunk of input) {
      const data = bytes(chunk);
      take(preparer.push(data));
      bytesRead += data.byteLength;
      options.onProgress?.(bytesRead);
    }
    take(preparer.end());
  } else {
    const worker = new PreparerWorker(prepareOptions);
    try {
      const sizes: number[] = [];
      for await (const chunk of input) {
        const data = bytes(chunk);
        worker.post({ kind: 'chunk', data });
        sizes.push(data.byteLength);
        while (sizes.length >= MAX_IN_FLIGHT) {
          take(await worker.next());
          bytesRead += sizes.shift()!;
          options.onProgress?.(bytesRead);
        }
      }
      worker.post({ kind: 'end' });
      while (sizes.length > 0) {
        take(await worker.next());
        bytesRead += sizes.shift()!;
        options.onProgress?.(bytesRead);
      }
      take(await worker.next());
    } finally {
      await worker.terminate();
    }
  }
  session.finish();
  const elapsedMs = performance.now() - started;
  const accepted = session.counts.created + session.counts.updated + session.counts.unchanged;
  return {
    ...session.counts,
    file: fileName,
    format,
    bytesRead,
    elapsedMs,
    entitiesPerSecond: elapsedMs > 0 ? accepted / (elapsedMs / 1000) : 0,
    rejects: session.rejects,
  };
}

type FromWorker =
  | ({ readonly kind: 'chunk' | 'end' } & PreparedChunk)
  | { readonly kind: 'error'; readonly name: string; readonly message: string };

/** The worker thread running a RecordPreparer; answers arrive in the order chunks were posted. */
class PreparerWorker {
  readonly #worker: Worker;
  readonly #answers: FromWorker[] = [];
  #waiting: { resolve: (answer: FromWorker) => void; reject: (error: Error) => void } | undefined;
  #failure: Error | undefined;

  constructor(options: PrepareOptions) {
    this.#worker = new Worker(new URL('./import-worker.ts', import.meta.url), { workerData: options });
    this.#worker.on('message', (answer: FromWorker) => {
      if (this.#waiting) {
        const { resolve } = this.#waiting;
        this.#waiting = undefined;
        resolve(answer);
      } else {
        this.#answers.push(answer);
      }
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) => {
      if (this.#waiting) this.#fail(new Error(`import worker exited (code ${code}) before answering`));
    });
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    if (this.#waiting) {
      const { reject } = this.#waiting;
      this.#waiting = undefined;
      reject(error);
    }
  }

  post(message: { kind: 'chunk'; data: Uint8Array } | { kind: 'end' }): void {
    this.#worker.postMessage(message);
  }

  /** The next answer; throws what the worker reported. */
  async next(): Promise<PreparedChunk> {
    const answer =
      this.#answers.shift() ??
      (await new Promise<FromWorker>((resolve, reject) => {
        if (this.#failure) reject(this.#failure);
        else this.#waiting = { resolve, reject };
      }));
    if (answer.kind === 'error') {
      throw answer.name === 'ImportInputError'
        ? new ImportInputError(answer.message)
        : new Error(answer.message);
    }
    return answer;
  }

  async terminate(): Promise<void> {
    await this.#worker.terminate();
  }
}

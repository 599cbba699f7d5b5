/**
 * The writer thread: applies batches of page outcomes in its own connection to the store, so
 * that commits and WAL checkpoints never hold up the thread that fetches and schedules.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logging.ts';
import type { StoreLocator } from '../storage/index.ts';
import type { OutcomeSink, PendingOutcome } from './outcome-writer.ts';

/** What the writer thread opens. */
export interface OutcomeThreadData {
  readonly store: StoreLocator;
  /** Level of the thread's log lines (pino level name). */
  readonly logLevel: string;
}

export interface OutcomeThreadRequest {
  readonly id: number;
  readonly batch: readonly PendingOutcome[];
}

export type OutcomeThreadResponse =
  | { readonly id: number; readonly applied: boolean[] }
  | { readonly id: number; readonly error: string };

const THREAD_URL = new URL('./outcome-thread-main.ts', import.meta.url);

/** An `OutcomeSink` that writes in a dedicated thread; a lost thread is replaced. */
export class ThreadOutcomeSink implements OutcomeSink {
  readonly #data: OutcomeThreadData;
  readonly #logger: Logger;
  readonly #pending = new Map<number, { resolve(applied: boolean[]): void; reject(error: Error): void }>();
  #worker: Worker;
  #nextId = 0;
  #closed = false;

  constructor(options: OutcomeThreadData & { logger: Logger }) {
    this.#data = { store: options.store, logLevel: options.logLevel };
    this.#logger = options.logger;
    this.#worker = this.#spawn();
  }

  #spawn(): Worker {
    const worker = new Worker(THREAD_URL, { workerData: this.#data });
    worker.on('message', (message: OutcomeThreadResponse) => {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if ('applied' in message) pending.resolve(message.applied);
      else pending.reject(new Error(message.error));
      if (this.#pending.size === 0) worker.unref();
    });
    const lost = (reason: string) => {
      if (this.#worker !== worker) return;
      // Whether a batch in flight was committed is unknown: failing it makes the writer send
      // it again, and outcomes already applied are skipped (their claim no longer holds).
      for (const pending of this.#pending.values())
        pending.reject(new Error(`outcome writer thread ${reason}`));
      this.#pending.clear();
      if (this.#closed) return;
      this.#logger.error({ reason }, 'crawl: outcome writer thread lost, starting another');
      this.#worker = this.#spawn();
    };
    worker.on('error', (error) => lost(`failed: ${error.message}`));
    worker.on('exit', (code) => lost(`exited with code ${code}`));
    worker.unref();
    return worker;
  }

  apply(batch: readonly PendingOutcome[]): Promise<boolean[]> {
    if (this.#closed) return Promise.reject(new Error('outcome writer is closed'));
    const id = ++this.#nextId;
    const request: OutcomeThreadRequest = { id, batch };
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.ref();
      this.#worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#worker.terminate();
  }
}

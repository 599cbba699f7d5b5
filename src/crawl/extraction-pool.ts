/**
 * Runs page extraction in worker threads, so parsing (the costly part of processing a page)
 * uses every core while the main thread fetches and writes. Each worker builds its own
 * extraction engine over a read-only connection to the store (Custom API rule sets are read
 * there, so a rule set saved meanwhile applies to the next page). Pages go to the least busy
 * worker; a worker that dies fails the pages it held and is replaced.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logging.ts';
import type { StoreLocator } from '../storage/index.ts';
import type { PageExtraction, PageExtractor, PageToExtract } from './dependencies.ts';

/** How a worker builds its engine: the store and the outbound address policy. */
export interface ExtractionWorkerData {
  readonly store: StoreLocator;
  readonly allowPrivateNetwork: boolean;
}

/** A request to a worker. */
export interface ExtractionWorkerRequest {
  readonly id: number;
  readonly page: Omit<PageToExtract, 'body'> & { readonly body: Uint8Array };
}

/** A worker's answer: the documents, or why extraction failed. */
export type ExtractionWorkerResponse =
  | { readonly id: number; readonly result: PageExtraction }
  | { readonly id: number; readonly error: { readonly message: string; readonly code?: string } };

/** An extraction failure reported by a worker (the engine's error, by message and code). */
export class ExtractionFailed extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'ExtractionFailed';
    this.code = code;
  }
}

interface Pending {
  resolve(result: PageExtraction): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  readonly pending: Map<number, Pending>;
}

export interface ExtractionPoolOptions extends ExtractionWorkerData {
  /** Worker threads (at least 1). */
  readonly size: number;
  /** Checks API names in the calling thread (cheap: no parsing). */
  readonly checkApi: (tokenId: string, api: string) => Promise<unknown>;
  readonly logger: Logger;
}

const WORKER_URL = new URL('./extraction-worker.ts', import.meta.url);

/** A `PageExtractor` backed by worker threads. */
export class ExtractionPool implements PageExtractor {
  readonly #options: ExtractionPoolOptions;
  readonly #slots: Slot[] = [];
  #nextId = 0;
  #closed = false;

  constructor(options: ExtractionPoolOptions) {
    this.#options = options;
    for (let i = 0; i < Math.max(1, options.size); i++) this.#slots.push(this.#spawn());
  }

  #spawn(): Slot {
    const data: ExtractionWorkerData = {
      store: this.#options.store,
      allowPrivateNetwork: this.#options.allowPrivateNetwork,
    };
    // Parsing makes much short-lived garbage: V8 would grow each worker's young generation to
    // ~100 MiB; 48 MiB (16 MiB semi-spaces) costs no measurable CPU and keeps the heap near 55 MiB.
    const worker = new Worker(WORKER_URL, {
      workerData: data,
      resourceLimits: { maxYoungGenerationSizeMb: 48 },
    });
    const slot: Slot = { worker, pending: new Map() };
    slot.worker.on('message', (message: ExtractionWorkerResponse) => {
      const pending = slot.pending.get(message.id);
      if (!pending) return;
      slot.pending.delete(message.id);
      if ('result' in message) pending.resolve(message.result);
      else pending.reject(new ExtractionFailed(message.error.message, message.error.code));
    });
    // Idle workers must not keep the process alive.
    slot.worker.unref();
    const replace = (reason: string) => {
      const index = this.#slots.indexOf(slot);
      if (index < 0) return;
      for (const pending of slot.pending.values())
        pending.reject(new ExtractionFailed(`Extraction worker ${reason}`));
      slot.pending.clear();
      if (this.#closed) return;
      this.#options.logger.error({ reason }, 'crawl: extraction worker lost, starting another');
      this.#slots[index] = this.#spawn();
    };
    slot.worker.on('error', (error) => replace(`failed: ${error.message}`));
    slot.worker.on('exit', (code) => replace(`exited with code ${code}`));
    return slot;
  }

  async checkApi(tokenId: string, api: string): Promise<void> {
    await this.#options.checkApi(tokenId, api);
  }

  extract(page: PageToExtract): Promise<PageExtraction> {
    if (this.#closed) return Promise.reject(new ExtractionFailed('Extraction is shut down'));
    let slot = this.#slots[0];
    for (const candidate of this.#slots) if (candidate.pending.size < slot.pending.size) slot = candidate;
    const id = ++this.#nextId;
    // A copy the worker owns (the fetched Buffer may share memory with other buffers).
    const body = new Uint8Array(page.body);
    const request: ExtractionWorkerRequest = { id, page: { ...page, body } };
    return new Promise<PageExtraction>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      if (slot.pending.size === 1) slot.worker.ref();
      slot.worker.postMessage(request, [body.buffer]);
    }).finally(() => {
      if (slot.pending.size === 0) slot.worker.unref();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#slots.map((slot) => slot.worker.terminate()));
  }
}

/**
 * Extraction off the main thread, with a time budget per page (issue 24 §8, issue 28). Parsing
 * and extracting a page — built-in extractors and Custom API rules, for `/v3/<api>`, previews
 * and crawls alike — runs in these worker threads, one page per thread at a time. A page that
 * takes longer than its budget is answered with `ExtractionTimeoutError` (`extraction_timeout`)
 * and its thread is terminated and replaced; a page that exhausts a thread's memory likewise
 * (`extraction_too_large`). Nothing one page does can hold the event loop or another page's
 * thread beyond that budget.
 *
 * Interactive work (HTTP requests) is dispatched before background work (crawls), so a large
 * crawl does not make `/v3/article` wait behind thousands of queued pages.
 */
import { Worker } from 'node:worker_threads';
import {
  ERROR_CODES,
  ExtractionFailedError,
  ExtractionTimeoutError,
  ExtractionTooLargeError,
  FetchError,
  InvalidParameterError,
  type QuarryError,
  UnavailableError,
} from '../errors.ts';
import type { ExtractionResponse, PageInput, StoredDocuments } from './extract-page.ts';

/** Longest a thread may take to begin a page it was given (loading its modules), ms. */
const THREAD_START_LIMIT_MS = 60_000;

/** Default time budget of one page, ms. A 10 MB page takes about 1 s with the built-in extractors. */
export const DEFAULT_EXTRACTION_BUDGET_MS = 10_000;
/** Default heap of one extraction thread, MiB: a 10 MB page's DOM needs about 150. */
export const DEFAULT_EXTRACTION_HEAP_MB = 512;
/**
 * An extraction thread with no page for this long ends (its heap, up to `heapMb`, goes back to the
 * system); the next page starts another (~50 ms). As the bulk pool's idle threads do.
 */
export const DEFAULT_EXTRACTION_IDLE_MS = 60_000;
/** Interactive tasks queued at most; more are refused as 503 (the service is saturated). */
const MAX_INTERACTIVE_QUEUE = 256;

/** What a thread is asked: the page, and whether to answer stored documents (crawl). */
export interface ExtractionJob {
  readonly input: PageInput;
  /** When set, the answer is the page's stored documents (crawl) instead of the API response. */
  readonly documents?: { readonly timestamp: number };
}

/** Message to a thread. */
export interface ExtractionThreadRequest {
  readonly id: number;
  readonly job: ExtractionJob;
}

/** A thread's answer: the result, or the engine's error by message and code. */
export type ExtractionThreadReply =
  /** The thread has begun the page: its time budget runs from here. */
  | { readonly id: number; readonly started: true }
  | { readonly id: number; readonly result: ExtractionResponse | StoredDocuments }
  | {
      readonly id: number;
      readonly error: {
        readonly message: string;
        readonly code?: string;
        readonly name?: string;
        readonly status?: number;
        readonly parameter?: string;
      };
    };

/**
 * The error a caller gets for an engine error that came back from a thread: the registered one
 * the engine threw in the thread (a bad parameter, a fetch or "not HTML" error), or
 * `ExtractionFailedError` for anything else (the extractor's own failure, a bug).
 */
function engineError(error: Extract<ExtractionThreadReply, { error: unknown }>['error']): QuarryError {
  if (error.status === undefined || error.status >= 500) return new ExtractionFailedError(error.message);
  if (error.parameter !== undefined) return new InvalidParameterError(error.parameter, error.message);
  const code = error.code;
  const known = code === 'not_html' || (code?.startsWith('fetch_') && code in ERROR_CODES);
  return new FetchError(
    known ? (code as ConstructorParameters<typeof FetchError>[0]) : 'fetch_bad_response',
    error.message,
  );
}

export interface ExtractionThreadsOptions {
  /** Threads at most (at least 1); they start on first use. */
  readonly size: number;
  /** Time budget of one page, ms (from the moment its thread starts on it). */
  readonly budgetMs?: number;
  /** Old-generation heap of each thread, MiB. */
  readonly heapMb?: number;
  /** Told when a thread is replaced, and why. */
  readonly onReplace?: (reason: string) => void;
  /** An idle thread ends after this long, ms (default `DEFAULT_EXTRACTION_IDLE_MS`). */
  readonly idleMs?: number;
}

/** Who is waiting: interactive (a request) or background (a crawl). */
export type ExtractionPriority = 'interactive' | 'background';

interface Task {
  readonly job: ExtractionJob;
  readonly transfer: ArrayBuffer[];
  resolve(result: unknown): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  task: Task | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Ends the idle thread (see `DEFAULT_EXTRACTION_IDLE_MS`). */
  idle: NodeJS.Timeout | undefined;
  id: number;
}

const THREAD_URL = new URL('./extraction-thread-main.ts', import.meta.url);

/** A pool of extraction threads with a hard time budget per page. */
export class ExtractionThreads {
  readonly #size: number;
  readonly #budgetMs: number;
  readonly #heapMb: number;
  readonly #onReplace: ((reason: string) => void) | undefined;
  readonly #idleMs: number;
  readonly #slots: Slot[] = [];
  readonly #interactive: Task[] = [];
  readonly #background: Task[] = [];
  #nextId = 0;
  #closed = false;
  /** Threads replaced after a budget overrun or a crash (for tests and metrics). */
  replaced = 0;
  /** Threads ended for being idle (for tests). */
  retired = 0;

  constructor(options: ExtractionThreadsOptions) {
    this.#size = Math.max(1, Math.floor(options.size));
    this.#budgetMs = options.budgetMs ?? DEFAULT_EXTRACTION_BUDGET_MS;
    this.#heapMb = options.heapMb ?? DEFAULT_EXTRACTION_HEAP_MB;
    this.#onReplace = options.onReplace;
    this.#idleMs = options.idleMs ?? DEFAULT_EXTRACTION_IDLE_MS;
  }

  /** Threads running now (idle ones end after `idleMs`). */
  get threads(): number {
    return this.#slots.length;
  }

  /** The time budget of one page, ms. */
  get budgetMs(): number {
    return this.#budgetMs;
  }

  /** Extracts a page; the API response. A body that owns its ArrayBuffer is transferred (detached here). */
  extract(input: PageInput, priority: ExtractionPriority = 'interactive'): Promise<ExtractionResponse> {
    return this.#submit({ input }, priority) as Promise<ExtractionResponse>;
  }

  /** Extracts a crawled page; its stored documents. */
  documents(input: PageInput, timestamp: number): Promise<StoredDocuments> {
    return this.#submit({ input, documents: { timestamp } }, 'background') as Promise<StoredDocuments>;
  }

  #submit(job: ExtractionJob, priority: ExtractionPriority): Promise<unknown> {
    if (this.#closed) return Promise.reject(new UnavailableError('Extraction is shut down'));
    if (priority === 'interactive' && this.#interactive.length >= MAX_INTERACTIVE_QUEUE) {
      return Promise.reject(new UnavailableError('Too many extractions are waiting; try again in a moment'));
    }
    const content = job.input.content;
    // The bytes move to the thread: a body that owns its whole ArrayBuffer is handed over (the
    // caller must not read it afterwards), a view into a shared one (Buffer's pool) is copied.
    let transfer: ArrayBuffer[] = [];
    let sent = job;
    if ('body' in content) {
      const { body } = content;
      const owns =
        body.byteOffset === 0 &&
        body.byteLength === body.buffer.byteLength &&
        body.buffer instanceof ArrayBuffer;
      const own = owns ? body : new Uint8Array(body);
      transfer = [own.buffer as ArrayBuffer];
      sent = { ...job, input: { ...job.input, content: { ...content, body: own } } };
    }
    return new Promise((resolve, reject) => {
      const task: Task = { job: sent, transfer, resolve, reject };
      (priority === 'interactive' ? this.#interactive : this.#background).push(task);
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#interactive.length > 0 || this.#background.length > 0) {
      let slot = this.#slots.find((candidate) => candidate.task === undefined);
      if (!slot && this.#slots.length < this.#size) {
        slot = this.#spawn();
        this.#slots.push(slot);
      }
      if (!slot) return;
      const task = (this.#interactive.shift() ?? this.#background.shift())!;
      this.#start(slot, task);
    }
  }

  #start(slot: Slot, task: Task): void {
    slot.task = task;
    clearTimeout(slot.idle);
    slot.idle = undefined;
    slot.id = ++this.#nextId;
    slot.worker.ref();
    const request: ExtractionThreadRequest = { id: slot.id, job: task.job };
    slot.worker.postMessage(request, task.transfer);
    // The budget runs from the moment the thread begins the page ('started'), not from here: a
    // thread just spawned loads its modules first, which took over 1.5 s on a loaded host and
    // failed light pages on every fresh thread. Until then only a start-up limit runs.
    slot.timer = setTimeout(() => {
      this.#replace(
        slot,
        new ExtractionFailedError(
          `The extraction thread did not start within ${THREAD_START_LIMIT_MS / 1000} s`,
        ),
        'did not start',
      );
    }, THREAD_START_LIMIT_MS);
  }

  /** Arms the page's time budget once its thread has begun it. */
  #startBudget(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      this.#replace(
        slot,
        new ExtractionTimeoutError(
          `Extracting the page took longer than its ${this.#budgetMs / 1000} s budget and was stopped; ` +
            'simplify its Custom API rules (selectors such as *:has(*:contains(...)) test every element ' +
            'against every descendant) or extract a smaller page',
        ),
        'time budget exceeded',
      );
    }, this.#budgetMs);
  }

  #spawn(): Slot {
    const worker = new Worker(THREAD_URL, {
      resourceLimits: { maxOldGenerationSizeMb: this.#heapMb, maxYoungGenerationSizeMb: 48 },
    });
    const slot: Slot = { worker, task: undefined, timer: undefined, idle: undefined, id: 0 };
    worker.on('message', (reply: ExtractionThreadReply) => {
      if (reply.id !== slot.id || !slot.task) return;
      if ('started' in reply) {
        this.#startBudget(slot);
        return;
      }
      const task = slot.task;
      this.#finish(slot);
      if ('result' in reply) task.resolve(reply.result);
      else task.reject(engineError(reply.error));
      this.#dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const tooLarge = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.#replace(
        slot,
        tooLarge
          ? new ExtractionTooLargeError(
              `Extracting the page needed more than the ${this.#heapMb} MiB an extraction thread may use`,
            )
          : new ExtractionFailedError(`The extraction thread failed: ${error.message}`),
        tooLarge ? 'out of memory' : `failed: ${error.message}`,
      );
    });
    worker.on('exit', (code) => {
      if (this.#slots.includes(slot) && !this.#closed) {
        this.#replace(
          slot,
          new ExtractionFailedError(`The extraction thread exited (code ${code})`),
          `exited (${code})`,
        );
      }
    });
    worker.unref();
    return slot;
  }

  #finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.task = undefined;
    slot.worker.unref();
    if (!this.#closed && slot.idle === undefined) {
      slot.idle = setTimeout(() => this.#retire(slot), this.#idleMs);
      slot.idle.unref();
    }
  }

  /** Ends an idle thread (the next page starts another). */
  #retire(slot: Slot): void {
    slot.idle = undefined;
    const index = this.#slots.indexOf(slot);
    if (index < 0 || slot.task) return;
    this.#slots.splice(index, 1);
    slot.worker.removeAllListeners('exit');
    slot.worker.terminate().catch(() => undefined);
    this.retired++;
  }

  /** Fails the slot's task with `error`, terminates its thread and starts another in its place. */
  #replace(slot: Slot, error: Error, reason: string): void {
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    const task = slot.task;
    this.#finish(slot);
    clearTimeout(slot.idle);
    this.#slots.splice(index, 1);
    slot.worker.removeAllListeners('exit');
    slot.worker.terminate().catch(() => undefined);
    task?.reject(error);
    if (this.#closed) return;
    this.replaced++;
    this.#onReplace?.(reason);
    this.#dispatch();
  }

  /** Fails queued work, stops the threads. */
  async close(): Promise<void> {
    this.#closed = true;
    const closed = new UnavailableError('Extraction is shut down');
    for (const task of [...this.#interactive.splice(0), ...this.#background.splice(0)]) task.reject(closed);
    const slots = this.#slots.splice(0);
    for (const slot of slots) {
      slot.task?.reject(closed);
      this.#finish(slot);
      clearTimeout(slot.idle);
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }
}

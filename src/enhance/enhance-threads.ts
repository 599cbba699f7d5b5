/**
 * Threads that answer single enhance requests, so that a server uses every core for them: the
 * main thread parses HTTP, authenticates and charges; a thread matches and writes the response
 * JSON. Each thread reads the store over its own read-only connection, inside one read snapshot
 * per batch of the requests queued together for it (or per request, with `batch: false`), and
 * shares the main thread's vocabularies (one copy in memory).
 */
import type { VocabularyShareData } from '../threads/index.ts';
import type { StoreLocator } from '../storage/index.ts';
import { WorkerPool } from '../threads/index.ts';
import type { MatchSummary } from './response.ts';
import type { ParsedEnhanceRequest } from './query.ts';

/** Which answer a request asks for. */
export type AnswerKind = 'enhance' | 'combine';

/** A request for an answering thread. */
export interface AnswerTask {
  readonly kind: AnswerKind;
  readonly request: ParsedEnhanceRequest;
  readonly queryCtx: Record<string, unknown>;
}

/**
 * An `AnswerTask` as the main thread posts it: its JSON text, which the thread parses. A task is
 * JSON data (parsed parameters, the submitted query echoed), so the text gives the same task
 * back, but for properties whose value is `undefined` (unset options), which it leaves out and
 * which every reader treats as absent. Measured (callgrind, bench/NOTES.md, issue 30): the
 * structured clone of the task object cost the main thread ~22,000 instructions per request and
 * the thread ~30,000 to read back; `JSON.stringify` and `JSON.parse` of the same task cost less.
 */
export type AnswerTaskText = string;

/**
 * A thread's answer: the response as UTF-8 JSON, how many matched entities it returns (cost), and
 * its candidates for the metrics.
 */
export interface EncodedAnswer {
  /**
   * The response's JSON as UTF-8 bytes, sent as they are. The thread encodes it and hands its
   * memory over (transferred, not copied): the main thread neither copies the text into its heap
   * nor encodes it again for the socket (bench/NOTES.md, issue 30).
   */
  readonly body: Uint8Array<ArrayBuffer>;
  readonly matched: number;
  readonly summary: MatchSummary;
  /** Requests answered in the same read snapshot as this one (1: alone). */
  readonly batched: number;
}

/**
 * An `EncodedAnswer` as a thread posts it: `[body, matched, candidates, bestScore, batched]`. An
 * array has no property names for the structured clone to write and read back (four objects'
 * nine keys per answer before); the main thread builds the `EncodedAnswer` from it.
 */
export type AnswerTuple = readonly [
  body: Uint8Array<ArrayBuffer>,
  matched: number,
  candidates: number,
  bestScore: number | undefined,
  batched: number,
];

/** The `EncodedAnswer` a thread's `AnswerTuple` stands for. */
function decodeAnswer([body, matched, candidates, bestScore, batched]: AnswerTuple): EncodedAnswer {
  return { body, matched, summary: { candidates, bestScore }, batched };
}

const utf8 = new TextDecoder();

/** The response JSON of `answer`, as text (for a caller that reads the response). */
export function answerJson(answer: EncodedAnswer): string {
  return utf8.decode(answer.body);
}

/** What an answering thread is started with. */
export interface AnswerThreadData {
  readonly store: StoreLocator;
  /** Page cache of each thread's connection, MiB. */
  readonly cacheMiB: number;
  readonly vocabularies?: VocabularyShareData;
  /** Whether the requests queued together are answered as one batch (see enhance-thread.ts). */
  readonly batch: boolean;
  /** How much each thread lowers its scheduling priority (and its bridge thread's), 0: not. */
  readonly niceness: number;
}

/**
 * Requests handed to one thread at a time, when it answers them one by one: it never waits for
 * the main thread between them.
 */
const TASKS_PER_THREAD = 4;
/**
 * The same when the requests queued together are answered as a batch: what a batch can hold, so
 * more of them share a read snapshot (and, on PostgreSQL, its round trips). A larger batch costs
 * less per request (1M + 1M, one thread, `bench/thread-stages.ts`: ~470 µs at 4, ~440 at 8,
 * ~390 at 16, ~360 at 32). 32: what one thread takes when it holds every request of the HTTP
 * bench's 32 connections (`QUARRY_ENHANCE_THREADS=1`: its CPU per request 336 / 339 µs against
 * 350 / 364 with 16; bench/NOTES.md, issue 30). Threads take tasks least loaded first, so with
 * more threads each holds its share, as before.
 */
const TASKS_PER_BATCHING_THREAD = 32;
/**
 * Niceness of batching threads. Batched, an enhance thread never waits for the main thread (nor,
 * on PostgreSQL, for the database): the threads (and PostgreSQL's bridges and backends) keep both
 * cores busy, and the main thread, which parses, charges and feeds them, waited for the CPU.
 * Measured (bench/http.ts, 20k + 20k, 32 connections, load 7-9) on PostgreSQL: niceness 0 714 /
 * 737 req/s, event-loop delay p99 22.7 / 20.5 ms; niceness 5 832 / 830 req/s, 17.8 / 17.7 ms.
 * On SQLite see bench/NOTES.md (issue 30).
 */
const BATCHING_THREAD_NICENESS = 5;

/** Answers enhance requests off the main thread. */
export interface EnhanceThreads {
  /** Starts the threads now rather than on the first request. */
  start(): void;
  answer(task: AnswerTask): Promise<EncodedAnswer>;
  close(): Promise<void>;
}

/**
 * `threads` answering threads over the store `store`, started on the first request (a server
 * that never answers an enhance request never starts them).
 */
export function createEnhanceThreads(options: {
  readonly store: StoreLocator;
  readonly threads: number;
  /**
   * Page cache of each thread's connection, MiB (default 32, as the bulk workers: a 1M-record
   * job's server peaked at 1.83 GiB of RSS with 64, against a 2 GiB budget).
   */
  readonly cacheMiB?: number;
  /** Vocabularies shared with the other matching threads, asked for when each thread starts. */
  readonly vocabularies?: () => VocabularyShareData;
  readonly onCrash?: (error: Error) => void;
  /**
   * Whether each thread answers the requests queued for it together (their reads made at once,
   * in one read snapshot; the same answers). Default true: on SQLite ~25% less CPU per request
   * (bench/NOTES.md, issue 30), on PostgreSQL a few round trips per batch instead of ~2.6 per
   * request (issue 26).
   */
  readonly batch?: boolean;
  /** Niceness of the threads: `BATCHING_THREAD_NICENESS` (5) when they batch, else 0. */
  readonly niceness?: number;
}): EnhanceThreads {
  // Tasks travel as JSON text (`AnswerTaskText`), not as objects for the structured clone.
  let pool: WorkerPool<AnswerTaskText, EncodedAnswer, AnswerTuple> | undefined;
  let closed = false;
  const { vocabularies } = options;
  const batch = options.batch ?? true;
  const spawn = () =>
    new WorkerPool<AnswerTaskText, EncodedAnswer, AnswerTuple>(
      {
        size: options.threads,
        script: new URL('./enhance-thread.ts', import.meta.url),
        workerData: {
          store: options.store,
          cacheMiB: options.cacheMiB ?? 32,
          batch,
          niceness: options.niceness ?? (batch ? BATCHING_THREAD_NICENESS : 0),
        } satisfies AnswerThreadData,
        ...(vocabularies ? { workerDataAtStart: () => ({ vocabularies: vocabularies() }) } : {}),
        tasksPerWorker: batch ? TASKS_PER_BATCHING_THREAD : TASKS_PER_THREAD,
        onCrash: options.onCrash,
      },
      decodeAnswer,
    );
  return {
    start() {
      if (!closed) pool ??= spawn();
    },
    answer(task) {
      if (closed) return Promise.reject(new Error('the enhance threads are closed'));
      pool ??= spawn();
      return pool.run(JSON.stringify(task));
    },
    async close() {
      closed = true;
      await pool?.close();
    },
  };
}

import type { VocabularyShareData } from '../threads/index.ts';
import type { StoreLocator } from '../storage/index.ts';
import type { BatchExecutor } from './bulk-runner.ts';
import type { EnhanceBatch, EnhanceBatchResult, EnhanceWorkerData } from './enhance-batch.ts';
import { WorkerPool } from '../threads/index.ts';

/**
 * The old generation's limit of a bulk worker thread (MiB). V8 lets a heap grow to a multiple of
 * what a full collection left live before collecting again, and picks that multiple from the
 * limit: 4 for a limit of 2 GiB or more (a thread's default on a machine with a few GiB of memory),
 * ~1.8 at this one. A worker's live heap is ~50 MiB on the 50k + 50k demo graph (every batch's
 * profiles, queries and vectors die with it), so at the default its heap piled up to ~260 MiB and
 * the `HeapTrimmer` forced a full collection every ~10 batches; a forced collection also drops the
 * hidden classes no live object uses, so the hot matcher code specialised on them was thrown away
 * and compiled again after each (~20 deoptimisations per trim). At this limit V8's own collections
 * run before the trimmer's trigger, keep those classes, and the peak RSS is lower too (issue 30,
 * bench/NOTES.md). On the 1M + 1M graph too: V8 collects at 150–200 MiB used, leaving 40–63 MiB
 * live, and the trimmer (floor 256 MiB) forced no collection in 200,000 records; it stays as the
 * bound for a heap that V8 would let grow past that. The limit itself is far above what a worker
 * holds (an old generation this large would only be a leak: the thread ends and its batch is
 * answered again).
 */
export const BULK_WORKER_OLD_GENERATION_MIB = 1536;

/** The worker threads that answer bulk batches: `threads` of them over the store `store`. */
export function createEnhancePool(options: {
  readonly store: StoreLocator;
  readonly threads: number;
  /**
   * Nice value of the threads (default 15: well below the main thread, which serves requests and
   * stores results). Measured with 300k records: p99 of single enhance during the job 108 → 45 ms,
   * and records/s up too, since commits no longer wait for the CPU.
   */
  readonly niceness?: number;
  readonly cacheMiB?: number;
  /**
   * Vocabularies shared with the other matching threads (default: the threads' own), asked for
   * when each thread starts so that it gets the tables built so far.
   */
  readonly vocabularies?: () => VocabularyShareData;
  readonly onCrash?: (error: Error) => void;
  /** A thread without a batch for this long ends (default 60 s); 0 keeps them. */
  readonly idleTimeoutMs?: number;
}): BatchExecutor {
  const workerData: EnhanceWorkerData = {
    store: options.store,
    cacheMiB: options.cacheMiB ?? 32,
    niceness: options.niceness ?? 15,
  };
  const { vocabularies } = options;
  return new WorkerPool<EnhanceBatch, EnhanceBatchResult>({
    size: options.threads,
    script: new URL('./enhance-worker.ts', import.meta.url),
    workerData,
    ...(vocabularies ? { workerDataAtStart: () => ({ vocabularies: vocabularies() }) } : {}),
    tasksPerWorker: 2,
    onCrash: options.onCrash,
    // Between jobs the threads and their caches go (issue 28: memory back near its level before
    // load); a job's first batch starts them again.
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
    resourceLimits: { maxOldGenerationSizeMb: BULK_WORKER_OLD_GENERATION_MIB },
  });
}

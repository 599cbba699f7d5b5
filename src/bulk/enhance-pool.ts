import type { BatchExecutor } from './bulk-runner.ts';
import type { EnhanceBatch, EnhanceBatchResult, EnhanceWorkerData } from './enhance-batch.ts';
import { WorkerPool } from './worker-pool.ts';

/** The worker threads that answer bulk batches: `threads` of them over the store `dbFile`. */
export function createEnhancePool(options: {
  readonly dbFile: string;
  readonly threads: number;
  /** Nice value of the threads (default 5: below the main thread, which serves requests). */
  readonly niceness?: number;
  readonly cacheMiB?: number;
  readonly onCrash?: (error: Error) => void;
}): BatchExecutor {
  const workerData: EnhanceWorkerData = {
    dbFile: options.dbFile,
    cacheMiB: options.cacheMiB ?? 32,
    niceness: options.niceness ?? 5,
  };
  return new WorkerPool<EnhanceBatch, EnhanceBatchResult>({
    size: options.threads,
    script: new URL('./enhance-worker.ts', import.meta.url),
    workerData,
    tasksPerWorker: 2,
    onCrash: options.onCrash,
  });
}

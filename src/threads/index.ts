/**
 * Worker threads: the pool that runs the enhance and bulk threads (`worker-pool.ts`; why it is
 * ours is in its header), heap trimming for long-lived threads (`heap-trim.ts`) and lowering a
 * worker thread's scheduling priority (`thread-priority.ts`), and one copy of each term
 * vocabulary for all the threads that match (`vocabulary-share.ts`).
 */
export type { HeapTrimOptions } from './heap-trim.ts';
export { HeapTrimmer, heapTrimAvailable, SERVER_HEAP_TRIM, WORKER_HEAP_TRIM } from './heap-trim.ts';
export { lowerThreadPriority } from './thread-priority.ts';
export { createVocabularyShareData, VocabularyShare, type VocabularyShareData } from './vocabulary-share.ts';
export type { TransferOf, WorkerPoolOptions, WorkerReply, WorkerRequest } from './worker-pool.ts';
export {
  serveTaskBatches,
  serveTasks,
  WorkerCrashedError,
  WorkerPool,
  WorkerTaskError,
} from './worker-pool.ts';

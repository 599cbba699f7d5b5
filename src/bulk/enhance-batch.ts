import type { VocabularyShareData } from '../threads/index.ts';
import type { BulkRecord, BulkResult, StoreLocator } from '../storage/index.ts';
import type { BulkJobOptions } from './job-record.ts';

/** What an enhance worker thread is started with. */
export interface EnhanceWorkerData {
  /** The store, opened read-only by each thread. */
  readonly store: StoreLocator;
  /** Page cache of each thread's connection, MiB. */
  readonly cacheMiB: number;
  /** Nice value added to worker threads (0 = same priority as the main thread). */
  readonly niceness: number;
  /** Vocabularies shared with the server's other matching threads; absent: the thread's own. */
  readonly vocabularies?: VocabularyShareData;
}

/** A batch of one job's records for a worker thread to answer. */
export interface EnhanceBatch {
  readonly jobId: string;
  readonly options: BulkJobOptions;
  readonly records: readonly BulkRecord[];
}

/** A worker thread's answers, one per record of the batch, in the batch's order. */
export interface EnhanceBatchResult {
  readonly results: BulkResult[];
}

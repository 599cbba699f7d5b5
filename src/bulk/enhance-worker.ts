/**
 * Worker thread entry of the bulk runner: answers batches of bulk records with the `Enhancer`
 * over its own read-only connection to the store (WAL lets it read while the main thread
 * writes). It never writes and never charges: the main thread stores each batch's results and
 * their charges in one transaction, so a result and its payment happen exactly once.
 */
import { workerData } from 'node:worker_threads';
import { matchedCount, openThreadEnhancer, parseEnhanceQuery } from '../enhance/index.ts';
import { jobSearchMode } from './job-record.ts';
import { HeapTrimmer, lowerThreadPriority, serveTasks, WORKER_HEAP_TRIM } from '../threads/index.ts';
import type { EnhanceBatch, EnhanceBatchResult, EnhanceWorkerData } from './enhance-batch.ts';
import { recordFailure, splitResponse } from './result-text.ts';

const data = workerData as EnhanceWorkerData;

lowerThreadPriority(data.niceness);
const { storage, enhancer } = openThreadEnhancer(data);
const heap = new HeapTrimmer(WORKER_HEAP_TRIM);

function answer(batch: EnhanceBatch): EnhanceBatchResult {
  const results: EnhanceBatchResult['results'] = [];
  for (const record of batch.records) {
    try {
      const submitted = JSON.parse(record.query) as Record<string, unknown>;
      const parsed = parseEnhanceQuery(submitted, 'bulk-record');
      const { token: _token, ...echo } = submitted;
      const options = { ...parsed.options, ...batch.options, search: jobSearchMode(batch.options) };
      const response = enhancer.enhance(
        { ...parsed, options },
        { ...echo, bulkjobId: batch.jobId, jobIdx: record.index },
      );
      results.push({
        index: record.index,
        hits: matchedCount(response),
        failed: false,
        ...splitResponse(response),
      });
    } catch (error) {
      // Records were validated at submission: an error here is a broken store (registered, to
      // retry: the batch goes back) or a bug (the record fails alone, not its whole batch).
      results.push(recordFailure(record, batch.jobId, error, 'Internal error while answering this record'));
    }
  }
  return { results };
}

serveTasks(
  // One read snapshot per batch: the main thread's commits (results, progress) would otherwise
  // flush this connection's page cache before nearly every statement.
  (batch: EnhanceBatch) => storage.readSnapshot(() => answer(batch)),
  // Between batches (the reply is on its way): garbage of the batch goes before it piles up.
  () => heap.maybeTrim(),
);

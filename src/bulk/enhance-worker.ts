/**
 * Worker thread entry of the bulk runner: answers batches of bulk records with the `Enhancer`
 * over its own read-only connection to the store (WAL lets it read while the main thread
 * writes). It never writes and never charges: the main thread stores each batch's results and
 * their charges in one transaction, so a result and its payment happen exactly once.
 */
import { workerData } from 'node:worker_threads';
import {
  BatchReads,
  Enhancer,
  matchedCount,
  type ParsedEnhanceRequest,
  parseEnhanceQuery,
} from '../enhance/index.ts';
import { createMatcher } from '../match/index.ts';
import { openStorage } from '../storage/index.ts';
import { jobSearchMode } from './job-record.ts';
import {
  HeapTrimmer,
  lowerThreadPriority,
  serveTasks,
  VocabularyShare,
  WORKER_HEAP_TRIM,
} from '../threads/index.ts';
import type { EnhanceBatch, EnhanceBatchResult, EnhanceWorkerData } from './enhance-batch.ts';
import { recordFailure, splitResponse } from './result-text.ts';

const data = workerData as EnhanceWorkerData;

lowerThreadPriority(data.niceness);
// As `openThreadEnhancer`, with the matcher and entity reads of a whole batch made at once.
const storage = openStorage(data.store, { readOnly: true, cacheMiB: data.cacheMiB });
const share = data.vocabularies ? new VocabularyShare(data.vocabularies) : undefined;
const reads = new BatchReads(createMatcher(storage.entities, share ? { share } : {}), storage.entities);
const enhancer = new Enhancer(reads.deps);
const heap = new HeapTrimmer(WORKER_HEAP_TRIM);

/** A record read for answering: its request and echoed context, or why it cannot be read. */
type ReadRecord =
  | { readonly request: ParsedEnhanceRequest; readonly queryCtx: Record<string, unknown> }
  | { readonly error: unknown };

function readRecord(batch: EnhanceBatch, record: EnhanceBatch['records'][number]): ReadRecord {
  try {
    const submitted = JSON.parse(record.query) as Record<string, unknown>;
    const parsed = parseEnhanceQuery(submitted, 'bulk-record');
    const { token: _token, ...echo } = submitted;
    const options = { ...parsed.options, ...batch.options, search: jobSearchMode(batch.options) };
    return {
      request: { ...parsed, options },
      queryCtx: { ...echo, bulkjobId: batch.jobId, jobIdx: record.index },
    };
  } catch (error) {
    return { error };
  }
}

function answer(batch: EnhanceBatch): EnhanceBatchResult {
  const results: EnhanceBatchResult['results'] = [];
  const read = batch.records.map((record) => readRecord(batch, record));
  reads.prepare(read.flatMap((item) => ('request' in item ? [item.request] : [])));
  try {
    answerEach(batch, read, results);
  } finally {
    reads.clear();
  }
  return { results };
}

/** Answers the batch's records one by one (from what `reads.prepare` read), into `results`. */
function answerEach(
  batch: EnhanceBatch,
  read: readonly ReadRecord[],
  results: EnhanceBatchResult['results'],
): void {
  for (const [i, record] of batch.records.entries()) {
    try {
      const item = read[i];
      if ('error' in item) throw item.error;
      const response = enhancer.enhance(item.request, item.queryCtx);
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
}

serveTasks(
  // One read snapshot per batch: the main thread's commits (results, progress) would otherwise
  // flush this connection's page cache before nearly every statement.
  (batch: EnhanceBatch) => storage.readSnapshot(() => answer(batch)),
  // Between batches (the reply is on its way): garbage of the batch goes before it piles up.
  () => heap.maybeTrim(),
);

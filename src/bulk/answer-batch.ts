import type { Logger } from '../logging.ts';
import type { BulkResult } from '../storage/index.ts';
import type { BatchExecutor } from './bulk-runner.ts';
import type { EnhanceBatch } from './enhance-batch.ts';
import { failureResult } from './result-text.ts';

/** Tries of a batch whose worker thread died, before it is split into single records. */
export const BATCH_TRIES = 2;
/** Tries of a single record whose worker thread died, before it is stored as failed. */
export const RECORD_TRIES = 2;

/**
 * The answers of a batch from the worker threads: the batch is tried again when its thread dies
 * (a crash or running out of memory on one record), then its records one by one; a record that
 * still fails is answered with a failure result, so one poisonous record fails alone.
 */
export async function answerBatch(
  executor: BatchExecutor,
  batch: EnhanceBatch,
  logger: Pick<Logger, 'warn'>,
): Promise<BulkResult[]> {
  for (let tries = 1; ; tries++) {
    try {
      return (await executor.run(batch)).results;
    } catch (error) {
      logger.warn({ err: error, jobId: batch.jobId, records: batch.records.length }, 'bulk batch failed');
      if (tries >= (batch.records.length > 1 ? BATCH_TRIES : RECORD_TRIES)) break;
    }
  }
  if (batch.records.length === 1) {
    return [
      failureResult(batch.records[0], batch.jobId, 'Internal error: answering this record failed repeatedly'),
    ];
  }
  const results: BulkResult[] = [];
  for (const record of batch.records) {
    results.push(...(await answerBatch(executor, { ...batch, records: [record] }, logger)));
  }
  return results;
}

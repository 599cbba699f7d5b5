import { type ErrorOutcome, outcomeOf } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type { BulkResult } from '../storage/index.ts';
import type { EnhanceBatch, EnhanceBatchResult } from './enhance-batch.ts';
import { failureResult } from './result-text.ts';

/** Tries of a batch whose worker thread died, before it is split into single records. */
export const BATCH_TRIES = 2;
/** Tries of a single record whose worker thread died, before it is stored as failed. */
export const RECORD_TRIES = 2;

/** The message of an error, without the stack a worker thread's error carries. */
function firstLine(message: string): string {
  return message.split('\n', 1)[0].replace(/^\w*Error: /, '');
}

/**
 * The error text of a record that failed for good: a registered error that fails the record
 * (`fail-record`) says what it is; anything else was an internal failure, tried repeatedly.
 */
export function failedRecordMessage(error: unknown, outcome: ErrorOutcome | undefined): string {
  return outcome === 'fail-record' && error instanceof Error
    ? firstLine(error.message)
    : 'Internal error: answering this record failed repeatedly';
}

/**
 * The answers of a batch from the worker threads, acting on the error's registered outcome
 * (`outcomeOf`): a batch is tried again when its thread dies (a crash or running out of memory
 * on one record) or its error says `retry`, then its records one by one; a record that still
 * fails is answered with a failure result, so one poisonous record fails alone. An error that
 * fails the record (`fail-record`) is not tried again: its batch splits at once, its record
 * fails with the error's message. (A `stop-job` error fails the record too: a job on the shared
 * queue is stopped by its owner, not by a batch.)
 */
export async function answerBatch(
  executor: { run(batch: EnhanceBatch): Promise<EnhanceBatchResult> },
  batch: EnhanceBatch,
  logger: Pick<Logger, 'warn'>,
): Promise<BulkResult[]> {
  let failure: { error: unknown; outcome: ErrorOutcome | undefined } | undefined;
  for (let tries = 1; ; tries++) {
    try {
      return (await executor.run(batch)).results;
    } catch (error) {
      const outcome = outcomeOf(error);
      failure = { error, outcome };
      logger.warn(
        { err: error, jobId: batch.jobId, records: batch.records.length, outcome },
        'bulk batch failed',
      );
      if (outcome === 'fail-record' || outcome === 'stop-job') break;
      if (tries >= (batch.records.length > 1 ? BATCH_TRIES : RECORD_TRIES)) break;
    }
  }
  if (batch.records.length === 1) {
    const message = failedRecordMessage(
      failure.error,
      failure.outcome === 'stop-job' ? 'fail-record' : failure.outcome,
    );
    return [failureResult(batch.records[0], batch.jobId, message)];
  }
  const results: BulkResult[] = [];
  for (const record of batch.records) {
    results.push(...(await answerBatch(executor, { ...batch, records: [record] }, logger)));
  }
  return results;
}

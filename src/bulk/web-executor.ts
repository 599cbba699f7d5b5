/**
 * Refresh and search in bulk jobs (docs/api.md#bulk-submission): the worker threads answer each
 * record from the graph as for any job; the records of a job with `refresh` or a `search` mode
 * are then completed on the main thread by enhance's `WebEvidence`, at bulk priority (a person's
 * request goes first at a busy host) and without the deadline of a single request. Every record
 * of a batch is completed at once, so the batch's fetches wait in the queues of their hosts side
 * by side: hosts work in parallel, each at its polite pace. Records whose entity a refresh
 * changed are answered again by the threads, for their scores after the evidence (the main
 * thread, which fetches and merges for every job, does no matching). The result carries the pages read
 * (added to the job's counts when it is stored) and how many of its entities web work was done
 * for (their price).
 */
import {
  type EnhanceResponse,
  parseEnhanceQuery,
  type ParsedEnhanceRequest,
  type WebAnswer,
  type WebEvidence,
} from '../enhance/index.ts';
import type { BulkRecord, BulkResult } from '../storage/index.ts';
import type { BatchExecutor } from './bulk-runner.ts';
import type { EnhanceBatch, EnhanceBatchResult } from './enhance-batch.ts';
import { jobSearchMode } from './job-record.ts';
import { recordFailure, splitResponse } from './result-text.ts';

/** Batches of web jobs in flight beside the worker threads' own (they mostly wait on hosts). */
export const WEB_BATCHES = 16;

/** A record of a batch after the web work: its graph result, and what the web work made of it. */
interface Completed {
  readonly result: BulkResult;
  readonly record?: BulkRecord;
  readonly completed?: WebAnswer;
}

/** A record whose web work threw: failed alone, or its batch thrown back (`recordFailure`). */
function failure(record: BulkRecord, batch: EnhanceBatch, error: unknown): BulkResult {
  return recordFailure(
    record,
    batch.jobId,
    error,
    'Internal error while refreshing or searching this record',
  );
}

/** The request a bulk record makes, with the job's options (as the worker threads read it). */
function recordRequest(record: BulkRecord, batch: EnhanceBatch): ParsedEnhanceRequest {
  const parsed = parseEnhanceQuery(JSON.parse(record.query) as Record<string, unknown>, 'bulk-record');
  return {
    ...parsed,
    options: { ...parsed.options, ...batch.options, search: jobSearchMode(batch.options) },
  };
}

/** `inner` (the worker threads), with web jobs' records completed by `web`. */
export function withWebEvidence(inner: BatchExecutor, web: WebEvidence): BatchExecutor {
  return {
    capacity: inner.capacity + WEB_BATCHES,
    async run(batch: EnhanceBatch): Promise<EnhanceBatchResult> {
      const answer = await inner.run(batch);
      const options = { ...batch.options, search: jobSearchMode(batch.options) };
      if (!web.wanted(options)) return answer;
      const byIndex = new Map(batch.records.map((record) => [record.index, record]));
      const done = await Promise.all(
        answer.results.map(async (result): Promise<Completed> => {
          const record = byIndex.get(result.index);
          if (result.failed || !record) return { result };
          try {
            const graph = {
              ...(JSON.parse(result.response) as Omit<EnhanceResponse, 'searchInfo'>),
              searchInfo: JSON.parse(result.searchInfo) as EnhanceResponse['searchInfo'],
            };
            const completed = await web.complete('enhance', recordRequest(record, batch), graph, {
              priority: 'bulk',
              rescore: 'deferred',
            });
            return { result, record, completed };
          } catch (error) {
            // A bug: the record fails alone, not its batch; a registered error to retry: the batch.
            return { result: failure(record, batch, error) };
          }
        }),
      );
      // Records whose refresh changed an entity are answered again by the threads, over the
      // graph as it is now: their scores after the evidence.
      const again = done.filter((d) => d.completed?.rescore).map((d) => d.record!);
      if (again.length > 0) {
        // A thread lost here costs the records their new scores, not their refresh.
        const fresh = await inner
          .run({
            jobId: batch.jobId,
            options: { ...batch.options, refresh: false, search: 'OFF' },
            records: again,
          })
          .catch(() => ({ results: [] as BulkResult[] }));
        const byRecord = new Map(fresh.results.map((r) => [r.index, r]));
        for (const d of done) {
          const answer = d.completed?.rescore ? byRecord.get(d.result.index) : undefined;
          if (!answer || answer.failed) continue;
          web.rescored(d.completed!.response, {
            ...(JSON.parse(answer.response) as Omit<EnhanceResponse, 'searchInfo'>),
            searchInfo: JSON.parse(answer.searchInfo) as EnhanceResponse['searchInfo'],
          });
        }
      }
      const results = done.map(({ result, completed }): BulkResult => {
        if (!completed) return result;
        return {
          index: result.index,
          hits: completed.response.hits,
          failed: false,
          ...splitResponse(completed.response),
          pages: completed.pages,
          premium: completed.premium,
        };
      });
      return { results };
    },
    close: () => inner.close(),
  };
}

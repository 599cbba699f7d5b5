import type { EnhanceResponse } from '../enhance/index.ts';
import type { BulkResult } from '../storage/index.ts';
import { outcomeOf } from '../errors.ts';
// Not through export/index.ts: that loads the writers (exceljs among them), which a bulk worker
// storing results never uses.
import { responseSummary } from '../export/result-summary.ts';

/**
 * A stored result keeps the enhance response in two JSON texts: everything but `searchInfo`,
 * and `searchInfo` (see `BulkResult`). `searchInfo` is the last field of a response, so joining
 * the two gives the very text `JSON.stringify` makes of the whole response. Beside them, the
 * response's summary (`export/result-summary.ts`): what CSV downloads of the default columns
 * read instead of parsing the whole response.
 */
export function splitResponse(
  response: EnhanceResponse,
): Pick<BulkResult, 'response' | 'searchInfo'> & { summary: string } {
  const { searchInfo, ...rest } = response;
  return {
    response: JSON.stringify(rest),
    searchInfo: JSON.stringify(searchInfo ?? {}),
    summary: responseSummary(rest),
  };
}

/** The full response text of a stored result (what downloads and the single-result endpoint send). */
export function fullResponseText(result: Pick<BulkResult, 'response' | 'searchInfo'>): string {
  return `${result.response.slice(0, -1)},"searchInfo":${result.searchInfo}}`;
}

/**
 * The result of a record whose answering threw, by the error's registered outcome (`outcomeOf`):
 * `fail-record` gives a failed result with the error's message; `retry` and `stop-job` are
 * thrown again, so the batch goes back to the runner (which tries it again or stops the job);
 * any other error (a bug) gives a failed result "`internal`: message", the record failing alone.
 */
export function recordFailure(
  record: { index: number; query: string },
  jobId: string,
  error: unknown,
  internal: string,
): BulkResult {
  const outcome = outcomeOf(error);
  if (outcome === 'retry' || outcome === 'stop-job') throw error;
  const message = (error as Error)?.message ?? String(error);
  return failureResult(record, jobId, outcome === 'fail-record' ? message : `${internal}: ${message}`);
}

/** A failed record's result: no data, `message` in `errors`; the query echoed as submitted. */
export function failureResult(
  record: { index: number; query: string },
  jobId: string,
  message: string,
  kgversion = '',
): BulkResult {
  const response: EnhanceResponse = {
    version: 3,
    hits: 0,
    kgversion,
    request_ctx: { query: record.query, query_ctx: { bulkjobId: jobId, jobIdx: record.index } },
    data: [],
    errors: [message],
    searchInfo: {},
  };
  return { index: record.index, hits: 0, failed: true, ...splitResponse(response) };
}

import type { EnhanceResponse } from '../enhance/index.ts';
import type { BulkResult } from '../storage/index.ts';

/**
 * A stored result keeps the enhance response in two JSON texts: everything but `searchInfo`,
 * and `searchInfo` (see `BulkResult`). `searchInfo` is the last field of a response, so joining
 * the two gives the very text `JSON.stringify` makes of the whole response.
 */
export function splitResponse(response: EnhanceResponse): Pick<BulkResult, 'response' | 'searchInfo'> {
  const { searchInfo, ...rest } = response;
  return { response: JSON.stringify(rest), searchInfo: JSON.stringify(searchInfo ?? {}) };
}

/** The full response text of a stored result (what downloads and the single-result endpoint send). */
export function fullResponseText(result: Pick<BulkResult, 'response' | 'searchInfo'>): string {
  return `${result.response.slice(0, -1)},"searchInfo":${result.searchInfo}}`;
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

/**
 * Bulk job and report rows as both adapters store them: the same columns in PostgreSQL and in
 * SQLite, mapped to the port's shapes in one place (as crawl-counters.ts is for crawl counters).
 */
import type {
  BulkJobPatch,
  BulkJobRow,
  BulkJobState,
  BulkReportPatch,
  BulkReportRow,
  BulkReportStatus,
  BulkResult,
  BulkWebhookState,
} from './ports.ts';

export interface JobRow {
  seq: number;
  id: string;
  token_id: string;
  name: string;
  options: string;
  webhook_url: string | null;
  state: BulkJobState;
  message: string;
  total: number;
  completed: number;
  failed: number;
  hits: number;
  result_bytes: number;
  submit_time: number;
  start_time: number | null;
  completed_time: number | null;
  estimate_sec: number | null;
  webhook: string | null;
  pages_fetched: number;
  pages_failed: number;
  pages_fresh: number;
}

export interface ReportRow {
  id: string;
  job_id: string;
  key: string;
  format: string;
  spec: string;
  export_file: string;
  separator: string;
  filter: string;
  status: BulkReportStatus;
  export_status: BulkReportStatus;
  export_bytes: number | null;
  error: string | null;
  created_at: number;
}

export function toJob(row: JobRow): BulkJobRow {
  return Object.freeze({
    id: row.id,
    tokenId: row.token_id,
    name: row.name,
    options: JSON.parse(row.options) as Record<string, unknown>,
    webhookUrl: row.webhook_url,
    state: row.state,
    message: row.message,
    total: row.total,
    completed: row.completed,
    failed: row.failed,
    hits: row.hits,
    resultBytes: row.result_bytes,
    submitTime: row.submit_time,
    startTime: row.start_time,
    completedTime: row.completed_time,
    estimateSec: row.estimate_sec,
    webhook: row.webhook === null ? null : (JSON.parse(row.webhook) as BulkWebhookState),
    pages: { fetched: row.pages_fetched, failed: row.pages_failed, fresh: row.pages_fresh },
  });
}

export function toReport(row: ReportRow): BulkReportRow {
  return Object.freeze({
    id: row.id,
    jobId: row.job_id,
    key: row.key,
    format: row.format,
    spec: row.spec,
    exportFile: row.export_file,
    separator: row.separator,
    filter: row.filter,
    status: row.status,
    exportStatus: row.export_status,
    exportBytes: row.export_bytes,
    error: row.error,
    createdAt: row.created_at,
  });
}

/** `,"searchInfo":` joins the two parts of a stored response (see `BulkResult`). */
export const SEARCH_INFO_JOINT = Buffer.byteLength(',"searchInfo":');

/** UTF-8 bytes of a result as one JSON Lines line: the full response and its newline. */
export function jsonLineBytes(result: BulkResult): number {
  return Buffer.byteLength(result.response) + SEARCH_INFO_JOINT + Buffer.byteLength(result.searchInfo) + 1;
}

/**
 * What a batch of results adds to its job's counters, in the order both adapters' updates take
 * them: completed, failed, hits, result bytes, pages fetched, pages failed, pages fresh.
 */
export function resultCounters(results: readonly BulkResult[]): number[] {
  let failed = 0;
  let hits = 0;
  let bytes = 0;
  const pages = { fetched: 0, failed: 0, fresh: 0 };
  for (const result of results) {
    if (result.failed) failed++;
    hits += result.hits;
    bytes += jsonLineBytes(result);
    if (result.pages) {
      pages.fetched += result.pages.fetched;
      pages.failed += result.pages.failed;
      pages.fresh += result.pages.fresh;
    }
  }
  return [results.length, failed, hits, bytes, pages.fetched, pages.failed, pages.fresh];
}

/** Job fields a `BulkJobPatch` may set, and their columns. */
const PATCH_COLUMNS: Record<keyof BulkJobPatch, string> = {
  state: 'state',
  message: 'message',
  startTime: 'start_time',
  completedTime: 'completed_time',
  estimateSec: 'estimate_sec',
  webhook: 'webhook',
};

/** Report fields a `BulkReportPatch` may set, and their columns. */
const REPORT_PATCH_COLUMNS: Record<keyof BulkReportPatch, string> = {
  status: 'status',
  exportStatus: 'export_status',
  exportBytes: 'export_bytes',
  error: 'error',
};

/** A column a patch sets, and the value to store. */
export type ColumnValue = readonly [column: string, value: string | number | null];

/** The columns `patch` sets (the fields it has), with their values as stored: the webhook state as JSON. */
export function jobPatchColumns(patch: BulkJobPatch): ColumnValue[] {
  const out: ColumnValue[] = [];
  for (const [field, column] of Object.entries(PATCH_COLUMNS) as [keyof BulkJobPatch, string][]) {
    if (!(field in patch)) continue;
    const value = patch[field];
    out.push([
      column,
      field === 'webhook' ? (value === null ? null : JSON.stringify(value)) : (value as never),
    ]);
  }
  return out;
}

/** The columns a report `patch` sets (the fields it has), with their values. */
export function reportPatchColumns(patch: BulkReportPatch): ColumnValue[] {
  const out: ColumnValue[] = [];
  for (const [field, column] of Object.entries(REPORT_PATCH_COLUMNS) as [keyof BulkReportPatch, string][]) {
    if (field in patch) out.push([column, patch[field] as string | number | null]);
  }
  return out;
}

export const JOB_COLUMNS = `seq, id, token_id, name, options, webhook_url, state, message, total, completed, failed,
  hits, result_bytes, submit_time, start_time, completed_time, estimate_sec, webhook, pages_fetched,
  pages_failed, pages_fresh`;
export const REPORT_COLUMNS = `r.id, j.id AS job_id, r.key, r.format, r.spec, r.export_file, r.separator, r.filter,
  r.status, r.export_status, r.export_bytes, r.error, r.created_at`;

import { isIP } from 'node:net';
import { parseEnhanceOptions, parseSearchMode, type SearchMode } from '../enhance/index.ts';
import { InvalidParameterError } from '../errors.ts';
import { isPublicAddress } from '../extract/index.ts';
import type { BulkJobRow, BulkJobState, BulkReportRow } from '../storage/index.ts';

/** Public status values of a bulk enhance job (docs/api.md#bulk-job-status). */
export type BulkJobStatus =
  | 'NOT_STARTED'
  | 'IN_PROCESS'
  | 'COMPLETE'
  | 'COMPLETE_WITH_FAILURES'
  | 'STOPPED'
  | 'ERROR_FINALIZING'
  | 'ERROR_SCHEDULING'
  | 'UNKNOWN';

/** States after which a job never processes another record. */
export const FINAL_STATES: readonly BulkJobState[] = ['COMPLETE', 'COMPLETE_WITH_FAILURES', 'STOPPED'];

export function isFinal(state: BulkJobState): boolean {
  return FINAL_STATES.includes(state);
}

/** True for the states the status endpoint answers with 200 (docs/api.md#bulk-job-status). */
export function isComplete(state: BulkJobState): boolean {
  return state === 'COMPLETE' || state === 'COMPLETE_WITH_FAILURES';
}

/** Job-level enhance options, applied to every record of the job (docs/api.md#bulk-submission). */
export interface BulkJobOptions {
  readonly size: number;
  readonly threshold?: number;
  readonly refresh: boolean;
  readonly search: SearchMode;
  readonly nonCanonicalFacts: boolean;
  readonly jsonmode?: 'extended';
}

/** The search mode of stored job options (jobs stored before the modes kept a boolean). */
export function jobSearchMode(options: { readonly search?: unknown }): SearchMode {
  try {
    return parseSearchMode(options.search);
  } catch {
    return 'OFF';
  }
}

/** What a submission's query string asks for. */
export interface SubmitParams {
  /** The job name; the job id when none is given. */
  readonly name: string | undefined;
  readonly options: BulkJobOptions;
  readonly webhookUrl: string | null;
}

/** Longest accepted job name. */
export const MAX_JOB_NAME_LENGTH = 200;
/** Longest accepted webhook URL. */
export const MAX_WEBHOOK_URL_LENGTH = 2_000;

function single(name: string, value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  if (value.length > 1)
    throw new InvalidParameterError(name, `Invalid parameter '${name}': give it only once`);
  return value[0];
}

/**
 * Validates the query parameters of `POST /kg/v3/enhance/bulk`: name, size, threshold, refresh,
 * search, nonCanonicalFacts, jsonmode and webhookurl (an absolute http or https URL; an IP
 * address that is not public is refused unless `allowPrivateNetwork` — host names are checked
 * when the webhook is sent, at connection time). Throws a 400 naming the parameter. Other
 * parameters (the token among them) are ignored.
 */
export function parseSubmitParams(
  query: Readonly<Record<string, unknown>>,
  maxSize: number,
  policy: { allowPrivateNetwork?: boolean } = {},
): SubmitParams {
  const { filter: _filter, filterExclude: _filterExclude, ...rest } = query;
  const parsed = parseEnhanceOptions(rest, maxSize);
  const options: BulkJobOptions = {
    size: parsed.size,
    ...(parsed.threshold !== undefined ? { threshold: parsed.threshold } : {}),
    refresh: parsed.refresh,
    search: parsed.search,
    nonCanonicalFacts: parsed.nonCanonicalFacts,
    ...(parsed.jsonmode !== undefined ? { jsonmode: parsed.jsonmode } : {}),
  };

  const rawName = single('name', query.name);
  if (rawName !== undefined && typeof rawName !== 'string') {
    throw new InvalidParameterError('name', "Invalid parameter 'name': must be a string");
  }
  const name = rawName?.trim() || undefined;
  if (name !== undefined && name.length > MAX_JOB_NAME_LENGTH) {
    throw new InvalidParameterError(
      'name',
      `Invalid parameter 'name': longer than ${MAX_JOB_NAME_LENGTH} characters`,
    );
  }

  const rawWebhook = single('webhookurl', query.webhookurl);
  let webhookUrl: string | null = null;
  if (rawWebhook !== undefined && rawWebhook !== '') {
    if (typeof rawWebhook !== 'string' || rawWebhook.length > MAX_WEBHOOK_URL_LENGTH) {
      throw new InvalidParameterError('webhookurl', "Invalid parameter 'webhookurl': must be a URL");
    }
    let url: URL;
    try {
      url = new URL(rawWebhook.trim());
    } catch {
      throw new InvalidParameterError('webhookurl', "Invalid parameter 'webhookurl': not an absolute URL");
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new InvalidParameterError(
        'webhookurl',
        "Invalid parameter 'webhookurl': only http and https URLs",
      );
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!policy.allowPrivateNetwork && isIP(host) && !isPublicAddress(host)) {
      throw new InvalidParameterError(
        'webhookurl',
        `Invalid parameter 'webhookurl': ${host} is not a public address (private networks are not allowed)`,
      );
    }
    webhookUrl = url.href;
  }
  return { name, options, webhookUrl };
}

/** A coverage report as listed in a job's `reports` (docs/api.md#bulk-job-status). */
export interface BulkReportRecord {
  reportId: string;
  status: string;
  format: string;
  spec: string;
  exportfile: string;
  exportSeparator: string;
  filter: string;
}

/**
 * The bulk enhance job status record (docs/api.md#bulk-job-status), snake- and camel-case fields
 * alike.
 */
export interface BulkJobStatusRecord {
  job_id: string;
  name: string;
  refresh: boolean;
  search: SearchMode;
  message: string;
  jobs_total: number;
  jobs_completed: number;
  status: BulkJobStatus;
  estimate_remaining_time: number | null;
  submit_time_ms: number;
  start_time_ms: number | null;
  completed_time_ms: number | null;
  total_results: number;
  bulkjobId: string;
  totalJobs: number;
  finishedJobs: number;
  estimateRemainingTimeSec: number | null;
  submitTimeMs: number;
  startTimeMs: number | null;
  completedTimeMs: number | null;
  totalResults: number;
  fileSizeBytes: number;
  reports: BulkReportRecord[];
  /** (ours) Pages refresh and search read for the records done so far. */
  pagesFetched: number;
  /** (ours) Pages they could not read (gone, refused, disallowed, unreachable). */
  pagesFailed: number;
  /** (ours) Pages not fetched again because they were fetched within the freshness window. */
  pagesFresh: number;
}

function publicStatus(state: BulkJobState): BulkJobStatus {
  switch (state) {
    case 'NOT_STARTED':
    case 'IN_PROCESS':
    case 'COMPLETE':
    case 'COMPLETE_WITH_FAILURES':
    case 'STOPPED':
      return state;
    default:
      return 'UNKNOWN';
  }
}

/** The report as listed in the job status. */
export function reportRecord(report: BulkReportRow): BulkReportRecord {
  return {
    reportId: report.id,
    status: report.status,
    format: report.format,
    spec: report.spec,
    exportfile: report.exportFile,
    exportSeparator: report.separator,
    filter: report.filter,
  };
}

/**
 * Shapes a stored job as its status record. `total_results` counts matched entities over the
 * processed records; `fileSizeBytes` is the size of the default download (JSON Lines) so far;
 * `estimate_remaining_time` is `null` unless the job is running.
 */
export function statusRecord(job: BulkJobRow, reports: readonly BulkReportRow[]): BulkJobStatusRecord {
  const options = job.options as Partial<BulkJobOptions>;
  const status = publicStatus(job.state);
  const estimate = status === 'IN_PROCESS' ? job.estimateSec : null;
  return {
    job_id: job.id,
    name: job.name,
    refresh: options.refresh === true,
    search: jobSearchMode(job.options),
    message: job.message,
    jobs_total: job.total,
    jobs_completed: job.completed,
    status,
    estimate_remaining_time: estimate,
    submit_time_ms: job.submitTime,
    start_time_ms: job.startTime,
    completed_time_ms: job.completedTime,
    total_results: job.hits,
    bulkjobId: job.id,
    totalJobs: job.total,
    finishedJobs: job.completed,
    estimateRemainingTimeSec: estimate,
    submitTimeMs: job.submitTime,
    startTimeMs: job.startTime,
    completedTimeMs: job.completedTime,
    totalResults: job.hits,
    fileSizeBytes: job.resultBytes,
    reports: reports.map(reportRecord),
    pagesFetched: job.pages.fetched,
    pagesFailed: job.pages.failed,
    pagesFresh: job.pages.fresh,
  };
}

/**
 * The status message of a running job whose results the store refuses (docs/api.md#bulk-job-status):
 * why, and when the runner tries again.
 */
export function storageFaultMessage(
  jobId: string,
  fault: { readonly reason: 'disk_full' | 'write_failed'; readonly retryAt: number },
  now: number,
): string {
  const why = fault.reason === 'disk_full' ? "the server's disk is full" : 'the store refuses to write them';
  const seconds = Math.max(1, Math.ceil((fault.retryAt - now) / 1000));
  return `Bulkjob [${jobId}] is in process; its results cannot be stored: ${why}. Trying again in ${seconds} s; nothing is lost`;
}

/** The status message stored with a job when it changes state. */
export function stateMessage(
  job: Pick<BulkJobRow, 'id' | 'state' | 'total' | 'completed' | 'failed'>,
): string {
  switch (job.state) {
    case 'NOT_STARTED':
      return `Bulkjob [${job.id}] is queued`;
    case 'IN_PROCESS':
      return `Bulkjob [${job.id}] is in process`;
    case 'COMPLETE':
      return `Bulkjob [${job.id}] is completed`;
    case 'COMPLETE_WITH_FAILURES':
      return `Bulkjob [${job.id}] is completed; ${job.failed} of ${job.total} records failed`;
    case 'STOPPED':
      return `Bulkjob [${job.id}] was stopped after ${job.completed} of ${job.total} records`;
    default:
      return '';
  }
}

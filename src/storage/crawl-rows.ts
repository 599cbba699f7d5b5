/**
 * Bulk extract job, URL and webhook rows as both adapters store them: the same columns in
 * PostgreSQL and in SQLite, mapped to the port's shapes in one place (as bulk-rows.ts is for bulk
 * jobs). Only the booleans differ: PostgreSQL answers `true`, SQLite `1`.
 */
import type {
  CrawlJobSettings,
  CrawlUrlOutcome,
  CrawlUrlReport,
  CrawlWebhook,
  StoredCrawlJob,
} from './ports.ts';

/** `crawl_urls.state`: waiting to be claimed. */
export const PENDING = 0;
/** `crawl_urls.state`: claimed by a process (`claim`), being fetched. */
export const CLAIMED = 1;
/** `crawl_urls.state`: finished (`outcome` says how). */
export const DONE = 2;
/** `host_id` of a URL rejected at submission: never claimed, never reset. */
export const INVALID_HOST = -1;

/** The columns of `crawl_jobs` that `toJob` reads. */
export const JOB_COLUMNS = `id, token_id, name, settings, status, resume_status, created_at, completed_at,
  round_started_at, next_round_at, url_count, page_crawl_attempts, page_crawl_successes,
  page_crawl_successes_round, page_process_attempts, page_process_successes,
  page_process_successes_round, objects_found, rounds_completed, sent_done_notification`;

export interface JobRow {
  id: number;
  token_id: string;
  name: string;
  settings: string;
  status: number;
  resume_status: number | null;
  created_at: number;
  completed_at: number | null;
  round_started_at: number | null;
  next_round_at: number | null;
  url_count: number;
  page_crawl_attempts: number;
  page_crawl_successes: number;
  page_crawl_successes_round: number;
  page_process_attempts: number;
  page_process_successes: number;
  page_process_successes_round: number;
  objects_found: number;
  rounds_completed: number;
  sent_done_notification: boolean | number;
}

export function toJob(row: JobRow): StoredCrawlJob {
  return {
    id: row.id,
    tokenId: row.token_id,
    name: row.name,
    settings: JSON.parse(row.settings) as CrawlJobSettings,
    status: row.status,
    resumeStatus: row.resume_status,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    roundStartedAt: row.round_started_at,
    nextRoundAt: row.next_round_at,
    urlCount: row.url_count,
    counters: {
      pageCrawlAttempts: row.page_crawl_attempts,
      pageCrawlSuccesses: row.page_crawl_successes,
      pageCrawlSuccessesThisRound: row.page_crawl_successes_round,
      pageProcessAttempts: row.page_process_attempts,
      pageProcessSuccesses: row.page_process_successes,
      pageProcessSuccessesThisRound: row.page_process_successes_round,
      objectsFound: row.objects_found,
      roundsCompleted: row.rounds_completed,
    },
    sentDoneNotification: row.sent_done_notification === true || row.sent_done_notification === 1,
  };
}

/** The columns of `crawl_urls` that `toUrlReport` reads. */
export const URL_COLUMNS =
  'seq, url, state, outcome, http_status, attempts, error, final_url, objects, finished_at';

export interface UrlRow {
  seq: number;
  url: string;
  state: number;
  outcome: string | null;
  http_status: number | null;
  attempts: number;
  error: string | null;
  final_url: string | null;
  objects: number;
  finished_at: number | null;
}

const STATE_NAMES = ['pending', 'in_progress', 'done'] as const;

export function toUrlReport(row: UrlRow): CrawlUrlReport {
  return {
    seq: row.seq,
    url: row.url,
    state: STATE_NAMES[row.state],
    outcome: row.outcome as CrawlUrlOutcome | null,
    httpStatus: row.http_status,
    attempts: row.attempts,
    error: row.error,
    finalUrl: row.final_url,
    objects: row.objects,
    finishedAt: row.finished_at,
  };
}

/** The columns of `crawl_webhooks` that `toWebhook` reads. */
export const WEBHOOK_COLUMNS = 'id, job_id, url, payload, headers, attempts, next_attempt_at';

export interface WebhookRow {
  id: number;
  job_id: number;
  url: string;
  payload: string;
  headers: string;
  attempts: number;
  next_attempt_at: number;
}

export function toWebhook(row: WebhookRow): CrawlWebhook {
  return {
    id: Number(row.id),
    jobId: Number(row.job_id),
    url: row.url,
    payload: row.payload,
    headers: JSON.parse(row.headers) as Record<string, string>,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
  };
}

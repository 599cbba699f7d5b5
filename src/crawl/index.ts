/**
 * Bulk extract jobs (issue 5, area C): `POST /v3/bulk` creates a named job of URLs and an
 * extraction API; `GET /v3/bulk` lists, shows, pauses, resumes, restarts and deletes it;
 * `GET /v3/bulk/data` downloads its objects (JSON, CSV) or its per-URL report.
 *
 * How it works:
 * - The frontier is in the store (`CrawlJobStore`): one row per URL, pending → claimed → done.
 *   The scheduler (`scheduler.ts`) claims URLs per host, fetches them through the SSRF-safe
 *   fetcher, hands the body to the extraction threads (`extract/extraction-threads.ts`) and the
 *   outcome to a writer thread (`outcome-thread.ts`) that applies it — URL state, counters,
 *   objects — in one transaction, and only while the URL's claim still holds.
 * - Exactly once: an outcome whose claim no longer holds (restart, delete) is dropped whole. A
 *   crash or stop leaves in-flight URLs claimed; at start-up they go back to pending. A crawl
 *   attempt is counted when its outcome is recorded: a fetch cut short by a crash was never
 *   counted and is made again (so counters are exact; the site may see that request twice).
 * - Fairness: dispatch rotates over tokens, then over a token's jobs, then over a job's hosts.
 *   Politeness per (job, host): one fetch at a time, the next starting `crawlDelay` (or a larger
 *   robots.txt `Crawl-delay`, capped at 30 s) after the previous one ended; without delay, at
 *   most 16 at once per host.
 * - robots.txt (`robots.ts`, RFC 9309): fetched once per origin and cached an hour; 4xx (and
 *   more than 5 redirects) allow everything; 5xx, 429 and network errors disallow the site for
 *   that round (`robots_disallowed` in the report, no crawl attempt counted). `obeyRobots=0`
 *   skips it. A destination refused as non-public fails the page (`fetch_failed`, 1 attempt).
 * - Retries (`retry-policy.ts`): network errors, timeouts, 429 and 5xx are tried again up to
 *   3 times with exponential backoff (1 s, 2 s, 4 s, + jitter; `Retry-After` honoured); each
 *   try counts in `pageCrawlAttempts`; the URL waits in the frontier, holding no fetch slot.
 * - Processing: a 2xx page whose URL matches `pageProcessPattern` (`||`-separated substrings)
 *   is extracted (`pageProcessAttempts`); markup only (HTML, XHTML, XML, plain text), anything
 *   else is `process_failed` "not HTML". Objects get `type`, `pageUrl` (the submitted URL),
 *   `resolvedPageUrl` (after redirects), `timestamp` (epoch ms).
 * - Rounds (`job-status.ts`): `repeat` days between round starts; `maxRounds` 0 or 1 = one
 *   round, n = n rounds, -1 = unlimited (only with `repeat`). A new round reprocesses every URL,
 *   resets the this-round counters and adds its objects to those of earlier rounds (totals and
 *   `objectsFound` keep growing; the URL report shows the latest round).
 * - Statuses: 0 created, not yet picked up; 7 running; 4 waiting for the next round; final:
 *   9 (no repeat), 1 (maxRounds reached), 10 (the last round crawled no page successfully),
 *   5 (no valid URL was submitted: invalid entries are kept in the URL report as
 *   `invalid_url`). 6 paused: resume gives back the status the job had (a finished job stays
 *   finished). Restart erases objects and counters and runs again.
 * - Maintenance (`quarry maintenance on|off`): a switch in the store that the server polls
 *   twice a second; on: jobs in 0, 4, 7 become 8 (remembering their status), off: they get
 *   it back. Pausing or resuming during maintenance keeps that bookkeeping.
 * - `notifyWebhook` (`webhook-sender.ts`): at the end of every round, POST of the job record
 *   (JSON) with `X-Crawl-Name` and `X-Crawl-Status` (the status message); up to 6 tries over
 *   ~5 minutes; the outbox is in the store, so a pending delivery survives a restart.
 * - `kgIngest=1` (`graph-ingest.ts`): extracted organizations and people are stated to the
 *   knowledge graph by their page (the page URL is the source and origin of their facts,
 *   through `kg/`'s fact ledger), in the transaction that records the page; an entity the
 *   matcher finds (score ≥ 0.9) gains the page as a source, otherwise a new entity with a
 *   stable id (`crawl-o-…`, `crawl-p-…`) is created. Restart and rounds re-state idempotently;
 *   deleting a job leaves the graph as it is.
 * - Record times (`jobCreationTimeUTC`, …) are whole seconds since the epoch; 0 = not yet.
 */
export type { CrawlServiceDeps, CrawlTuning } from './crawl-service.ts';
export {
  CrawlService,
  MAINTENANCE_POLL_MS,
  MAINTENANCE_SWITCH,
  maintenanceIsOn,
  parseDownloadQuery,
} from './crawl-service.ts';
export type { ExportFormat } from './data-export.ts';
export { csvCell, URL_REPORT_COLUMNS } from './data-export.ts';
export type {
  ExtractedObject,
  FetchedPageView,
  GraphIngester,
  PageExtraction,
  PageExtractor,
  PageFetcher,
  PageToExtract,
} from './dependencies.ts';
export type { ExtractionEngine } from './page-extraction.ts';
export { isMarkup, ServicePageExtractor } from './page-extraction.ts';
export type { CrawlJobRecord } from './job-record.ts';
export { downloadLink, jobRecord } from './job-record.ts';
export type { JobCreation } from './job-settings.ts';
export {
  apiNameOf,
  CREATION_FIELDS,
  DEFAULT_CRAWL_DELAY_SECONDS,
  matchesProcessPattern,
  parseJobCreation,
  validateJobName,
} from './job-settings.ts';
export type { JobStatusCode } from './job-status.ts';
export { endOfRound, JobStatus, statusMessage } from './job-status.ts';
export type { EntityStatement } from './graph-entity.ts';
export { crawledEntityId, entityStatement } from './graph-entity.ts';
export { GraphIngest, MERGE_SCORE } from './graph-ingest.ts';
export type { OutcomeSink, PendingOutcome } from './outcome-writer.ts';
export { OutcomeWriter, StoreOutcomeSink } from './outcome-writer.ts';
export type { HostLease, HostPoliteness, PolitenessRule } from './host-politeness.ts';
export { InProcessHostPoliteness } from './host-politeness.ts';
export { SharedHostPoliteness } from './shared-host-politeness.ts';
export { ThreadOutcomeSink } from './outcome-thread.ts';
export type { RetryPolicy } from './retry-policy.ts';
export { DEFAULT_RETRY_POLICY, isTransientStatus, retryAfterMs, retryDelayMs } from './retry-policy.ts';
export type { PoliteFetchOptions } from './polite-fetcher.ts';
export { PoliteFetcher, RobotsDisallowedError } from './polite-fetcher.ts';
export type { ProcessPoliteness, ProcessPolitenessOptions } from './process-politeness.ts';
export { createProcessPoliteness, preciseNow } from './process-politeness.ts';
export type { RobotsVerdict } from './robots.ts';
export { productToken, RobotsCache, robotsAllow, robotsCrawlDelaySeconds } from './robots.ts';
export type { SchedulerTuning } from './scheduler.ts';
export { CrawlScheduler, DEFAULT_SCHEDULER_TUNING } from './scheduler.ts';
export type { WebhookRetry } from './webhook-sender.ts';
export { DEFAULT_WEBHOOK_RETRY, WebhookSender } from './webhook-sender.ts';

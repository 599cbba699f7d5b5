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
export { ExtractionFailed, ExtractionPool } from './extraction-pool.ts';
export type { ExtractionEngine } from './page-extraction.ts';
export { documentsOf, InlineExtractor, isMarkup } from './page-extraction.ts';
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
export type { OutcomeSink, PendingOutcome } from './outcome-writer.ts';
export { OutcomeWriter, StoreOutcomeSink } from './outcome-writer.ts';
export { ThreadOutcomeSink } from './outcome-thread.ts';
export type { RetryPolicy } from './retry-policy.ts';
export { DEFAULT_RETRY_POLICY } from './retry-policy.ts';
export type { RobotsVerdict } from './robots.ts';
export { productToken, RobotsCache } from './robots.ts';
export type { SchedulerTuning } from './scheduler.ts';
export { CrawlScheduler, DEFAULT_SCHEDULER_TUNING } from './scheduler.ts';
export type { WebhookRetry } from './webhook-sender.ts';
export { DEFAULT_WEBHOOK_RETRY, WebhookSender } from './webhook-sender.ts';

export type { BulkExportsDeps, DownloadAnswer, ReportAnswer } from './bulk-exports.ts';
export { BulkExports } from './bulk-exports.ts';
export type { BatchExecutor, BulkRunnerDeps } from './bulk-runner.ts';
export { BulkRunner, UNPAID_MESSAGE } from './bulk-runner.ts';
export type { BulkFinalListener, BulkServiceDeps, StopAnswer } from './bulk-service.ts';
export { BulkService, MAX_RECORD_BYTES } from './bulk-service.ts';
export type { EnhanceBatch, EnhanceBatchResult, EnhanceWorkerData } from './enhance-batch.ts';
export { createEnhancePool } from './enhance-pool.ts';
export { isJobId, isReportId, newJobId, newReportId } from './ids.ts';
export type {
  BulkJobOptions,
  BulkJobStatus,
  BulkJobStatusRecord,
  BulkReportRecord,
  SubmitParams,
} from './job-record.ts';
export { isComplete, isFinal, parseSubmitParams, statusRecord } from './job-record.ts';
export { WorkerCrashedError, WorkerPool, WorkerTaskError } from '../threads/index.ts';
export { createWebhookPost, WEBHOOK_TIMEOUT_MS } from './webhook-post.ts';
export { WEB_BATCHES, withWebEvidence } from './web-executor.ts';
export type { WebhookPost, WebhookSenderDeps } from './webhooks.ts';
export { DEFAULT_WEBHOOK_DELAYS_MS, WebhookSender } from './webhooks.ts';

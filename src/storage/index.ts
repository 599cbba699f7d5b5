export type { StoreLocator } from './locator.ts';
export { storeLocator } from './locator.ts';
export type { OpenStorageOptions, StoreMaintenance } from './open-storage.ts';
export { openStorage, startStoreMaintenance } from './open-storage.ts';
export type {
  BulkJobPatch,
  BulkJobRow,
  BulkJobState,
  BulkJobStore,
  BulkRecord,
  BulkReportPatch,
  BulkReportRow,
  BulkReportStatus,
  BulkResult,
  BulkWebhookState,
  NewBulkJob,
  NewBulkReport,
  CandidateProfile,
  CustomApiRecord,
  CustomApiStore,
  CustomApiWrite,
  EntityCounts,
  EntityStore,
  EntityWrite,
  SerializedEntityWrite,
  Storage,
  StoredEntity,
  TokenRecord,
  TokenStore,
  WriteBatchOptions,
} from './ports.ts';
export type {
  ClaimedUrl,
  CrawlJobCounters,
  CrawlJobPatch,
  CrawlJobSettings,
  CrawlJobStore,
  CrawlPageOutcome,
  CrawlUrlOutcome,
  CrawlUrlReport,
  CrawlWebhook,
  NewCrawlUrl,
  StoredCrawlJob,
} from './ports.ts';

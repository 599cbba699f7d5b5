export type { StoreLocator } from './locator.ts';
export { storeLocator } from './locator.ts';
export type { OpenStorageOptions, StoreMaintenance } from './open-storage.ts';
export { migrateStore, openStorage, startStoreMaintenance } from './open-storage.ts';
export type { CrawlCounterDelta } from './crawl-counters.ts';
export { CrawlCounterDeltas } from './crawl-counters.ts';
export { MemoryHostTurnStore } from './memory-host-turns.ts';
export { CRAWL_WEBHOOK_LEASE_MS } from './ports.ts';
export type {
  BulkJobPatch,
  BulkJobRow,
  BulkJobState,
  BulkPageCounts,
  BulkJobStore,
  BulkRecord,
  BulkReportPatch,
  BulkReportRow,
  BulkReportStatus,
  BulkResult,
  BulkWebhookState,
  NewBulkJob,
  NewBulkReport,
  OriginFetchRecord,
  OriginFetchStore,
  CandidateProfile,
  CustomApiRecord,
  CustomApiStore,
  CustomApiWrite,
  EntityCounts,
  EntityStore,
  EntityWrite,
  SerializedEntityWrite,
  Storage,
  StorageTransaction,
  StoredEntity,
  StoredEntityWithKeys,
  TokenRecord,
  TokenStore,
  WorkItem,
  WorkQueue,
  HostTurn,
  HostTurnStore,
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

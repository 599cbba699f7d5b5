export type {
  CandidateProfile,
  CustomApiRecord,
  CustomApiStore,
  CustomApiWrite,
  EntityCounts,
  EntityStore,
  EntityWrite,
  Storage,
  StoredEntity,
  TokenRecord,
  TokenStore,
} from './ports.ts';
export { openSqliteStorage, sqliteFileFor, SQLITE_FILE_NAME } from './sqlite/index.ts';
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

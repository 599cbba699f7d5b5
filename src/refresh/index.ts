/**
 * Refresh (docs/api.md#refresh-and-search): an entity rebuilt from what its pages say today.
 *
 * - `OriginFetcher` (`origin-fetcher.ts`) fetches a page for refresh and search: the SSRF-safe
 *   fetcher of `extract/` through the crawl's `PoliteFetcher`: robots.txt at every redirect
 *   hop and politeness per host, both the process's one (shared with the crawl), interactive
 *   requests before bulk ones at a host (`HostTurns`), retries of transient failures with
 *   backoff, and an outcome with a readable message for every failure.
 * - `EntityPageReader` (`page-statements.ts`) runs the built-in extractor of the entity's type
 *   on a page (the crawl's extraction threads; no Custom API rules: the graph is shared) and
 *   turns its object into a statement whose origin is the page.
 * - `RefreshService` fetches every origin of an entity (and an Organization's homepage) that is
 *   not fresh (`QUARRY_REFRESH_MAX_AGE`, kept in `OriginFetchStore`), merges each page's
 *   statement through the fact ledger as the source `web:<url>`, stores the entity with its
 *   match index, and reports `refreshInfo` per URL and `refreshDelta`. One refresh per entity
 *   at a time: concurrent requests share it.
 */
export type { RefreshDelta } from './delta.ts';
export { isEmptyDelta, refreshDelta } from './delta.ts';
export type { FetchPriority } from './host-turns.ts';
export { HostTurns } from './host-turns.ts';
export type {
  OriginFailure,
  OriginFetcher,
  OriginFetchOptions,
  OriginPage,
  PoliteOriginFetcherOptions,
} from './origin-fetcher.ts';
export { PoliteOriginFetcher } from './origin-fetcher.ts';
export type { EntityPageReader, FetchedOriginPage } from './page-statements.ts';
export { builtInPageReader, describesEntity, statementEntity } from './page-statements.ts';
export type { RefreshDebugRecord, RefreshDeps, RefreshOptions, RefreshReport } from './refresh-service.ts';
export { MAX_REFRESH_URLS, pageSource, RefreshService, refreshUrls } from './refresh-service.ts';

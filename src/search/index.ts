/**
 * Search (docs/api.md#refresh-and-search): entities found on the web, scored by the same
 * calibrated matcher as the graph's, and the orchestration of refresh and search around an
 * enhance answer.
 *
 * - `SearchProvider` (`provider.ts`): a SearXNG-compatible endpoint (`QUARRY_SEARCH_URL`,
 *   `GET <url>?q=…&format=json`, results `[{url, title, content}]`).
 * - `planQueries` (`query-plan.ts`): name with location, name with employer, name with the
 *   e-mail or site domain, the name alone, the domain, the phone.
 * - `SearchService`: the best result pages fetched politely and read by the built-in extractor;
 *   each page's entity resolved to a graph entity or a new one; scored with the evidence added to
 *   the graph (`OverlaySource`), and stored only when an answer returns it.
 * - `WebEnhancer`: enhance's `WebEvidence` — search by mode (`ON`, `FALLBACK`, `SEARCHONLY`),
 *   then refresh of every returned entity, then scores again (`baseMlScore` before the
 *   evidence, `mlScore` after), and how many returned entities web work was done for (credits).
 */
export { DEFAULT_MAX_LAG_MS, LaggingVersionSource } from './lagging-source.ts';
export type { OverlayEntity } from './overlay-source.ts';
export { OverlaySource } from './overlay-source.ts';
export type { SearchProvider, SearchResult, SearxngOptions } from './provider.ts';
export { SearchProviderError, SearxngProvider } from './provider.ts';
export { MAX_QUERIES, planQueries } from './query-plan.ts';
export type {
  GatherOptions,
  PageStatement,
  SearchCandidateScore,
  SearchDeps,
  SearchEvidence,
  SearchRun,
} from './search-service.ts';
export { MAX_SEARCH_PAGES, SearchService } from './search-service.ts';
export type { WebEnhancerDeps } from './web-enhancer.ts';
export {
  INTERACTIVE_BUDGET_MS,
  SEARCH_NOT_CONFIGURED,
  SEARCH_NOT_FOR_ID,
  WebEnhancer,
} from './web-enhancer.ts';

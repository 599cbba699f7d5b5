export { BatchReads } from './batch-reads.ts';
export type { EnhanceContext, EnhanceDeps, EnhancerDeps } from './enhance-service.ts';
export {
  candidateLimit,
  creditCost,
  EnhanceService,
  Enhancer,
  matchedCount,
  matchQueryOf,
  NO_CURRENT_EMPLOYER,
  searchCandidate,
} from './enhance-service.ts';
export type { EnhanceOptions, EnhanceQuery, ParsedEnhanceRequest, QuerySource, SearchMode } from './query.ts';
export {
  echoQuery,
  parseEnhanceOptions,
  parseEnhanceQuery,
  parseEntityType,
  parseSearchMode,
  SEARCH_MODES,
} from './query.ts';
export type { WebAnswer, WebContext, WebEvidence, WebPageCounts } from './web-evidence.ts';
export { wantsWeb } from './web-evidence.ts';
export type {
  EnhanceHit,
  EnhanceResponse,
  RefreshDebugInfo,
  RefreshDeltaInfo,
  SearchCandidate,
} from './response.ts';
export type { MatchSummary } from './response.ts';
export { matchSummary, RESPONSE_VERSION } from './response.ts';
export type { AnswerKind, EncodedAnswer, EnhanceThreads } from './enhance-threads.ts';
export { createEnhanceThreads } from './enhance-threads.ts';
export { openThreadEnhancer } from './thread-enhancer.ts';

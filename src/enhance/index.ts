export type { EnhanceContext, EnhanceDeps, EnhancerDeps } from './enhance-service.ts';
export {
  matchedCount,
  EnhanceService,
  Enhancer,
  REFRESH_UNAVAILABLE,
  SEARCH_UNAVAILABLE,
} from './enhance-service.ts';
export type { EnhanceOptions, EnhanceQuery, ParsedEnhanceRequest, QuerySource } from './query.ts';
export { echoQuery, parseEnhanceOptions, parseEnhanceQuery, parseEntityType } from './query.ts';
export type { EnhanceHit, EnhanceResponse, SearchCandidate } from './response.ts';
export { RESPONSE_VERSION } from './response.ts';
export type { AnswerKind, EncodedAnswer, EnhanceThreads } from './enhance-threads.ts';
export { createEnhanceThreads } from './enhance-threads.ts';
export { openThreadEnhancer } from './thread-enhancer.ts';

/**
 * The matching engine (pure): what to index for an entity, and how to find and score the
 * entities that a partial query describes.
 */
export type { FeatureVector } from './features.ts';
export { ORGANIZATION_FEATURES, PERSON_FEATURES } from './features.ts';
export type { LogisticModel, ModelFile, TypeModel } from './model.ts';
export { validateModelFile } from './model.ts';
export type {
  CandidateSource,
  Explanation,
  Matcher,
  MatcherOptions,
  MatchOptions,
  ProfiledCandidate,
  ScoredCandidate,
} from './matcher.ts';
export { createMatcher, loadDefaultModel } from './matcher.ts';
export type { EntityIndex, MatchProfile, OrganizationProfile, PersonProfile } from './profile.ts';
export { indexEntity } from './profile.ts';
export type { AnalyzedQuery, MatchQuery } from './query-analysis.ts';
export { analyzeQuery } from './query-analysis.ts';
export { DEFAULT_LIMITS, type RetrievalLimits } from './retrieval.ts';
export type { EvaluationMetrics, LabelledQuery, QueryOutcome } from './evaluation.ts';
export { bestThreshold, evaluateOutcomes, parseLabelledQuery } from './evaluation.ts';

/**
 * The matching engine (pure): what to index for an entity, and how to find and score the
 * entities that a partial query describes.
 *
 * - `indexEntity` (at import): retrieval keys (hosts, domains, e-mails, phones, IP buckets,
 *   name tokens and whole-name keys per type, acronyms, person places, e-mail words, current
 *   employers) and a compact match profile.
 * - `createMatcher(store)`: per query, normalise (kg/normalize), retrieve at most 40
 *   candidates (exact keys + IDF-weighted tokens, rarest first, typo neighbours from the term
 *   vocabularies), compare features, and score with the fitted two-stage logistic model in
 *   `model.json`: a base model over the features, then a final model adding competition
 *   (best rival, mass of rivals). `score` is the calibrated probability; explanations list
 *   features and their log-odds contributions. The matcher is pure; caching is a source of
 *   its own (`CachingCandidateSource`, postings and profiles) and vocabularies are the
 *   `VocabularyCache`'s, both following the source's graph version.
 * - `npm run fit` rebuilds `model.json` reproducibly in two steps: `quarry fit FILES --seed N
 *   --rounds R` fits the weights on queries generated from entity files (training/fit-model.ts;
 *   it also records the recall-favouring F2-optimal cut of its validation split), then
 *   `quarry calibrate QUERIES...` sets the default threshold of each entity type: the lowest
 *   score at which every labelled set of that type reaches its precision floor (Organization
 *   0.97, Person 0.95) plus a 0.02 margin (training/calibrate-thresholds.ts).
 *   `quarry eval QUERIES` measures a labelled query file.
 */
export type { FeatureVector } from './features.ts';
export { ORGANIZATION_FEATURES, PERSON_FEATURES } from './features.ts';
export type { LogisticModel, ModelFile, TypeModel } from './model.ts';
export { defaultThresholdOf, validateModelFile } from './model.ts';
export type {
  CachingOptions,
  CandidateProfile,
  CandidateSource,
  EntityCounts,
} from './candidate-source.ts';
export { CachingCandidateSource } from './candidate-source.ts';
export type {
  Explanation,
  Matcher,
  MatcherOptions,
  MatchOptions,
  MatchResult,
  ProfiledCandidate,
  ScoredCandidate,
} from './matcher.ts';
export { createMatcher, loadDefaultModel } from './matcher.ts';
export type { EntityIndex, MatchProfile, OrganizationProfile, PersonProfile } from './profile.ts';
export { indexEntity } from './profile.ts';
export type { AnalyzedQuery, MatchQuery } from './query-analysis.ts';
export { analyzeQuery } from './query-analysis.ts';
export { DEFAULT_LIMITS, type RetrievalLimits } from './retrieval.ts';
export type { EvaluationMetrics, KindReport, LabelledQuery, QueryOutcome } from './evaluation.ts';
export {
  bestThreshold,
  evaluateKinds,
  evaluateOutcomes,
  isRight,
  NAMESAKE_BOUNDS,
  parseLabelledQuery,
  runLabelledQueries,
} from './evaluation.ts';
export { TermTable, type TermTableData } from './term-table.ts';
export { createVocabularyShareData, VocabularyShare, type VocabularyShareData } from './vocabulary-share.ts';

/**
 * The matching engine (pure): what to index for an entity, and how to find and score the
 * entities that a partial query describes.
 *
 * - `indexEntity` (at import): retrieval keys (hosts, domains, e-mails, phones, IP buckets,
 *   name tokens and whole-name keys per type, acronyms, person places, e-mail words, current
 *   employers) and a compact match profile.
 * - `createMatcher(source)`: per query, normalise (kg/normalize), resolve the organizations a
 *   Person query points at (ip ranges, e-mail domain), retrieve at most 30 candidates (exact keys
 *   + IDF-weighted tokens, rarest first, typo neighbours from the term vocabularies), compare
 *   features, and score with the fitted choice model in `model.json`: each candidate's
 *   probability is its share among the candidates and "none of these" (namesakes split it).
 *   Explanations list features and their log-odds contributions; `search` also returns notes on
 *   fields that were guessed, unreadable or unused (for the response's `errors`). The matcher is
 *   pure; caching is a source of its own (`CachingCandidateSource`) and vocabularies are the
 *   `VocabularyCache`'s, both following the source's graph version.
 * - `npm run fit` rebuilds `model.json` reproducibly in two steps: `quarry fit FILES --seed N
 *   --rounds R` fits the weights on queries generated from entity files (training/fit-model.ts,
 *   training/choice.ts), then `quarry calibrate QUERIES...` fits a scale and offset of the score
 *   per type on labelled sets and sets the default threshold of each type: the lowest score at
 *   which every labelled set of that type reaches its precision floor (Organization 0.97,
 *   Person 0.95) plus a 0.02 margin (docs/matching.md). `quarry eval QUERIES` measures a
 *   labelled query file, per kind of query too.
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
export { CachingCandidateSource, profileBytes } from './candidate-source.ts';
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
export type { TermTableShare } from './vocabularies.ts';
/** Retrieval key prefixes (`ot:` organization name tokens…), for prefix search over the index. */
export { KEY as RETRIEVAL_KEYS } from './profile.ts';

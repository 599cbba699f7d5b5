/**
 * The matcher: analyse the query, retrieve bounded candidates, compare features, score with the
 * fitted model and explain each score. Holds no state beyond caches keyed by graph version.
 */
import { readFileSync } from 'node:fs';
import type { EntityType } from '../kg/index.ts';
import { approximateBytes } from '../approximate-bytes.ts';
import type { CandidateProfile, EntityCounts, EntityStore } from '../storage/index.ts';
import { type FeatureVector, organizationFeatures, personFeatures } from './features.ts';
import {
  competitionFeatures,
  defaultThresholdOf,
  logit,
  type ModelFile,
  sigmoid,
  type TypeModel,
  validateModelFile,
} from './model.ts';
import type { MatchProfile, OrganizationProfile, PersonProfile } from './profile.ts';
import { KEY } from './profile.ts';
import { ipInRanges, ipKeysForAddress } from './ip.ts';
import { type AnalyzedQuery, analyzeQuery, type MatchQuery } from './query-analysis.ts';
import { DEFAULT_LIMITS, type RetrievalLimits, retrieveCandidates } from './retrieval.ts';
import { TermTable } from './term-table.ts';
import { Vocabulary } from './vocabulary.ts';
import type { VocabularyShare } from './vocabulary-share.ts';

/** Why a candidate scored what it did: per-feature values and their contributions. */
export interface Explanation {
  /** Compared feature values that carry evidence (non-zero), e.g. `{ nameCoverQuery: 0.93 }`. */
  readonly features: Readonly<Record<string, number | string | boolean>>;
  /** Contribution of each feature to the score's log-odds (they add up to the log-odds). */
  readonly contributions: Readonly<Record<string, number>>;
  /** One line a human can read: what matched and what did not. */
  readonly summary: string;
}

export interface ScoredCandidate {
  readonly ref: number;
  readonly id: string;
  readonly type: EntityType;
  /** Calibrated probability in [0, 1] that this entity is the one the query describes. */
  readonly score: number;
  /** Probability from the compared features alone, before competition among candidates. */
  readonly baseScore: number;
  /** Raw candidate-retrieval score (unbounded). */
  readonly esscore: number;
  readonly explanation: Explanation;
}

export interface MatchOptions {
  /** Most candidates to return (after scoring), default 10. */
  readonly limit?: number;
}

export interface Matcher {
  /** Candidates sorted by `score` descending, at most `limit`; empty when nothing is plausible. */
  match(query: MatchQuery, options?: MatchOptions): ScoredCandidate[];
  /**
   * The default `threshold` for a hit on `type` (model.json `thresholds`, chosen by
   * `quarry calibrate`: the lowest score meeting the precision floors on labelled queries).
   */
  defaultThresholdFor(type: EntityType): number;
  /**
   * Loads what the first queries would otherwise wait for (the vocabularies of both types, ~5 s
   * on a 1M + 1M graph), so that a server is ready to answer fast when it says so.
   */
  warmUp(): void;
}

/** The store methods the matcher reads. */
export type CandidateSource = Pick<
  EntityStore,
  'keyCounts' | 'refsForKeys' | 'profiles' | 'termCounts' | 'counts' | 'version'
>;

export interface MatcherOptions {
  /** The model to score with; default: the committed `model.json`. */
  readonly model?: ModelFile;
  readonly limits?: RetrievalLimits;
  /** Vocabularies shared with the other threads matching against the same store. */
  readonly share?: VocabularyShare;
  /** Most postings (refs) the matcher keeps between queries (default 500,000). */
  readonly postingsCacheRefs?: number;
}

/** A candidate with its profile, before scoring. */
export interface ProfiledCandidate {
  readonly ref: number;
  readonly id: string;
  readonly type: EntityType;
  readonly esscore: number;
  readonly profile: MatchProfile;
}

let defaultModel: ModelFile | undefined;

/**
 * Parsed profiles kept per matcher, by their approximate size (`approximateBytes`), not their
 * number: profiles of entities with many names or employments are several times larger. Large
 * caches lengthen garbage-collection pauses (p99); 16 MiB holds ~20,000 demo profiles.
 */
const PROFILE_CACHE_BYTES = 16 * 2 ** 20;
/**
 * Postings (refs) kept per matcher, all keys together (~8 bytes each). Queries share their
 * common keys (a surname, a city, a frequent e-mail domain): over the in-process benchmark's
 * 20,000 queries, 62% of the postings read were of a key an earlier query had read.
 */
const POSTINGS_CACHE_REFS = 500_000;

/** The committed model file (`src/match/model.json`), read once. */
export function loadDefaultModel(): ModelFile {
  defaultModel ??= validateModelFile(
    JSON.parse(readFileSync(new URL('./model.json', import.meta.url), 'utf8')),
  );
  return defaultModel;
}

/** The term vocabularies retrieval and features weigh tokens by. */
export interface Vocabularies {
  /** Name tokens of the query's type. */
  readonly names: Vocabulary;
  /** Person place tokens (cities, addresses, postcodes). */
  readonly places: Vocabulary;
  /** Person e-mail words (local part and domain labels). */
  readonly emails: Vocabulary;
}

/** Per-graph-version caches of one source: vocabularies per key prefix. */
export class MatchContext {
  readonly #source: CandidateSource;
  readonly #share: VocabularyShare | undefined;
  #version: string | undefined;
  #vocabularies = new Map<string, Vocabulary>();
  #profiles = new Map<number, CandidateProfile>();
  #profileBytes = 0;
  readonly #profileCap: number;
  /** Postings per lookup limit, then per key (see `refsForKeys`). */
  #postings = new Map<number, Map<string, number[]>>();
  #postingsHeld = 0;
  readonly #postingsCap: number;
  #counts: EntityCounts | undefined;

  constructor(
    source: CandidateSource,
    share?: VocabularyShare,
    postingsCacheRefs = POSTINGS_CACHE_REFS,
    profileCacheBytes = PROFILE_CACHE_BYTES,
  ) {
    this.#source = source;
    this.#share = share;
    this.#postingsCap = postingsCacheRefs;
    this.#profileCap = profileCacheBytes;
  }

  /** The vocabularies for `type` at the current graph version (rebuilt after writes). */
  vocabularies(type: EntityType): Vocabularies {
    this.#checkVersion();
    const person = type === 'Person';
    return {
      names: this.#vocabulary(person ? KEY.personToken : KEY.orgToken, type),
      places: this.#vocabulary(KEY.personPlace, 'Person'),
      emails: this.#vocabulary(KEY.emailToken, 'Person'),
    };
  }

  /**
   * Profiles of `refs`, in the order of `refs` (those found), parsed once and kept for later
   * queries while the graph version holds (up to `PROFILE_CACHE_BYTES`; emptied when full). The
   * order must not depend on what earlier queries cached: a query's candidates are scored in it,
   * and `rivalMass` sums their probabilities in it, so a cache-dependent order changed scores in
   * their last bits and flipped near-ties.
   */
  profiles(refs: readonly number[]): CandidateProfile[] {
    this.#checkVersion();
    const found = new Map<number, CandidateProfile>();
    const missing: number[] = [];
    for (const ref of refs) {
      const cached = this.#profiles.get(ref);
      if (cached) found.set(ref, cached);
      else missing.push(ref);
    }
    if (missing.length) {
      const rows = this.#source.profiles(missing);
      let incoming = 0;
      for (const row of rows) incoming += approximateBytes(row.profile);
      if (this.#profileBytes + incoming > this.#profileCap) {
        this.#profiles.clear();
        this.#profileBytes = 0;
      }
      for (const row of rows) {
        this.#profiles.set(row.ref, row);
        found.set(row.ref, row);
      }
      this.#profileBytes += incoming;
    }
    const out: CandidateProfile[] = [];
    for (const ref of refs) {
      const row = found.get(ref);
      if (row) out.push(row);
    }
    return out;
  }

  /**
   * `source.refsForKeys`, remembering the postings read while the graph version holds: up to
   * the cap (`POSTINGS_CACHE_REFS` by default), which a read that does not fit empties first (so
   * the cache exceeds it by at most that one read). The arrays returned are shared: callers only
   * read them.
   */
  refsForKeys(keys: readonly string[], limitPerKey: number): Map<string, number[]> {
    this.#checkVersion();
    const out = new Map<string, number[]>();
    const missing: string[] = [];
    const known = this.#postings.get(limitPerKey);
    for (const key of keys) {
      const cached = known?.get(key);
      if (cached) out.set(key, cached);
      else missing.push(key);
    }
    if (missing.length === 0) return out;
    const read = this.#source.refsForKeys(missing, limitPerKey);
    // Each key counts as one ref more, so that keys without postings are bounded too.
    let size = 0;
    for (const refs of read.values()) size += refs.length + 1;
    if (this.#postingsHeld + size > this.#postingsCap) {
      this.#postings = new Map();
      this.#postingsHeld = 0;
    }
    let cache = this.#postings.get(limitPerKey);
    if (!cache) {
      cache = new Map();
      this.#postings.set(limitPerKey, cache);
    }
    for (const [key, refs] of read) {
      cache.set(key, refs);
      out.set(key, refs);
    }
    this.#postingsHeld += size;
    return out;
  }

  #checkVersion(): void {
    const version = this.#source.version();
    if (version !== this.#version) {
      this.#version = version;
      this.#vocabularies = new Map();
      this.#profiles = new Map();
      this.#profileBytes = 0;
      this.#postings = new Map();
      this.#postingsHeld = 0;
      this.#counts = undefined;
    }
  }

  /** The name vocabulary of `type` (shorthand). */
  vocabulary(type: EntityType): Vocabulary {
    return this.vocabularies(type).names;
  }

  #vocabulary(prefix: string, type: EntityType): Vocabulary {
    let vocabulary = this.#vocabularies.get(prefix);
    if (!vocabulary) {
      this.#counts ??= this.#source.counts();
      const counts = this.#counts;
      const build = () => TermTable.build(this.#source.termCounts(prefix));
      const table = this.#share ? this.#share.table(prefix, this.#version ?? '', build) : build();
      vocabulary = new Vocabulary(table, type === 'Person' ? counts.persons : counts.organizations);
      this.#vocabularies.set(prefix, vocabulary);
    }
    return vocabulary;
  }
}

/** Retrieves the candidates of `query`'s type with their profiles, best `esscore` first. */
export function collectCandidates(
  query: AnalyzedQuery,
  source: CandidateSource,
  vocabulary: Vocabularies,
  limits: RetrievalLimits = DEFAULT_LIMITS,
  accept: (ref: number) => boolean = () => true,
  profiles: (refs: readonly number[]) => CandidateProfile[] = (refs) => source.profiles(refs),
): ProfiledCandidate[] {
  const retrieved = retrieveCandidates(query, source, vocabulary, limits).filter((c) => accept(c.ref));
  if (retrieved.length === 0) return [];
  const esscores = new Map(retrieved.map((c) => [c.ref, c.esscore]));
  const out: ProfiledCandidate[] = [];
  for (const row of profiles(retrieved.map((c) => c.ref))) {
    if (row.type !== query.type) continue;
    out.push({
      ref: row.ref,
      id: row.id,
      type: row.type,
      esscore: esscores.get(row.ref) ?? 0,
      profile: row.profile as MatchProfile,
    });
  }
  return out;
}

/**
 * `query` with `ipOrganizations` resolved (Person queries with an `ip`): the organizations
 * whose ranges contain the address. Other queries are returned as they are.
 */
export function withIpOrganizations(
  query: AnalyzedQuery,
  source: CandidateSource,
  profiles: (refs: readonly number[]) => CandidateProfile[] = (refs) => source.profiles(refs),
): AnalyzedQuery {
  if (query.type !== 'Person' || !query.ip || query.ipOrganizations) return query;
  return { ...query, ipOrganizations: organizationsOwning(query.ip, source, profiles) };
}

/** Ids of the organizations whose IP ranges contain `ip` (at most 20). */
function organizationsOwning(
  ip: string,
  source: CandidateSource,
  profiles: (refs: readonly number[]) => CandidateProfile[],
): string[] {
  const keys = ipKeysForAddress(ip).map((key) => KEY.ip + key);
  const refs = [...new Set([...source.refsForKeys(keys, 100).values()].flat())];
  const out: string[] = [];
  for (const row of profiles(refs)) {
    const ranges =
      (row.profile as MatchProfile).k === 'O' ? (row.profile as OrganizationProfile).ip : undefined;
    if (ranges && ipInRanges(ip, ranges)) out.push(row.id);
    if (out.length === 20) break;
  }
  return out;
}

/** Compared features of a candidate (by the query's type). */
export function candidateFeatures(
  query: AnalyzedQuery,
  profile: MatchProfile,
  vocabularies: Vocabularies,
): FeatureVector {
  return profile.k === 'P'
    ? personFeatures(query, profile as PersonProfile, vocabularies.names, vocabularies.places)
    : organizationFeatures(query, profile as OrganizationProfile, vocabularies.names);
}

const FEATURE_LABELS: Readonly<Record<string, string>> = {
  nameCoverQuery: 'name',
  nameCoverCandidate: 'name',
  nameBoth: 'name',
  nameKeyEqual: 'same name',
  nameJaroWinkler: 'name spelling',
  nameMissedQuery: 'query words missing from the name',
  nameMissedCandidate: 'name words missing from the query',
  acronymMatch: 'acronym',
  urlHostMatch: 'host',
  urlExactHost: 'host',
  nameUnmatchedQueryWords: 'query words missing from the name',
  nameUnmatchedCandidateWords: 'name words missing from the query',
  urlDomainMatch: 'domain',
  urlConflict: 'different domain',
  emailExact: 'e-mail',
  emailDomainMatch: 'e-mail domain',
  emailLocalSimilarity: 'e-mail name',
  emailConflict: 'different e-mail',
  emailEditsNear: 'e-mail',
  emailDomainConflict: 'different e-mail domain',
  nameEvidence: 'name',
  countryMatch: 'country',
  countryConflict: 'different country',
  regionMatch: 'region',
  locationTokensMatch: 'place',
  locationCover: 'place',
  locationConflict: 'different place',
  locationEvidence: 'place',
  givenNameConflict: 'different given name',
  surnameConflict: 'different surname',
  postcodeMatch: 'postcode',
  firstNameSimilarity: 'given name',
  lastNameSimilarity: 'surname',
  titleSimilarity: 'title',
  titleConflict: 'different title',
  employerSimilarity: 'employer',
  phoneMatch: 'phone',
  ipMatch: 'IP range',
  bestRival: 'a close rival',
  rivalMass: 'similar candidates',
};

/** Labels by feature name, hinges and interactions included (`undefined`: not summarized). */
const labelCache = new Map<string, string | undefined>();

function labelOf(name: string): string | undefined {
  if (!labelCache.has(name)) {
    labelCache.set(
      name,
      FEATURE_LABELS[name.replace(/>.*$/, '')] ??
        (name.startsWith('strongName*') ? FEATURE_LABELS[name.slice(11)] : undefined),
    );
  }
  return labelCache.get(name);
}

function summarize(contributions: Record<string, number>, score: number): string {
  const byLabel = new Map<string, number>();
  for (const name in contributions) {
    const label = labelOf(name);
    if (label) byLabel.set(label, (byLabel.get(label) ?? 0) + contributions[name]);
  }
  const ranked = [...byLabel.entries()]
    .filter(([, v]) => Math.abs(v) >= 0.25)
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
  const pros = ranked.filter(([, v]) => v > 0).map(([l]) => l);
  const cons = ranked.filter(([, v]) => v < 0).map(([l]) => l);
  const parts = [`score ${score.toFixed(3)}`];
  if (pros.length) parts.push(`for: ${pros.slice(0, 4).join(', ')}`);
  if (cons.length) parts.push(`against: ${cons.slice(0, 4).join(', ')}`);
  return parts.join('; ');
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Scores profiled candidates of one query with `model`; sorted by score descending, at most
 * `limit` (explanations are built only for those returned).
 */
export function scoreCandidates(
  query: AnalyzedQuery,
  candidates: readonly ProfiledCandidate[],
  vocabularies: Vocabularies,
  model: TypeModel,
  limit = Number.POSITIVE_INFINITY,
): ScoredCandidate[] {
  const features = candidates.map((c) => candidateFeatures(query, c.profile, vocabularies));
  const baseLogits = features.map((f) => logit(model.base, f));
  const finalLogits = baseLogits.map((_, i) => logit(model.final, competitionFeatures(baseLogits, i)));
  const order = candidates
    .map((_, i) => i)
    .sort(
      (a, b) =>
        finalLogits[b] - finalLogits[a] ||
        candidates[b].esscore - candidates[a].esscore ||
        candidates[a].ref - candidates[b].ref,
    )
    .slice(0, limit);
  return order.map((i): ScoredCandidate => {
    const candidate = candidates[i];
    const score = sigmoid(finalLogits[i]);
    let explanation: Explanation | undefined;
    return {
      ref: candidate.ref,
      id: candidate.id,
      type: candidate.type,
      score,
      baseScore: sigmoid(baseLogits[i]),
      esscore: round3(candidate.esscore),
      // Built on first read: most callers look at a few candidates' explanations, not all.
      get explanation(): Explanation {
        explanation ??= explain(model, features[i], competitionFeatures(baseLogits, i), score);
        return explanation;
      },
    };
  });
}

function explain(
  model: TypeModel,
  features: FeatureVector,
  competition: FeatureVector,
  score: number,
): Explanation {
  const baseContributions: Record<string, number> = {};
  logit(model.base, features, baseContributions);
  const finalContributions: Record<string, number> = {};
  logit(model.final, competition, finalContributions);
  // Spread the final model's weight on the base log-odds over the base features, so that all
  // contributions (plus the two biases) add up to the final log-odds.
  const scale = model.final.weights.baseLogit ?? 0;
  const contributions: Record<string, number> = { bias: round3(model.final.bias + scale * model.base.bias) };
  for (const name in baseContributions) contributions[name] = round3(scale * baseContributions[name]);
  for (const name of ['bestRival', 'rivalMass']) {
    if (finalContributions[name]) contributions[name] = round3(finalContributions[name]);
  }
  const evidence: Record<string, number> = {};
  for (const name in features) if (features[name] !== 0) evidence[name] = round3(features[name]);
  evidence.bestRival = round3(competition.bestRival);
  evidence.rivalMass = round3(competition.rivalMass);
  return { features: evidence, contributions, summary: summarize(contributions, score) };
}

function hasEvidence(query: AnalyzedQuery): boolean {
  return (
    query.names.length + query.urls.length + query.emails.length + query.phones.length > 0 ||
    query.ip !== undefined
  );
}

/** Creates a matcher reading candidates from `source`. */
export function createMatcher(source: CandidateSource, options: MatcherOptions = {}): Matcher {
  const model = options.model ?? loadDefaultModel();
  const limits = options.limits ?? DEFAULT_LIMITS;
  const context = new MatchContext(source, options.share, options.postingsCacheRefs);
  // The store, with postings and profiles read through the context's caches.
  const cached: CandidateSource = {
    keyCounts: (keys, cap) => source.keyCounts(keys, cap),
    refsForKeys: (keys, limitPerKey) => context.refsForKeys(keys, limitPerKey),
    profiles: (refs) => context.profiles(refs),
    termCounts: (prefix) => source.termCounts(prefix),
    counts: () => source.counts(),
    version: () => source.version(),
  };
  return {
    defaultThresholdFor: (type) => defaultThresholdOf(model, type),
    warmUp() {
      context.vocabularies('Organization');
      context.vocabularies('Person');
    },
    match(query, matchOptions = {}) {
      const limit = matchOptions.limit ?? 10;
      const analyzed = withIpOrganizations(analyzeQuery(query), cached);
      if (!hasEvidence(analyzed)) return [];
      const vocabularies = context.vocabularies(analyzed.type);
      const candidates = collectCandidates(analyzed, cached, vocabularies, limits);
      return scoreCandidates(analyzed, candidates, vocabularies, model.models[analyzed.type], limit);
    },
  };
}

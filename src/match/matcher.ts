/**
 * The matcher: analyse the query, retrieve bounded candidates, compare features, score with the
 * fitted model and explain each score. A pure function of the query and what its source
 * answers; caching is the source's (`CachingCandidateSource`), vocabularies the
 * `VocabularyCache`'s, both keyed by graph version.
 */
import { readFileSync } from 'node:fs';
import { type EntityType, normalizeOrganizationName } from '../kg/index.ts';
import { type CandidateSource, CachingCandidateSource, type CachingOptions } from './candidate-source.ts';
import { type FeatureVector, organizationFeatures, personFeatures } from './features.ts';
import {
  choiceProbabilities,
  compile,
  defaultThresholdOf,
  linearScorer,
  type ModelFile,
  rivalsLogOdds,
  sigmoid,
  type TypeModel,
  validateModelFile,
} from './model.ts';
import type { MatchProfile, OrganizationProfile, PersonProfile } from './profile.ts';
import { KEY } from './profile.ts';
import { ipInRanges, ipKeysForAddress } from './ip.ts';
import {
  type AnalyzedQuery,
  analyzeQuery,
  type MatchQuery,
  withEmployerWrittenOut,
  withJoinedWordsApart,
  withNamesWithoutPlace,
} from './query-analysis.ts';
import {
  DEFAULT_LIMITS,
  type RetrievalLimits,
  type RetrievedCandidate,
  retrieveCandidates,
} from './retrieval.ts';
import { searchBatch } from './batch-search.ts';
import { type TermTableShare, type Vocabularies, VocabularyCache } from './vocabularies.ts';

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
  /** The model's linear score before recalibration (what `quarry calibrate` fits on). */
  readonly linear: number;
  readonly explanation: Explanation;
}

export interface MatchOptions {
  /** Most candidates to return (after scoring), default 10. */
  readonly limit?: number;
}

/** A query's answer: its candidates and what its fields were read as (see `AnalyzedQuery.notes`). */
export interface MatchResult {
  readonly candidates: ScoredCandidate[];
  readonly notes: readonly string[];
}

export interface Matcher {
  /** Candidates sorted by `score` descending, at most `limit`; empty when nothing is plausible. */
  match(query: MatchQuery, options?: MatchOptions): ScoredCandidate[];
  /** `match`, with the notes on fields that were guessed, unreadable or not used. */
  search(query: MatchQuery, options?: MatchOptions): MatchResult;
  /**
   * `search` of many queries at once (a bulk batch): the same answers, with the postings and
   * profiles of all of them read together (match/batch-search.ts). `undefined` where a query
   * could not be answered with the others (its `search` alone answers or throws).
   */
  searchMany(queries: readonly MatchQuery[], options: readonly MatchOptions[]): (MatchResult | undefined)[];
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

export interface MatcherOptions {
  /** The model to score with; default: the committed `model.json`. */
  readonly model?: ModelFile;
  readonly limits?: RetrievalLimits;
  /** Vocabularies shared with the other threads matching against the same store. */
  readonly share?: TermTableShare;
  /**
   * Bounds of the postings and profiles kept between queries (`CachingCandidateSource`), or
   * `false` to read every query from the source.
   */
  readonly cache?: CachingOptions | false;
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

/** The committed model file (`src/match/model.json`), read once. */
export function loadDefaultModel(): ModelFile {
  defaultModel ??= validateModelFile(
    JSON.parse(readFileSync(new URL('./model.json', import.meta.url), 'utf8')),
  );
  return defaultModel;
}

/** Retrieves the candidates of `query`'s type with their profiles, best `esscore` first. */
export function collectCandidates(
  query: AnalyzedQuery,
  source: CandidateSource,
  vocabulary: Vocabularies,
  limits: RetrievalLimits = DEFAULT_LIMITS,
  accept: (ref: number) => boolean = () => true,
): ProfiledCandidate[] {
  const retrieved = retrieveCandidates(query, source, vocabulary, limits).filter((c) => accept(c.ref));
  return profileCandidates(query, retrieved, source);
}

/** The retrieved candidates of `query`'s type with their profiles (read from `source`), in order. */
export function profileCandidates(
  query: AnalyzedQuery,
  retrieved: readonly RetrievedCandidate[],
  source: Pick<CandidateSource, 'profiles'>,
): ProfiledCandidate[] {
  if (retrieved.length === 0) return [];
  const refs: number[] = [];
  for (const candidate of retrieved) refs.push(candidate.ref);
  const rows = source.profiles(refs);
  // A caching source answers in the order of the refs asked: each row's candidate is found by
  // walking on from the last one's; a row not found that way (a source answering in another
  // order) by a map, made then.
  let next = 0;
  let esscores: Map<number, number> | undefined;
  const out: ProfiledCandidate[] = [];
  for (const row of rows) {
    let at = next;
    while (at < retrieved.length && retrieved[at].ref !== row.ref) at++;
    let esscore: number;
    if (at < retrieved.length) {
      esscore = retrieved[at].esscore;
      next = at + 1;
    } else {
      esscores ??= new Map(retrieved.map((c) => [c.ref, c.esscore]));
      esscore = esscores.get(row.ref) ?? 0;
    }
    if (row.type !== query.type) continue;
    out.push({ ref: row.ref, id: row.id, type: row.type, esscore, profile: row.profile as MatchProfile });
  }
  return out;
}

/** How many postings each organization read takes: IP buckets are shared by many ranges. */
const IP_ORGANIZATION_READ = 100;
const KEYED_ORGANIZATION_READ = 20;

/** The IP bucket keys a Person query's `ip` still needs resolved. */
function ipOrganizationKeys(query: AnalyzedQuery): string[] {
  return query.ip && !query.ipOrganizations ? ipKeysForAddress(query.ip).map((key) => KEY.ip + key) : [];
}

/** The domain keys of a Person query's e-mails (not free-mail) still to be resolved. */
function domainOrganizationKeys(query: AnalyzedQuery): string[] {
  if (query.domainOrganizations) return [];
  return [...new Set(query.emails.filter((e) => !e.freeMail).map((e) => KEY.domain + e.registrable))];
}

/**
 * The key of a Person query's `employer` still to be resolved: its domain when it is written as
 * a web address, else its organization-name key.
 */
function employerOrganizationKeys(query: AnalyzedQuery): string[] {
  if (query.employerOrganizations) return [];
  if (query.employerDomain) return [KEY.domain + query.employerDomain];
  return query.employerKey ? [KEY.orgName + query.employerKey] : [];
}

/**
 * The postings reads `withQueryOrganizations` makes for `query` (a bulk batch reads those of
 * all its queries at once: match/batch-search.ts).
 */
export function queryOrganizationReads(query: AnalyzedQuery): { key: string; limit: number }[] {
  if (query.type !== 'Person') return [];
  return [
    ...ipOrganizationKeys(query).map((key) => ({ key, limit: IP_ORGANIZATION_READ })),
    ...[...domainOrganizationKeys(query), ...employerOrganizationKeys(query)].map((key) => ({
      key,
      limit: KEYED_ORGANIZATION_READ,
    })),
  ];
}

/**
 * `query` with the organizations it points at resolved, for Person queries: those whose IP
 * ranges contain its `ip` (`ipOrganizations`), those whose domain is its e-mail's
 * (`domainOrganizations`, not for free-mail providers) and those named as its `employer`
 * (`employerOrganizations`). Other queries are returned as they are.
 */
export function withQueryOrganizations(
  query: AnalyzedQuery,
  source: CandidateSource,
  vocabularies: Pick<VocabularyCache, 'vocabularies'>,
): AnalyzedQuery {
  if (query.type !== 'Person') {
    if (!query.namesWithPlace && !query.writtenNames) return query;
    const names = vocabularies.vocabularies('Organization').names;
    const count = (word: string) => names.count(word);
    return withJoinedWordsApart(
      withNamesWithoutPlace(query, (word) => count(word) > 0),
      count,
    );
  }
  // "Acme Mtrs": the graph's organizations know the employer by its words written out.
  const read = withEmployerWrittenOut(query, (word) =>
    vocabularies.vocabularies('Organization').names.count(word),
  );
  let out = read;
  const ipKeys = ipOrganizationKeys(read);
  if (read.ip && ipKeys.length)
    out = { ...out, ipOrganizations: organizationsOwning(read.ip, ipKeys, source) };
  const places = new Map<string, readonly ['c' | 'r' | 'k', string]>();
  const domainKeys = domainOrganizationKeys(read);
  if (domainKeys.length)
    out = { ...out, domainOrganizations: organizationsUnder(domainKeys, source, places) };
  const employerKeys = employerOrganizationKeys(read);
  if (employerKeys.length) {
    const names: string[] = [];
    let employers = organizationsUnder(employerKeys, source, places, names);
    let unknown = false;
    if (employers.length === 0) {
      const organizations = vocabularies.vocabularies('Organization');
      employers = employersByWords(read, source, organizations, places);
      // A word no organization's name has, nor one a typo away (retrieval looked them up).
      const { names: words } = organizations;
      unknown = read.employerTokens.some(
        (word) => words.count(word) === 0 && words.neighbours(word).length === 0,
      );
    }
    out = { ...out, employerOrganizations: employers, ...(unknown ? { employerUnknown: true } : {}) };
    // An employer written as its site: the name of the organization there is the employer's
    // name (compared with the candidates' employers as a written name is).
    if (read.employerDomain && names.length)
      out = { ...out, employerTokens: normalizeOrganizationName(names[0]).significant };
  }
  if (places.size) out = { ...out, organizationPlaces: [...places.values()] };
  return out;
}

/** Most places of the organizations a query points at (`organizationPlaces`). */
const MAX_ORGANIZATION_PLACES = 4;

/**
 * Ids of the organizations under retrieval `keys` (domains, name keys; at most 20); where they
 * are (their cities, else regions, else country) is added to `places`, at most
 * `MAX_ORGANIZATION_PLACES` in all, and their first names' canonical tokens to `names` if given.
 */
function organizationsUnder(
  keys: readonly string[],
  source: CandidateSource,
  places: Map<string, readonly ['c' | 'r' | 'k', string]>,
  names?: string[],
): string[] {
  const refs = [...new Set([...source.refsForKeys(keys, KEYED_ORGANIZATION_READ).values()].flat())];
  const out: string[] = [];
  for (const row of source.profiles(refs)) {
    if (row.type !== 'Organization' || out.length === 20) continue;
    out.push(row.id);
    const profile = row.profile as OrganizationProfile;
    addOrganizationPlaces(profile, places);
    if (names && profile.n[0]) names.push(profile.n[0]);
  }
  return out;
}

/** Where an organization is (its cities, else regions, else country), added to `places`. */
function addOrganizationPlaces(
  profile: OrganizationProfile,
  places: Map<string, readonly ['c' | 'r' | 'k', string]>,
): void {
  const add = (level: 'c' | 'r' | 'k', place: string) => {
    if (places.size < MAX_ORGANIZATION_PLACES) places.set(`${level}:${place}`, [level, place]);
  };
  if (profile.ci?.length) for (const city of profile.ci) add('c', city);
  else if (profile.r?.length) for (const region of profile.r) add('r', region);
  else if (profile.c) add('k', profile.c);
}

/** Organizations an employer whose name key names none may be (see `employersByWords`). */
const EMPLOYERS_BY_WORDS = 2;

/**
 * The organizations a Person query's employer may be when its name key names none (a typo:
 * "Chhisovedi Health" for "Chisovedi Health", "Tobahizi Loigstics"): the first
 * `EMPLOYERS_BY_WORDS` found by the organization retrieval of its words (their vocabulary
 * neighbours included), best first. Their places are added to `places`. Retrieval only: whether
 * a candidate works there is the features' to say, comparing the names.
 */
function employersByWords(
  query: AnalyzedQuery,
  source: CandidateSource,
  vocabularies: Vocabularies,
  places: Map<string, readonly ['c' | 'r' | 'k', string]>,
): string[] {
  if (query.employerTokens.length === 0 || !query.employerKey) return [];
  const employer: AnalyzedQuery = {
    type: 'Organization',
    names: [{ tokens: query.employerTokens, key: query.employerKey }],
    urls: [],
    emails: [],
    phones: [],
    titleTokens: [],
    employerTokens: [],
    schoolTokens: [],
    notes: [],
  };
  const retrieved = retrieveCandidates(employer, source, vocabularies).slice(0, 2 * EMPLOYERS_BY_WORDS);
  const byRef = new Map(source.profiles(retrieved.map((c) => c.ref)).map((row) => [row.ref, row]));
  const out: string[] = [];
  for (const { ref } of retrieved) {
    const row = byRef.get(ref);
    if (row?.type !== 'Organization' || out.length === EMPLOYERS_BY_WORDS) continue;
    out.push(row.id);
    addOrganizationPlaces(row.profile as OrganizationProfile, places);
  }
  return out;
}

/** Ids of the organizations under the IP bucket `keys` whose ranges contain `ip` (at most 20). */
function organizationsOwning(ip: string, keys: readonly string[], source: CandidateSource): string[] {
  const refs = [...new Set([...source.refsForKeys(keys, IP_ORGANIZATION_READ).values()].flat())];
  const out: string[] = [];
  for (const row of source.profiles(refs)) {
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
  otherCandidates: 'other candidates as likely',
  nameQueryCovered: 'name',
  nameUniqueWord: 'a word only it has',
  legalFormMatch: 'legal form',
  legalFormConflict: 'different legal form',
  placeConflict: 'elsewhere',
  middleNameMatch: 'middle name',
  middleNameConflict: 'different middle name',
  emailNameMatch: 'e-mail fits the name',
  emailEmployerDomain: "e-mail at the employer's domain",
  schoolSimilarity: 'school',
  schoolConflict: 'different school',
  employerConflict: 'different employer',
  employerUnknownConflict: 'another employer, one the graph does not know',
  givenInitialMatch: 'initial of the given name',
  givenInitialPlace: 'initial of the given name, in the place',
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

/** The labels of a compiled model's features by slot (`labelOf`), worked out once per model. */
const slotLabelCache = new WeakMap<readonly string[], readonly (string | undefined)[]>();

function slotLabels(names: readonly string[]): readonly (string | undefined)[] {
  let labels = slotLabelCache.get(names);
  if (!labels) {
    labels = names.map(labelOf);
    slotLabelCache.set(names, labels);
  }
  return labels;
}

/**
 * Per-label sums of contributions, filled in the contributions' order (`0 + x` as a first sum,
 * as before: -0 becomes 0, below 0.25 either way).
 */
class LabelSums {
  readonly labels: string[] = [];
  readonly sums: number[] = [];

  add(label: string | undefined, value: number): void {
    if (!label) return;
    const k = this.labels.indexOf(label);
    if (k < 0) {
      this.labels.push(label);
      this.sums.push(0 + value);
    } else this.sums[k] += value;
  }
}

/**
 * "score 0.912; for: name, website; against: elsewhere": the labels whose contributions (summed
 * per label, in the contributions' order: `LabelSums`) weigh at least 0.25, strongest first
 * (ties in that order), at most four each way. Parallel arrays instead of a Map and
 * filter/sort/map chains: it runs for every candidate listed in every answer's `searchInfo`
 * (issue 30).
 */
function summaryOf({ labels, sums }: LabelSums, score: number): string {
  const ranked: number[] = [];
  for (let k = 0; k < sums.length; k++) if (Math.abs(sums[k]) >= 0.25) ranked.push(k);
  // A stable sort: equal weights keep the contributions' order.
  if (ranked.length > 1) ranked.sort((a, b) => Math.abs(sums[b]) - Math.abs(sums[a]));
  let text = `score ${score.toFixed(3)}`;
  let pros = '';
  let cons = '';
  let prosCount = 0;
  let consCount = 0;
  for (const k of ranked) {
    if (sums[k] > 0 && prosCount < 4) pros += prosCount++ === 0 ? labels[k] : `, ${labels[k]}`;
    else if (sums[k] < 0 && consCount < 4) cons += consCount++ === 0 ? labels[k] : `, ${labels[k]}`;
  }
  if (prosCount > 0) text += `; for: ${pros}`;
  if (consCount > 0) text += `; against: ${cons}`;
  return text;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Scores profiled candidates of one query with `model`: each candidate's probability is its
 * share among the candidates and "none of these" (see model.ts). Sorted by score descending,
 * at most `limit` (explanations are built only for those returned).
 */
export function scoreCandidates(
  query: AnalyzedQuery,
  candidates: readonly ProfiledCandidate[],
  vocabularies: Vocabularies,
  model: TypeModel,
  limit = Number.POSITIVE_INFINITY,
): ScoredCandidate[] {
  const features = candidates.map((c) => candidateFeatures(query, c.profile, vocabularies));
  const scorer = linearScorer(model.base);
  const linear = features.map(scorer);
  const scale = model.calibration?.scale ?? 1;
  const offset = model.calibration?.offset ?? 0;
  const z = linear.map((l) => scale * l + offset);
  const probabilities = choiceProbabilities(z);
  const order = candidates
    .map((_, i) => i)
    .sort(
      (a, b) =>
        z[b] - z[a] || candidates[b].esscore - candidates[a].esscore || candidates[a].ref - candidates[b].ref,
    )
    .slice(0, limit);
  return order.map((i): ScoredCandidate => {
    const candidate = candidates[i];
    return scoredCandidate(candidate, probabilities[i], z, i, linear[i], model, features[i]);
  });
}

/** What a scored candidate's explanation is built from, kept under `EXPLAINED` until built. */
interface ExplanationInputs {
  readonly model: TypeModel;
  readonly features: FeatureVector;
  readonly z: readonly number[];
  readonly i: number;
  readonly score: number;
  explanation?: Explanation;
}

/** The key of a scored candidate's `ExplanationInputs` (not enumerable: no answer shows it). */
const EXPLAINED = Symbol('explanation inputs');

/** The `explanation` getter of every scored candidate: builds it on first read, then keeps it. */
function explanationOf(this: { readonly [EXPLAINED]: ExplanationInputs }): Explanation {
  const inputs = this[EXPLAINED];
  inputs.explanation ??= explain(
    inputs.model,
    inputs.features,
    rivalsLogOdds(inputs.z, inputs.i),
    inputs.score,
  );
  return inputs.explanation;
}

/** One getter for all: an own enumerable accessor, as an object literal's `get` makes one. */
const EXPLANATION_PROPERTY: PropertyDescriptor = {
  get: explanationOf,
  enumerable: true,
  configurable: true,
};

/**
 * One scored candidate, its explanation built on first read (most callers look at a few
 * candidates' explanations, not all). Built here, not in `scoreCandidates`: a getter created
 * there keeps that call's whole scope alive as long as the answer (every profiled candidate's
 * features and profile, not only its own). A bulk batch keeps its answers until its last record
 * is answered, so those outlived the young generation: in a bulk worker's answering, bytes
 * promoted per record −43%, its threads' garbage collection −30 µs per record (issue 30,
 * bench/NOTES.md).
 * The getter is one function shared by every candidate, its inputs under a symbol that is not
 * enumerable: an object literal's own `get` made a closure per candidate and left the object in
 * dictionary mode (~650 ns a candidate against ~400, and every later read of it a hash lookup).
 * The object shows the same keys in the same order (`explanation` last, enumerable: spreads,
 * `JSON.stringify` and structured clones read it as before).
 */
function scoredCandidate(
  candidate: ProfiledCandidate,
  score: number,
  z: readonly number[],
  i: number,
  linear: number,
  model: TypeModel,
  features: FeatureVector,
): ScoredCandidate {
  const scored = {
    ref: candidate.ref,
    id: candidate.id,
    type: candidate.type,
    score,
    baseScore: sigmoid(z[i]),
    esscore: round3(candidate.esscore),
    linear,
  };
  Object.defineProperty(scored, 'explanation', EXPLANATION_PROPERTY);
  const inputs: ExplanationInputs = { model, features, z, i, score };
  Object.defineProperty(scored, EXPLAINED, { value: inputs });
  return scored as ScoredCandidate;
}

/**
 * Contributions to the score's log-odds: the bias, each feature's weight times its value, and
 * what the other candidates take (`otherCandidates`, ≤ 0): they add up to the log-odds.
 */
function explain(model: TypeModel, features: FeatureVector, rivals: number, score: number): Explanation {
  const { names, weights, slots } = compile(model.base);
  // One pass over the vector's keys gives the evidence and the model's features' values by
  // position: reading the ~60-key vector once per model feature (as `logit` does) was most of
  // an explanation's cost, and explanations are built for every candidate an answer lists.
  const values: (number | undefined)[] = new Array(names.length);
  const evidence: Record<string, number> = {};
  for (const name in features) {
    const value = features[name];
    if (value === 0) continue;
    evidence[name] = round3(value);
    const slot = slots.get(name);
    if (slot !== undefined) values[slot] = value;
  }
  const scale = model.calibration?.scale ?? 1;
  const bias = round3(scale * model.base.bias + (model.calibration?.offset ?? 0));
  const contributions: Record<string, number> = { bias };
  // The summary's sums as the contributions are made, in their order: enumerating the new
  // object again cost a runtime call per explanation (`ForInEnumerate`, ~1% of
  // the matcher's thread on 1M + 1M with every answer's candidates explained).
  const labels = slotLabels(names);
  const sums = new LabelSums();
  sums.add(labelOf('bias'), bias);
  // `logit`'s terms (weight × value, where the value is there and not 0), in the model's order.
  for (let i = 0; i < names.length; i++) {
    const value = values[i];
    if (value === undefined || value === 0) continue;
    const contribution = round3(scale * (weights[i] * value));
    contributions[names[i]] = contribution;
    sums.add(labels[i], contribution);
  }
  if (rivals !== 0) {
    contributions.otherCandidates = round3(rivals);
    sums.add(labelOf('otherCandidates'), contributions.otherCandidates);
  }
  return { features: evidence, contributions, summary: summaryOf(sums, score) };
}

export function hasEvidence(query: AnalyzedQuery): boolean {
  return (
    query.names.length + query.urls.length + query.emails.length + query.phones.length > 0 ||
    query.ip !== undefined
  );
}

/** Creates a matcher reading candidates from `source` (through a caching source by default). */
export function createMatcher(source: CandidateSource, options: MatcherOptions = {}): Matcher {
  const model = options.model ?? loadDefaultModel();
  const limits = options.limits ?? DEFAULT_LIMITS;
  const cached = options.cache === false ? source : new CachingCandidateSource(source, options.cache);
  const vocabularies = new VocabularyCache(cached, options.share);
  const searchAtVersion = (query: MatchQuery, matchOptions: MatchOptions = {}): MatchResult => {
    const limit = matchOptions.limit ?? 10;
    const analyzed = withQueryOrganizations(analyzeQuery(query), cached, vocabularies);
    if (!hasEvidence(analyzed)) return { candidates: [], notes: analyzed.notes };
    const ofType = vocabularies.vocabularies(analyzed.type);
    const candidates = collectCandidates(analyzed, cached, ofType, limits);
    return {
      candidates: scoreCandidates(analyzed, candidates, ofType, model.models[analyzed.type], limit),
      notes: analyzed.notes,
    };
  };
  const search = (query: MatchQuery, matchOptions?: MatchOptions): MatchResult =>
    cached instanceof CachingCandidateSource
      ? cached.withVersionRead(() => searchAtVersion(query, matchOptions))
      : searchAtVersion(query, matchOptions);
  return {
    defaultThresholdFor: (type) => defaultThresholdOf(model, type),
    warmUp() {
      vocabularies.vocabularies('Organization');
      vocabularies.vocabularies('Person');
    },
    match: (query, matchOptions) => search(query, matchOptions).candidates,
    search,
    searchMany(queries, manyOptions) {
      // Reads together only through a caching source, which answers in the order asked.
      if (!(cached instanceof CachingCandidateSource)) return queries.map(() => undefined);
      return cached.withVersionRead(() =>
        searchBatch(queries, manyOptions, {
          source: cached,
          vocabularies,
          limits,
          organizationReads: queryOrganizationReads,
          withOrganizations: (analyzed, reads) => withQueryOrganizations(analyzed, reads, vocabularies),
          hasEvidence,
          profile: profileCandidates,
          score: (analyzed, candidates, ofType, limit) =>
            scoreCandidates(analyzed, candidates, ofType, model.models[analyzed.type], limit),
        }),
      );
    },
  };
}

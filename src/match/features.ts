/**
 * Features: how a candidate's profile compares with the query, as numbers the model weighs.
 * Every feature is 0 when its evidence is absent, so that a missing field neither helps nor
 * hurts; presence indicators let the model learn what a field's absence means.
 */
import {
  areGivenNameVariants,
  canonicalGivenName,
  hasGivenNameVariants,
  isGivenNameForm,
  comparePlaces,
  entityPlaces,
  foldText,
  isGenericOrganizationWord,
  isInstitutionWord,
  isOrganizationStopword,
  type ParsedLocation,
  type PlaceComparison,
  textTokens,
} from '../kg/index.ts';
import { ipInRanges } from './ip.ts';
import {
  type OrganizationProfile,
  type PersonProfile,
  placeTokens,
  secondSurnameAt,
  surnameWords,
} from './profile.ts';
import type { AnalyzedQuery, QueryName } from './query-analysis.ts';
import {
  bestTokenMatch,
  bestTokenMatches,
  editDistance,
  jaroWinkler,
  tokenSimilarity,
} from './similarity.ts';
import type { Vocabulary } from './vocabulary.ts';

/** Names of the organization features, in model order. */
export const ORGANIZATION_FEATURES = Object.freeze([
  'hasName',
  'nameCoverQuery',
  'nameCoverCandidate',
  'nameBoth',
  'nameKeyEqual',
  'nameMissedQuery',
  'nameMissedCandidate',
  'nameJaroWinkler',
  'nameEvidence',
  'nameUnmatchedQueryWords',
  'nameUnmatchedCandidateWords',
  'nameQueryCovered',
  'nameUniqueWord',
  'acronymMatch',
  'legalFormMatch',
  'legalFormConflict',
  'hasUrl',
  'urlExactHost',
  'urlHostMatch',
  'urlDomainMatch',
  'urlConflict',
  'emailDomainMatch',
  'hasPhone',
  'phoneMatch',
  'phoneConflict',
  'hasLocation',
  'countryMatch',
  'countryConflict',
  'regionMatch',
  'placeConflict',
  'locationTokensMatch',
  'hasIp',
  'ipMatch',
] as const);

/** Names of the person features, in model order. */
export const PERSON_FEATURES = Object.freeze([
  'hasName',
  'nameCoverQuery',
  'nameCoverCandidate',
  'nameBoth',
  'nameKeyEqual',
  'nameMissedQuery',
  'nameMissedCandidate',
  'nameEvidence',
  'firstNameSimilarity',
  'lastNameSimilarity',
  'givenNameConflict',
  'surnameConflict',
  'nameJaroWinkler',
  'singleTokenName',
  'middleNameMatch',
  'middleNameConflict',
  'nameOneEdit',
  'hasEmail',
  'emailExact',
  'emailLocalSimilarity',
  'emailSimilarity',
  'emailDomainMatch',
  'emailConflict',
  'emailEditsNear',
  'emailDomainConflict',
  'emailMissing',
  'emailUnknownCompany',
  'emailNameMatch',
  'emailFreeMail',
  'emailRole',
  'emailEmployerDomain',
  'hasLocation',
  'locationCover',
  'locationEvidence',
  'locationConflict',
  'locationMissing',
  'postcodeMatch',
  'regionMatch',
  'countryMatch',
  'countryConflict',
  'placeConflict',
  'hasTitle',
  'titleSimilarity',
  'titleConflict',
  'titleMissing',
  'hasEmployer',
  'employerSimilarity',
  'employerConflict',
  'employerMissing',
  'hasSchool',
  'schoolSimilarity',
  'schoolConflict',
  'schoolMissing',
  'hasPhone',
  'phoneMatch',
  'phoneConflict',
  'hasIp',
  'ipMatch',
  'employerUnknownConflict',
  'givenInitialMatch',
  'givenInitialPlace',
] as const);

export type FeatureVector = Record<string, number>;

interface NameComparison {
  /** Tokens left without a match (similarity < 0.6) on each side. */
  unmatchedQuery: number;
  unmatchedCandidate: number;
  /** IDF mass of the matched query tokens, in units of the largest IDF (how rare what matched is). */
  evidence: number;
  /** A query token written exactly as a word that no other entity has (organizations only). */
  uniqueWord?: boolean;
  coverQuery: number;
  coverCandidate: number;
  missedQuery: number;
  missedCandidate: number;
  tokens: readonly string[];
  /** A generic organisational word of one side that the other lacks was left out. */
  dropped?: boolean;
  /** Persons: middle names of either side that matched nothing, left out of the cover. */
  middlesLeftOut?: number;
  /**
   * Persons: where the candidate's second surname starts, when it was left out (the query names
   * the person by the first: "Ada Rossi" for Ada Rossi Santos, `secondSurnameOf`).
   */
  secondSurnameFrom?: number;
}

/**
 * Compares query tokens with candidate tokens, IDF-weighted in both directions. `missed*` is
 * the largest IDF share (0–1) of a token left unmatched: a rare word that the other side lacks
 * is strong evidence of a different entity. A generic organisational word (`group`, `holdings`,
 * `international`) weighs at most `genericIdf(vocabulary)`: it says what kind of organization,
 * not which, whatever its frequency in this graph; not in an institution's name, where it tells
 * two apart (`isInstitutionWord`: "Florida International University", the University of Florida).
 */
function compareTokens(
  query: readonly string[],
  candidate: readonly string[],
  vocabulary: Vocabulary,
): NameComparison {
  const matchQ = bestTokenMatches(query, candidate);
  const matchC = bestTokenMatches(candidate, query);
  const queryWeights = weightsOf(query, vocabulary);
  let wq = 0;
  let sq = 0;
  let missedQuery = 0;
  let uniqueWord = false;
  let unmatchedQuery = 0;
  const genericCap = queryWeights.genericCap;
  let dropped = false;
  // Generic words are words like any other in an institution's name (`isInstitutionWord`),
  // looked at only when the names hold one.
  let designators: boolean | undefined;
  const designator = (token: string) => {
    if (!isGenericOrganizationWord(token)) return false;
    designators ??= !query.some(isInstitutionWord) && !candidate.some(isInstitutionWord);
    return designators;
  };
  for (let i = 0; i < query.length; i++) {
    let w = queryWeights.idf[i];
    if (designator(query[i])) {
      // Left out when the other side lacks it, as a legal form is ("Acme Group", "Acme SA").
      if (matchQ[i] < 0.6) {
        dropped = true;
        continue;
      }
      w = Math.min(genericCap, w);
    }
    wq += w;
    sq += w * matchQ[i];
    if (matchQ[i] < 0.6) {
      missedQuery = Math.max(missedQuery, w / vocabulary.maxIdf);
      unmatchedQuery++;
    }
    if (matchQ[i] === 1 && !uniqueWord) uniqueWord = queryWeights.count[i] === 1;
  }
  let wc = 0;
  let sc = 0;
  let missedCandidate = 0;
  let unmatchedCandidate = 0;
  for (let i = 0; i < candidate.length; i++) {
    let w = vocabulary.idf(candidate[i]);
    if (designator(candidate[i])) {
      if (matchC[i] < 0.6) {
        dropped = true;
        continue;
      }
      w = Math.min(genericCap, w);
    }
    wc += w;
    sc += w * matchC[i];
    if (matchC[i] < 0.6) {
      missedCandidate = Math.max(missedCandidate, w / vocabulary.maxIdf);
      unmatchedCandidate++;
    }
  }
  return {
    unmatchedQuery,
    unmatchedCandidate,
    evidence: sq / vocabulary.maxIdf,
    uniqueWord,
    coverQuery: wq > 0 ? sq / wq : 0,
    coverCandidate: wc > 0 ? sc / wc : 0,
    missedQuery,
    missedCandidate,
    tokens: candidate,
    dropped,
  };
}

/**
 * Share of entities taken to carry a generic organisational word (`group`: ~2% of organization
 * names in a real register), whatever this vocabulary counts: the cap of its IDF.
 */
const GENERIC_WORD_SHARE = 0.02;

/** Largest IDF of a generic organisational word in `vocabulary` (see `GENERIC_WORD_SHARE`). */
function genericIdf(vocabulary: Vocabulary): number {
  return Math.log((vocabulary.size + 1) / (vocabulary.size * GENERIC_WORD_SHARE + 1));
}

/**
 * A query's words' weights in `vocabulary` (`idf`, `count`), computed once per query word list
 * (query names are compared with every candidate's: issue 30), with the vocabulary's
 * `genericIdf`.
 */
interface QueryWeights {
  readonly vocabulary: Vocabulary;
  readonly idf: Float64Array;
  readonly count: Float64Array;
  readonly genericCap: number;
}

const weightsByWords = new WeakMap<readonly string[], QueryWeights>();

function weightsOf(words: readonly string[], vocabulary: Vocabulary): QueryWeights {
  let weights = weightsByWords.get(words);
  if (weights?.vocabulary !== vocabulary) {
    const idf = new Float64Array(words.length);
    const count = new Float64Array(words.length);
    for (let i = 0; i < words.length; i++) {
      idf[i] = vocabulary.idf(words[i]);
      count[i] = vocabulary.count(words[i]);
    }
    weights = { vocabulary, idf, count, genericCap: genericIdf(vocabulary) };
    weightsByWords.set(words, weights);
  }
  return weights;
}

function bestName(
  names: readonly QueryName[],
  candidateNames: readonly string[],
  tokenize: (name: string) => string[],
  vocabulary: Vocabulary,
): { comparison: NameComparison; query: QueryName } | undefined {
  let best: { comparison: NameComparison; query: QueryName } | undefined;
  let bestScore = -1;
  // Each candidate name tokenized once, not once per query name.
  const candidateTokens = candidateNames.map(tokenize);
  for (const query of names) {
    for (const tokens of candidateTokens) {
      const comparison = compareTokens(query.tokens, tokens, vocabulary);
      const score = comparison.coverQuery + comparison.coverCandidate;
      if (score > bestScore) {
        bestScore = score;
        best = { comparison, query };
      }
    }
  }
  return best;
}

function orgTokens(name: string): string[] {
  return name.split(' ').filter((token) => token !== '' && !isOrganizationStopword(token));
}

/**
 * 1 when `query` and `candidate` have the same words once the generic organisational words that
 * only one side has are left out ("babapazo networks group" and "babapazo networks").
 */
function keyEqualBesideGeneric(query: readonly string[], candidate: readonly string[]): number {
  const keep = (tokens: readonly string[], other: readonly string[]) =>
    tokens.filter((token) => !isGenericOrganizationWord(token) || other.includes(token));
  const q = keep(query, candidate);
  return q.length > 0 && sortedKey(q) === sortedKey(keep(candidate, query)) ? 1 : 0;
}

/** The distinct `tokens` sorted and joined by spaces (as a query name's `key`). */
function sortedKey(tokens: readonly string[]): string {
  // Most names have one or two words: no Set, no copy, no sort call (`<` orders as `sort` does).
  if (tokens.length === 1) return tokens[0];
  if (tokens.length === 2) {
    const [a, b] = tokens;
    if (a === b) return a;
    return a < b ? `${a} ${b}` : `${b} ${a}`;
  }
  return [...new Set(tokens)].sort().join(' ');
}

/**
 * Best fuzzy match (0–1) of each query token against any of `targets`' tokens, averaged:
 * each token's `bestTokenMatch` summed as it goes (no array per candidate).
 */
function cover(query: readonly string[], targets: readonly string[]): number {
  if (query.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < query.length; i++) sum += bestTokenMatch(query[i], targets);
  return sum / query.length;
}

/**
 * The words of `phrases` and then of `more` (a profile's titles, employers, places: words
 * joined by single spaces), each phrase's as `phrase.split(' ')` gives them, in one new array:
 * `flatMap` with `split` made two arrays per phrase and cost ~550 ns a call against ~160, for
 * every candidate (issue 30).
 */
export function splitWords(phrases: readonly string[] | undefined, more?: readonly string[]): string[] {
  const out: string[] = [];
  if (phrases) for (let i = 0; i < phrases.length; i++) pushWords(phrases[i], out);
  if (more) for (let i = 0; i < more.length; i++) pushWords(more[i], out);
  return out;
}

function pushWords(phrase: string, out: string[]): void {
  let from = 0;
  for (let space = phrase.indexOf(' '); space >= 0; space = phrase.indexOf(' ', from)) {
    out.push(phrase.slice(from, space));
    from = space + 1;
  }
  out.push(phrase.slice(from));
}

/**
 * `cover` of place words, where a word of 5+ letters with the letters of one of the entity's
 * own city or region words, shuffled, one letter more or less at most, also counts (0.5): the
 * persons set's places are misspelt on both sides, often beyond 2 edits ("Wolverhomptan" in
 * the query, "Wolvertamphon" in the graph; "Glassgow" and "olasgGw"), and such a pair counted
 * as a place that names none of the person's (`locationConflict`). Two places rarely share all
 * their letters but one; street names (`ad`) are not compared so, being many.
 */
function placeCover(query: readonly string[], own: readonly string[], places: readonly string[]): number {
  if (query.length === 0) return 0;
  let sum = 0;
  for (const q of query) {
    let best = 0;
    for (const t of own) {
      const s = tokenSimilarity(q, t);
      if (s > best) best = s;
    }
    if (best < 0.5 && q.length >= 5 && places.some((t) => shuffledOf(q, t))) best = 0.5;
    sum += best;
  }
  return sum / query.length;
}

const letterCounts = new Int32Array(128);

/** How many letters `a` and `b` differ by, in any order (1: one added or dropped; 2: one replaced). */
function lettersApart(a: string, b: string): number {
  for (let i = 0; i < a.length; i++) letterCounts[a.charCodeAt(i) & 127]++;
  for (let i = 0; i < b.length; i++) letterCounts[b.charCodeAt(i) & 127]--;
  let apart = 0;
  for (let i = 0; i < a.length; i++) {
    apart += Math.abs(letterCounts[a.charCodeAt(i) & 127]);
    letterCounts[a.charCodeAt(i) & 127] = 0;
  }
  for (let i = 0; i < b.length; i++) {
    apart += Math.abs(letterCounts[b.charCodeAt(i) & 127]);
    letterCounts[b.charCodeAt(i) & 127] = 0;
  }
  return apart;
}

/** Whether `a` and `b` (5+ letters) have the same letters but one, in any order. */
function shuffledOf(a: string, b: string): boolean {
  if (b.length < 5 || Math.abs(a.length - b.length) > 1) return false;
  // One letter added, dropped (apart 1) or replaced (apart 2).
  return lettersApart(a, b) <= 2;
}

/**
 * `tokenSimilarity` of two person-name words, where a word of 4+ letters with the other's
 * letters shuffled also counts (0.6, as one edit of a short word): the persons set's names are
 * misspelt so on both sides ("Meoor" for Moore, "Tooyb" for Toby, "Evenyl" for Evelyn), beyond
 * the 2 edits `tokenSimilarity` reads, and such a word counted as a different name. One letter
 * more or less at most, or from 5 letters one replaced (4-letter names differing by a letter
 * and an order, "Ryan" and "Mary", are different names).
 */
function nameWordSimilarity(a: string, b: string): number {
  const similarity = tokenSimilarity(a, b);
  const shorter = Math.min(a.length, b.length);
  if (similarity >= 0.6 || shorter < 4 || Math.abs(a.length - b.length) > 1) return similarity;
  return lettersApart(a, b) <= (shorter >= 5 ? 2 : 1) ? 0.6 : similarity;
}

/** Where an entity is, for the place hierarchy (`entityPlaces`, remembered per distinct place). */
function placesOf(profile: OrganizationProfile | PersonProfile) {
  const countries = profile.c ? [profile.c] : [];
  if ('oc' in profile && profile.oc) countries.push(...profile.oc);
  return entityPlaces(countries, profile.r ?? [], profile.ci ?? []);
}

/** How a query's location compares with an entity's places (`locationFeatures`). */
interface LocationComparison {
  readonly tokensMatch: number;
  readonly cover: number;
  readonly postcode: number;
  readonly regionMatch: number;
  readonly places: PlaceComparison;
}

/**
 * `compute` made once per key object. A query's parts (its location, names, e-mails) are compared
 * with every candidate's: what depends on the query alone is computed once (issue 30).
 */
function oncePer<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const computed = new LastKeyWeakMap<K, V>();
  return (key) => {
    let value = computed.get(key);
    if (value === undefined) {
      value = compute(key);
      computed.set(key, value);
    }
    return value;
  };
}

/**
 * A `WeakMap` that answers the key it last read or wrote without a lookup: a query's candidates
 * come one after another, so its memos are asked for the same key again and again (a `WeakMap`
 * lookup per candidate was ~1% of the matcher's thread, issue 30).
 */
class LastKeyWeakMap<K extends object, V> {
  readonly #map = new WeakMap<K, V>();
  #lastKey: K | undefined;
  #lastValue: V | undefined;

  get(key: K): V | undefined {
    if (key !== this.#lastKey) {
      this.#lastKey = key;
      this.#lastValue = this.#map.get(key);
    }
    return this.#lastValue;
  }

  set(key: K, value: V): void {
    this.#map.set(key, value);
    this.#lastKey = key;
    this.#lastValue = value;
  }
}

/** A location's words that are not numbers. */
const locationWords = oncePer((location: ParsedLocation): readonly string[] =>
  location.tokens.filter((t) => !/^\d+$/.test(t)),
);

function locationFeatures(
  location: ParsedLocation,
  profile: OrganizationProfile | PersonProfile,
): LocationComparison {
  let tokensMatch = 0;
  let cover = 0;
  let postcode = 0;
  let regionMatch = 0;
  const regions = profile.r ?? [];
  const words = locationWords(location);
  if (words.length > 0) {
    const places = splitWords(regions, profile.ci);
    // Street words (`ad`) count as the entity's own words, but are not compared by letters.
    const own = 'ad' in profile && profile.ad ? [...places, ...profile.ad] : places;
    cover = placeCover(words, own, places);
    tokensMatch = regions.length > 0 || (profile.ci?.length ?? 0) > 0 ? cover : 0;
  }
  if (location.regions.some((r) => regions.includes(r))) regionMatch = 1;
  if (location.postcodes.length && 'ad' in profile && profile.ad?.some((t) => location.postcodes.includes(t)))
    postcode = 1;
  const places = comparePlaces(location, placesOf(profile));
  if (places.region) regionMatch = 1;
  // One word the hierarchy reads as the entity's own division or city ("NSW", "RJ", "Calif."),
  // also when it has other readings (no words left: "MH" read as Maharashtra or the Marshall
  // Islands, "IL" as Illinois or Israel): it names the entity's place as much as the division's
  // full name would.
  if (words.length <= 1 && (regionMatch || places.city) && cover < 1) {
    cover = 1;
    tokensMatch = 1;
  }
  return { tokensMatch, cover, postcode, regionMatch, places };
}

/** Compares `query` with an organization's profile. */
export function organizationFeatures(
  query: AnalyzedQuery,
  profile: OrganizationProfile,
  vocabulary: Vocabulary,
): FeatureVector {
  const f = zeroVector(ORGANIZATION_TEMPLATE);
  if (query.names.length > 0) {
    f.hasName = 1;
    const best = bestName(query.names, profile.n, orgTokens, vocabulary);
    if (best) {
      const c = best.comparison;
      f.nameCoverQuery = c.coverQuery;
      f.nameCoverCandidate = c.coverCandidate;
      f.nameBoth = c.coverQuery * c.coverCandidate;
      f.nameMissedQuery = c.missedQuery;
      f.nameMissedCandidate = c.missedCandidate;
      f.nameEvidence = c.evidence;
      f.nameUnmatchedQueryWords = Math.min(3, c.unmatchedQuery);
      f.nameUnmatchedCandidateWords = Math.min(3, c.unmatchedCandidate);
      f.nameKeyEqual = c.dropped
        ? keyEqualBesideGeneric(best.query.tokens, c.tokens)
        : best.query.key !== '' && best.query.key === sortedKey(c.tokens)
          ? 1
          : 0;
      f.nameJaroWinkler = nameJaroWinkler(best.query.tokens, c.tokens);
      // All the query gives is in the name, and it is rare: a part that names one entity.
      f.nameQueryCovered = c.coverQuery >= 0.95 ? c.evidence : 0;
      // A word of the query that only this entity has in its name ("Bigovofe"): the graph
      // holds no other entity it could mean (the query may still be about one it lacks).
      f.nameUniqueWord = c.uniqueWord === true && c.coverQuery >= 0.95 ? 1 : 0;
    }
    const acronyms = profile.a ?? [];
    if (query.names.some((n) => n.acronym !== undefined && acronyms.includes(n.acronym))) f.acronymMatch = 1;
    const forms = query.names.flatMap((n) => n.legalForms ?? []);
    if (forms.length && profile.lf?.length) {
      if (forms.some((form) => profile.lf?.includes(form))) f.legalFormMatch = 1;
      else f.legalFormConflict = 1;
    }
  }
  urlFeatures(query, profile, f);
  const domains = profile.d ?? [];
  if (query.emails.some((e) => !e.freeMail && domains.includes(e.registrable))) f.emailDomainMatch = 1;
  phoneFeatures(query, profile.p, f);
  if (query.location) {
    f.hasLocation = 1;
    const loc = locationFeatures(query.location, profile);
    f.countryMatch = loc.places.country ? 1 : 0;
    f.countryConflict = loc.places.countryConflict ? 1 : 0;
    f.regionMatch = loc.regionMatch;
    // Elsewhere in the hierarchy, unless the words name the entity's own place.
    f.placeConflict = loc.places.conflict && loc.cover < 0.5 ? 1 : 0;
    f.locationTokensMatch = loc.tokensMatch;
  }
  if (query.ip) {
    f.hasIp = 1;
    if (profile.ip && ipInRanges(query.ip, profile.ip)) f.ipMatch = 1;
  }
  return expandOrganization(f);
}

/**
 * URL evidence. A profile on a shared host (`linkedin.com/company/acme`) is the entity's own
 * page when it is among its profiles, and another's when the entity has another page on that
 * site; a profile the graph does not know is no evidence either way (graphs seldom hold them).
 */
function urlFeatures(query: AnalyzedQuery, profile: OrganizationProfile, f: FeatureVector): void {
  const hosts = profile.h ?? [];
  const domains = profile.d ?? [];
  const own = profile.u ?? [];
  // Whether the entity states something a given URL could have agreed with.
  let comparable = false;
  for (const url of query.urls) {
    if (url.profile !== undefined) {
      const site = url.profile.slice(0, url.profile.indexOf('/') + 1);
      if (own.includes(url.profile)) f.hasUrl = f.urlHostMatch = f.urlExactHost = 1;
      else if (own.some((p) => p.startsWith(site))) f.hasUrl = 1;
      comparable ||= own.some((p) => p.startsWith(site));
      continue;
    }
    f.hasUrl = 1;
    // The entity's name under another ending ("acme.de" for acme.com) is no conflict: companies
    // keep sites in other countries, and a user often guesses the ending. Nor is it agreement:
    // another owner may hold that name there.
    comparable ||= hosts.length > 0 && !domains.some((d) => isOtherEnding(d, url.domain));
    if (url.hosts.some((h) => hosts.includes(h))) f.urlHostMatch = 1;
    // The query's own host, not a parent of it: a subdomain owned by another entry wins.
    if (hosts.includes(url.hosts[0])) f.urlExactHost = 1;
    if (domains.includes(url.domain)) f.urlDomainMatch = 1;
  }
  if (comparable && !f.urlHostMatch && !f.urlDomainMatch) f.urlConflict = 1;
}

/**
 * Whether two registrable domains are one name under two endings ("acme.com", "acme.co.uk"): a
 * registrable domain is one label and a public suffix, so the label is what comes before the
 * first dot.
 */
function isOtherEnding(a: string, b: string): boolean {
  const dot = a.indexOf('.');
  return dot > 0 && a !== b && b.length > dot && b.charCodeAt(dot) === 46 && b.startsWith(a.slice(0, dot));
}

/** Phone evidence: the query gave numbers; one is the candidate's, or the candidate has others. */
function phoneFeatures(query: AnalyzedQuery, phones: readonly string[] | undefined, f: FeatureVector): void {
  if (query.phones.length === 0) return;
  f.hasPhone = 1;
  if (phones?.some((p) => query.phones.includes(p))) f.phoneMatch = 1;
  else if (phones && phones.length > 0) f.phoneConflict = 1;
}

/**
 * A person name's words with given names in formal form (`ivan` → `john`, so that nicknames
 * and other-language forms compare), and each word's first letter as written: an initial
 * stands for the name as written ("I." is Ivan, not John).
 */
interface PersonWords {
  readonly tokens: readonly string[];
  /** The words as written (`tokens` is this array itself when no word has another formal form). */
  readonly written: readonly string[];
  readonly initials: string;
  /** Some word is listed in `given-name-variants.tsv` (Luke, Sofia): only then are pairs looked up. */
  readonly variants: boolean;
}

export function personWords(written: readonly string[]): PersonWords {
  const tokens: string[] = [];
  let initials = '';
  let same = true;
  let variants = false;
  for (let i = 0; i < written.length; i++) {
    const formal = canonicalGivenName(written[i]);
    same &&= formal === written[i];
    variants ||= hasGivenNameVariants(written[i]) || hasGivenNameVariants(formal);
    tokens.push(formal);
    initials += written[i][0] ?? '';
  }
  return { tokens: same ? written : tokens, written, initials, variants };
}

/** Whether two given-name words are variants of each other, as written or in formal form. */
function variantWords(a: PersonWords, i: number, b: PersonWords, j: number): boolean {
  return areGivenNameVariants(a.written[i], b.written[j]) || areGivenNameVariants(a.tokens[i], b.tokens[j]);
}

/**
 * `query` with each word that is a variant of one of `candidate`'s (`given-name-variants.tsv`)
 * written as that word, or `query` itself when none is: "Luke Anna Berg" read as Lucas Anna
 * Berg's, so that the name's key and spelling compare as a nickname's do with its formal name.
 */
function respeltAsCandidate(query: PersonWords, candidate: PersonWords): PersonWords {
  if (!query.variants || !candidate.variants) return query;
  let tokens: string[] | undefined;
  let written: string[] | undefined;
  for (let i = 0; i < query.tokens.length; i++) {
    for (let j = 0; j < candidate.tokens.length; j++) {
      if (!variantWords(query, i, candidate, j)) continue;
      tokens ??= [...query.tokens];
      written ??= [...query.written];
      tokens[i] = candidate.tokens[j];
      written[i] = candidate.written[j];
      break;
    }
  }
  if (!tokens || !written) return query;
  return { tokens, written, initials: query.initials, variants: true };
}

/**
 * What two name words that are one formal name but written differently compare (Ivan and João
 * are both John in `given-names.tsv`): nearly the same, but less than the same word, so that
 * "Ivan Julia Lopz" is likelier Ivan Julia Lopez than his namesake João Julia Lopez.
 */
const EQUIVALENT_NAME_SIMILARITY = 0.95;

/** Similarity of two person-name words: as `tokenSimilarity`, and an initial matches a name it starts. */
export function personTokenSimilarity(a: PersonWords, i: number, b: PersonWords, j: number): number {
  const x = a.tokens[i];
  const y = b.tokens[j];
  if (x === y) return a.written[i] === b.written[j] ? 1 : EQUIVALENT_NAME_SIMILARITY;
  // A variant (Luke for Lucas, Sophia for Sofia) compares as a nickname with its formal name.
  if (a.variants && b.variants && variantWords(a, i, b, j)) return EQUIVALENT_NAME_SIMILARITY;
  if (x.length === 1 || y.length === 1) {
    // A middle initial stands for a middle name: "Julia J. Tanaka" is not Julia Tanaka by her
    // given name's J.
    const middleA = isMiddle(i, a.tokens.length);
    const middleB = isMiddle(j, b.tokens.length);
    if ((x.length === 1 && middleA && !middleB) || (y.length === 1 && middleB && !middleA)) return 0;
    return a.initials[i] === b.initials[j] || x[0] === y[0] ? 0.8 : 0;
  }
  return nameWordSimilarity(x, y);
}

/**
 * Each query word's similarity with the candidate word it is paired with, and (in `closest`,
 * when given, an empty array) that word's position (-1 when none is similar at all). Words pair
 * one to one: a candidate word stands for one query word at most, so "Omar O. Hoffmann" does
 * not find both its Omar and its O. in Hugo Omar Hoffmann's one Omar. Each query word takes its
 * most similar word; only when two take the same one are the pairs chosen for the largest total
 * (earlier query words first among equal totals). The words' similarities come from the pairs
 * `startPairs` began (`reversed`: those pairs' candidate is this `query`).
 */
function personMatches(
  query: PersonWords,
  candidate: PersonWords,
  reversed: boolean,
  closest?: number[],
): number[] {
  const n = query.tokens.length;
  const m = candidate.tokens.length;
  const out: number[] = [];
  // The pairs' positions go straight into `closest` when given (it starts empty).
  const at: number[] = closest ?? [];
  let taken = 0;
  let shared = false;
  for (let i = 0; i < n; i++) {
    let best = 0;
    let where = -1;
    for (let j = 0; j < m && best < 1; j++) {
      const similarity = reversed ? pairSimilarity(j, i) : pairSimilarity(i, j);
      if (similarity > best) {
        best = similarity;
        where = j;
      }
    }
    if (where >= 0) {
      if (where < 31 && taken & (1 << where)) shared = true;
      else if (where < 31) taken |= 1 << where;
    }
    out.push(best);
    at.push(where);
  }
  if (shared && m <= MAX_ASSIGNED_WORDS && n <= MAX_ASSIGNED_WORDS) assignOneToOne(n, m, reversed, out, at);
  return out;
}

/**
 * The pairs of one name comparison's words (`comparePersonTokens`: `startPairs`, then
 * `personMatches` of query and candidate and of candidate and query, then `endPairs`): each pair's `personTokenSimilarity` computed once, on first read, and
 * read again by the other direction and by `assignOneToOne` (the similarity is symmetric:
 * features.test.ts). -1: not yet computed. Names of more than `MAX_PAIRED` pairs are
 * computed afresh each time (no buffer kept for a hostile name's thousands of words).
 */
const pairs: {
  query: PersonWords | undefined;
  candidate: PersonWords | undefined;
  width: number;
  kept: boolean;
  values: Float64Array;
} = { query: undefined, candidate: undefined, width: 0, kept: false, values: new Float64Array(64) };

const MAX_PAIRED = 1024;

function startPairs(query: PersonWords, candidate: PersonWords): void {
  const size = query.tokens.length * candidate.tokens.length;
  pairs.query = query;
  pairs.candidate = candidate;
  pairs.width = candidate.tokens.length;
  pairs.kept = size <= MAX_PAIRED;
  if (!pairs.kept) return;
  if (pairs.values.length < size) pairs.values = new Float64Array(MAX_PAIRED);
  pairs.values.fill(-1, 0, size);
}

/** `personTokenSimilarity` of the paired query's word `i` and candidate's word `j`. */
function pairSimilarity(i: number, j: number): number {
  const query = pairs.query as PersonWords;
  const candidate = pairs.candidate as PersonWords;
  if (!pairs.kept) return personTokenSimilarity(query, i, candidate, j);
  const at = i * pairs.width + j;
  let similarity = pairs.values[at];
  if (similarity < 0) {
    similarity = personTokenSimilarity(query, i, candidate, j);
    pairs.values[at] = similarity;
  }
  return similarity;
}

/** The comparison is over: `pairs` keeps no reference to its words. */
function endPairs(): void {
  pairs.query = undefined;
  pairs.candidate = undefined;
}

/** Names longer than this (in words) keep each word's best match (`personMatches`). */
const MAX_ASSIGNED_WORDS = 8;

/**
 * The one-to-one pairing of the paired query's `n` words with the candidate's `m` (`pairs`;
 * `reversed`: the candidate's words with the query's) of the largest total similarity (a word
 * may stay unpaired: 0), written into `out` and `at`. Exact, over subsets of the other side's
 * words: names have a few words.
 */
function assignOneToOne(n: number, m: number, reversed: boolean, out: number[], at: number[]): void {
  const similarity: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) similarity.push(reversed ? pairSimilarity(j, i) : pairSimilarity(i, j));
  }
  // best[i][mask]: the largest total of query words i.. with the candidate words in mask used.
  const masks = 1 << m;
  const best = new Float64Array((n + 1) * masks);
  for (let i = n - 1; i >= 0; i--) {
    for (let mask = 0; mask < masks; mask++) {
      let value = best[(i + 1) * masks + mask];
      for (let j = 0; j < m; j++) {
        const s = similarity[i * m + j];
        if (s > 0 && !(mask & (1 << j)))
          value = Math.max(value, s + best[(i + 1) * masks + (mask | (1 << j))]);
      }
      best[i * masks + mask] = value;
    }
  }
  let mask = 0;
  for (let i = 0; i < n; i++) {
    const target = best[i * masks + mask];
    let where = -1;
    let value = 0;
    // The most similar free word that still reaches the best total (ties: the first such word).
    for (let j = 0; j < m; j++) {
      const s = similarity[i * m + j];
      if (s <= value || mask & (1 << j)) continue;
      if (s + best[(i + 1) * masks + (mask | (1 << j))] >= target - 1e-12) {
        value = s;
        where = j;
      }
    }
    out[i] = value;
    at[i] = where;
    if (where >= 0) mask |= 1 << where;
  }
}

/** Positions of middle names in person-name tokens (given name first, surname last). */
function isMiddle(i: number, length: number): boolean {
  return length >= 3 && i > 0 && i < length - 1;
}

/**
 * `compareTokens` for person names: initials match the names they start, and a middle name
 * that the other side lacks counts neither way (a middle name missing on either side is not a
 * conflict): it is left out of the cover and of what is missed.
 */
function comparePersonTokens(
  queryWords: PersonWords,
  candidateWords: PersonWords,
  vocabulary: Vocabulary,
  surnames?: readonly string[],
): NameComparison {
  const query = queryWords.tokens;
  const candidate = candidateWords.tokens;
  const closest: number[] = [];
  startPairs(queryWords, candidateWords);
  const matchQ = personMatches(queryWords, candidateWords, false, closest);
  const matchC = personMatches(candidateWords, queryWords, true);
  endPairs();
  const queryIdf = weightsOf(query, vocabulary).idf;
  let wq = 0;
  let sq = 0;
  let evidence = 0;
  let missedQuery = 0;
  let unmatchedQuery = 0;
  let middlesLeftOut = 0;
  for (let i = 0; i < query.length; i++) {
    if (matchQ[i] < 0.6 && isMiddle(i, query.length)) {
      middlesLeftOut++;
      continue;
    }
    const w = queryIdf[i];
    wq += w;
    sq += w * matchQ[i];
    // A misspelt word is as rare as no word (the largest IDF), but it names what it is a typo
    // of: "Sith" for Smith is evidence of a Smith, a common name, not of a rare one. (An
    // initial is no typo: what it says is its letter.)
    const typoOf =
      matchQ[i] < 1 && closest[i] >= 0 && query[i].length > 1 ? candidate[closest[i]] : undefined;
    evidence +=
      matchQ[i] * (typoOf !== undefined && typoOf.length > 1 ? Math.min(w, vocabulary.idf(typoOf)) : w);
    if (matchQ[i] < 0.6) {
      unmatchedQuery++;
      missedQuery = Math.max(missedQuery, w / vocabulary.maxIdf);
    }
  }
  let wc = 0;
  let sc = 0;
  let missedCandidate = 0;
  let unmatchedCandidate = 0;
  const secondSurname = surnames ? secondSurnameOf(candidate, surnames, matchC) : -1;
  for (let i = 0; i < candidate.length; i++) {
    // The second surname is its last word (a conjunction before it is a middle word).
    if (
      matchC[i] < 0.6 &&
      (isMiddle(i, candidate.length) || (secondSurname > 0 && i === candidate.length - 1))
    ) {
      middlesLeftOut++;
      continue;
    }
    const w = vocabulary.idf(candidate[i]);
    wc += w;
    sc += w * matchC[i];
    if (matchC[i] < 0.6) {
      unmatchedCandidate++;
      missedCandidate = Math.max(missedCandidate, w / vocabulary.maxIdf);
    }
  }
  return {
    unmatchedQuery,
    unmatchedCandidate,
    evidence: evidence / vocabulary.maxIdf,
    coverQuery: wq > 0 ? sq / wq : 0,
    coverCandidate: wc > 0 ? sc / wc : 0,
    missedQuery,
    missedCandidate,
    tokens: candidate,
    middlesLeftOut,
    ...(secondSurname > 0 && matchC[candidate.length - 1] < 0.6 ? { secondSurnameFrom: secondSurname } : {}),
  };
}

/**
 * Where in candidate name `tokens` its second surname starts (`secondSurnameAt`: "Santos" of
 * Ada Amir Rossi Santos, "y Santos" of Rossi y Santos), to be left out of the cover when the
 * query names the person by the first alone ("Ada Rossi", "Ada Amir Rossi"); -1 when the name
 * has none, or when the first surname matched nothing (`matchC`): the first is the one named.
 */
function secondSurnameOf(
  tokens: readonly string[],
  surnames: readonly string[],
  matchC: readonly number[],
): number {
  const from = secondSurnameAt(tokens, surnames);
  return from > 0 && matchC[from - 1] >= 0.6 ? from : -1;
}

/** The first `n` of `words` (without a second surname left out: `secondSurnameOf`). */
function wordsBefore(words: PersonWords, n: number): PersonWords {
  const tokens = words.tokens.slice(0, n);
  const written = words.written === words.tokens ? tokens : words.written.slice(0, n);
  return { tokens, written, initials: words.initials.slice(0, n), variants: words.variants };
}

/** How the middle names (or initials) of two person names compare, when both have some. */
function middleNames(query: PersonWords, candidate: PersonWords): { match: number; conflict: number } {
  const q = query.tokens.length;
  const c = candidate.tokens.length;
  if (q < 3 || c < 3) return { match: 0, conflict: 0 };
  let best = 0;
  for (let i = 1; i < q - 1; i++) {
    for (let j = 1; j < c - 1; j++) best = Math.max(best, personTokenSimilarity(query, i, candidate, j));
  }
  return { match: best, conflict: best < 0.5 ? 1 : 0 };
}

/** What a query's title matching only a past employment's title counts, of a current one's 1. */
const PAST_TITLE_WEIGHT = 0.5;

/** Words of school names that say what is taught or what kind of school, not which one. */
const GENERIC_SCHOOL_WORDS: ReadonlySet<string> = new Set([
  'school',
  'university',
  'college',
  'institute',
  'academy',
  'polytechnic',
  'faculty',
  'department',
  'center',
  'science',
  'technology',
  'engineering',
  'business',
  'management',
  'law',
  'medicine',
  'medical',
  'arts',
  'art',
  'design',
  'economics',
  'chemistry',
  'physics',
  'mathematics',
  'computer',
  'mechanical',
  'education',
  'studies',
  'national',
  'state',
  'international',
]);

/** Letters of an e-mail local part (`ada.hoffmann84` → `adahoffmann`). */
function localLetters(local: string): string {
  return local.replace(/[^a-z]/g, '');
}

/** The letters of a query e-mail's local part. */
const localLettersOf = oncePer((email: { readonly local: string }) => localLetters(email.local));

function asciiLetters(name: string): string {
  return foldText(name).replace(/[^a-z]/g, '');
}

/**
 * How well an e-mail's local part fits a person's name, in the forms people make addresses
 * of: `first.last`, `flast`, `firstl`, `last.first`, `first`, `f.m.last` (1); the surname with
 * other letters (0.5); nothing of it (0).
 */
function localFitsName(
  email: { readonly local: string },
  first?: string,
  last?: string,
  middles: readonly string[] = [],
): number {
  const letters = localLettersOf(email);
  if (letters.length < 2 || !last) return 0;
  const l = asciiLetters(last);
  const f = first ? asciiLetters(first) : '';
  if (!l) return 0;
  if (letters === l) return 1;
  if (f) {
    let m = '';
    for (let i = 0; i < middles.length; i++) m += asciiLetters(middles[i])[0] ?? '';
    const f0 = f[0];
    const l0 = l[0];
    // The forms, each compared without building it (ten strings per candidate address).
    if (
      spells(letters, f, l) ||
      spells(letters, f0, l) ||
      spells(letters, f, l0) ||
      spells(letters, l, f) ||
      spells(letters, l, f0) ||
      letters === f ||
      spells(letters, f0, m, l) ||
      spells(letters, f, m, l) ||
      spells(letters, l, f0, m)
    )
      return 1;
  }
  return l.length >= 4 && letters.includes(l) ? 0.5 : 0;
}

/** Whether `text` is `a`, `b` and `c` written together (`a + b + c === text`, built by no one). */
export function spells(text: string, a: string, b: string, c = ''): boolean {
  return (
    text.length === a.length + b.length + c.length &&
    text.startsWith(a) &&
    text.startsWith(b, a.length) &&
    text.startsWith(c, a.length + b.length)
  );
}

/** How well query word `a` stands for given name `forms` (`nameWordForms`). */
function givenNameSimilarity(a: string, forms: string): number {
  return bestOfForms(a, forms, givenNameWordSimilarity);
}

function givenNameWordSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const ca = canonicalGivenName(a);
  const cb = canonicalGivenName(b);
  if (isGivenNameEquivalent(a, b, ca, cb)) return EQUIVALENT_NAME_SIMILARITY;
  if ((a.length === 1 && b.startsWith(a)) || (b.length === 1 && a.startsWith(b))) return 0.6;
  return Math.max(nameWordSimilarity(a, b), nameWordSimilarity(ca, cb) * 0.95);
}

/**
 * Whether given names `a` and `b` (`ca`, `cb` their formal forms) are one name written another
 * way: one formal name, a nickname of a name it is listed under, or variants of each other.
 */
function isGivenNameEquivalent(a: string, b: string, ca: string, cb: string): boolean {
  return (
    ca === cb ||
    isGivenNameForm(a, b) ||
    isGivenNameForm(b, a) ||
    areGivenNameVariants(a, b) ||
    areGivenNameVariants(ca, cb)
  );
}

/**
 * Jaro-Winkler of two person names as written, and with the query's first word moved to the
 * end: "Bishop Teddy" is Teddy Bishop written surname first (a spreadsheet's "LAST First").
 */
function nameJaroWinkler(query: readonly string[], candidate: readonly string[]): number {
  const written = candidate.join(' ');
  const forms = writtenForms(query);
  const straight = jaroWinkler(forms.straight, written);
  if (query.length < 2) return straight;
  return Math.max(straight, jaroWinkler(forms.rotated, written));
}

/**
 * How alike two person names are spelt (`nameJaroWinkler`), a query without the middle name
 * the candidate has compared also with the candidate without it. Names whose given names are
 * one formal name written differently (Ivan, João) compare as written, or as their formal
 * forms at `EQUIVALENT_NAME_SIMILARITY` of it, whichever is closer: "Ivan Julia Lopz" is spelt
 * more like Ivan Julia Lopez than like João Julia Lopez.
 */
function personSpelling(query: PersonWords, candidate: PersonWords): number {
  const formal = wholeSpelling(query.tokens, candidate.tokens);
  if (query.written === query.tokens && candidate.written === candidate.tokens) return formal;
  return Math.max(wholeSpelling(query.written, candidate.written), formal * EQUIVALENT_NAME_SIMILARITY);
}

function wholeSpelling(query: readonly string[], candidate: readonly string[]): number {
  const spelling = nameJaroWinkler(query, candidate);
  if (query.length !== 2 || candidate.length < 3) return spelling;
  return Math.max(spelling, nameJaroWinkler(query, [candidate[0], candidate[candidate.length - 1]]));
}

/** A query name's words as written and with its first word moved to the end (`nameJaroWinkler`). */
interface WrittenForms {
  readonly straight: string;
  readonly rotated: string;
}

const writtenForms = oncePer(
  (query: readonly string[]): WrittenForms => ({
    straight: query.join(' '),
    rotated: query.length < 2 ? '' : [...query.slice(1), query[0]].join(' '),
  }),
);

interface BestPersonName {
  readonly comparison: NameComparison;
  /** The query's name (given names in formal form) and the candidate's that compared best. */
  readonly query: QueryName;
  readonly queryWords: PersonWords;
  readonly candidateWords: PersonWords;
  /** The query name's position in the query's names. */
  readonly reading: number;
}

function bestPersonName(
  names: readonly QueryPersonName[],
  candidateNames: readonly string[],
  vocabulary: Vocabulary,
  surnames?: readonly string[],
): BestPersonName | undefined {
  let best: BestPersonName | undefined;
  let bestScore = -1;
  let bestUnmatched = 0;
  // Each candidate name's words once, not once per query name.
  const candidates = candidateNames.map((name) => personWords(name.split(' ')));
  for (let reading = 0; reading < names.length; reading++) {
    const { name: query, words: queryWords } = names[reading];
    for (const candidateWords of candidates) {
      const comparison = comparePersonTokens(queryWords, candidateWords, vocabulary, surnames);
      const score = comparison.coverQuery + comparison.coverCandidate;
      // Among readings that cover as well, the one with fewer middle names left out (a middle
      // name that matches nothing is not in the cover: "Ada Amir Santos Rossi" covers Ada Amir
      // Rossi as well as its reading without Santos does).
      const unmatched = comparison.middlesLeftOut ?? 0;
      if (score > bestScore || (score === bestScore && unmatched < bestUnmatched)) {
        bestScore = score;
        bestUnmatched = unmatched;
        best = { comparison, query, queryWords, candidateWords, reading };
      }
    }
  }
  return best;
}

interface QueryPersonName {
  readonly name: QueryName;
  readonly words: PersonWords;
}

/** The query's names with given names in canonical form. */
const canonicalNames = oncePer((query: AnalyzedQuery): QueryPersonName[] =>
  query.names.map((n) => {
    const words = personWords(n.tokens);
    return { name: { ...n, tokens: words.tokens }, words };
  }),
);

/** IDF mass (in units of the largest IDF) of the query's place words found among the candidate's. */
function placeEvidence(location: ParsedLocation, profile: PersonProfile, places: Vocabulary): number {
  const words = placeWords(location);
  if (words.length === 0) return 0;
  const idf = weightsOf(words, places).idf;
  const own = splitWords(profile.ci);
  if (profile.ad) for (let i = 0; i < profile.ad.length; i++) own.push(profile.ad[i]);
  const matches = bestTokenMatches(words, own);
  let sum = 0;
  for (let i = 0; i < words.length; i++) sum += matches[i] * idf[i];
  return sum / places.maxIdf;
}

/** A location's place words (`placeTokens`). */
const placeWords = oncePer((location: ParsedLocation): readonly string[] => placeTokens(location.tokens));

/** How a query name's given name and surname compare with a person's (`givenAndSurname`). */
interface GivenAndSurname {
  readonly first: number;
  readonly last: number;
  readonly givenConflict: boolean;
  readonly surnameConflict: boolean;
}

/**
 * The given name and surname of query name `q` (its given name `given`) against the person's,
 * straight or crossed (surname written first), whichever agrees better; both parts on both
 * sides, one differing beyond a typo, is a likely namesake (a conflict).
 */
function givenAndSurname(q: QueryName, given: string, profile: PersonProfile): GivenAndSurname {
  const first = profile.f === undefined ? undefined : nameWordForms(profile.f, 'first');
  const last = profile.l === undefined ? undefined : nameWordForms(profile.l, 'last');
  const givenStraight = first ? givenNameSimilarity(given, first) : 0;
  const surnameStraight = last && q.last ? surnameSimilarity(q.last, last) : 0;
  const givenCrossed = first && q.last ? givenNameSimilarity(q.last, first) : 0;
  const surnameCrossed = last ? surnameSimilarity(given, last) : 0;
  const straight = givenStraight + surnameStraight >= surnameCrossed + givenCrossed;
  const out = {
    first: straight ? givenStraight : givenCrossed,
    last: straight ? surnameStraight : surnameCrossed,
  };
  // Both sides have both parts, and one part differs beyond a typo: likely a namesake.
  const both = Boolean(q.last && first && last);
  return { ...out, givenConflict: both && out.first < 0.5, surnameConflict: both && out.last < 0.5 };
}

/**
 * A profile's given name or surname as the query's words are written: the name's words run
 * together ("o'brien" → `obrien`, as a query's "O'Brien" reads), or the word a query's name
 * would give this part alone (the first of a given name, the last of "Massy-Beresford"), and
 * for a surname of two (`surnameWords`: "Rossi Santos", "Rossi-Santos") also the first, as
 * people named by one of two surnames write it ("Ada Rossi"). Plain words, most names, are
 * returned as they are.
 */
function nameWordForms(part: string, edge: 'first' | 'last'): string {
  if (/^[a-z]+$/.test(part)) return part;
  const words = textTokens(part);
  if (words.length <= 1) return words[0] ?? part;
  const forms = `${words.join('')} ${edge === 'first' ? words[0] : words[words.length - 1]}`;
  const surnames = edge === 'last' ? surnameWords(part) : undefined;
  return surnames ? `${forms} ${surnames[0]}` : forms;
}

/** The best similarity of a query word with a name part's forms (`nameWordForms`, space-separated). */
function bestOfForms(word: string, forms: string, similarity: (a: string, b: string) => number): number {
  let space = forms.indexOf(' ');
  if (space < 0) return similarity(word, forms);
  let best = similarity(word, forms.slice(0, space));
  while (space >= 0) {
    const next = forms.indexOf(' ', space + 1);
    best = Math.max(best, similarity(word, forms.slice(space + 1, next < 0 ? undefined : next)));
    space = next;
  }
  return best;
}

/**
 * Whether two names of 3+ words are the same words but one, that one misspelt by a single edit
 * (a letter added, left out, replaced, or two swapped) in a word of 4+ letters: "Ivan Paul
 * Hafdad" for Ivan Paul Haddad. One typo is the likeliest reading wherever it falls in the word,
 * while the whole name's Jaro-Winkler moves with its place (0.962 for "Hafdad", 0.989 for
 * "Kowalskii"). Not for two words: one of two agreeing says too little (fitted on 2+ words, it
 * moved the calibration: seed 7 Person ECE 0.0306).
 */
function oneWordOneEdit(query: readonly string[], candidate: readonly string[]): boolean {
  if (query.length < 3 || query.length !== candidate.length) return false;
  let misspelt = -1;
  for (let i = 0; i < query.length; i++) {
    if (query[i] === candidate[i]) continue;
    if (misspelt >= 0) return false;
    misspelt = i;
  }
  if (misspelt < 0) return false;
  const a = query[misspelt];
  const b = candidate[misspelt];
  return Math.min(a.length, b.length) >= 4 && editDistance(a, b, 1) === 1;
}

function surnameSimilarity(word: string, forms: string): number {
  return bestOfForms(word, forms, nameWordSimilarity);
}

/** The title features of `f` (in place), for a query that gives a title (its tokens `asked`). */
function titleFeatures(asked: readonly string[], profile: PersonProfile, f: FeatureVector): void {
  f.hasTitle = 1;
  const titles = splitWords(profile.t);
  const pastTitles = splitWords(profile.tp);
  // A title held before is weaker evidence than the current one: the namesake who is a
  // "Research Scientist" now is likelier meant than the one who was one.
  f.titleSimilarity = Math.max(
    cover(asked, titles),
    pastTitles.length > 0 ? PAST_TITLE_WEIGHT * cover(asked, pastTitles) : 0,
  );
  if (titles.length + pastTitles.length > 0 && f.titleSimilarity < 0.3) f.titleConflict = 1;
  if (titles.length + pastTitles.length === 0) f.titleMissing = 1;
}

/** A Person candidate's name features (`personNameFeatures`), as the vector takes them. */
interface PersonNameFeatures {
  readonly middleNameMatch: number;
  readonly middleNameConflict: number;
  readonly nameCoverQuery: number;
  readonly nameCoverCandidate: number;
  readonly nameBoth: number;
  readonly nameMissedQuery: number;
  readonly nameMissedCandidate: number;
  readonly nameEvidence: number;
  readonly nameKeyEqual: number;
  readonly nameJaroWinkler: number;
  readonly singleTokenName: number;
  readonly nameOneEdit: number;
  /** Which of the query's names compared best: its given name and surname are compared. */
  readonly reading: number;
}

/**
 * What one query's Person candidates with the same names (or the same given name and surname)
 * share: their name features depend on the query and those names alone. On a 1M + 1M graph a
 * query's candidates are mostly a crowd of namesakes: 78% of them have the names of an earlier
 * candidate of the same query (40% on 20k + 20k), so each distinct name is compared once.
 */
interface PersonMemo {
  readonly vocabulary: Vocabulary;
  readonly placeVocabulary: Vocabulary | undefined;
  /** By the candidate's names (joined by U+0001, in no name); `null`: it has none. */
  readonly names: Map<string, PersonNameFeatures | null>;
  /** By the candidate's given name and surname. */
  readonly parts: Map<string, GivenAndSurname>;
  /** By what the candidate's place features depend on (`placesKey`). */
  readonly places: Map<string, PersonPlaceFeatures>;
}

const personMemos = new LastKeyWeakMap<AnalyzedQuery, PersonMemo>();

/** `query`'s memo of features compared with these vocabularies (a new one for others). */
function personMemo(
  query: AnalyzedQuery,
  vocabulary: Vocabulary,
  placeVocabulary: Vocabulary | undefined,
): PersonMemo {
  let memo = personMemos.get(query);
  if (memo?.vocabulary !== vocabulary || memo.placeVocabulary !== placeVocabulary) {
    memo = { vocabulary, placeVocabulary, names: new Map(), parts: new Map(), places: new Map() };
    personMemos.set(query, memo);
  }
  return memo;
}

/** A Person candidate's place features (`personPlaceFeatures`), as the vector takes them. */
interface PersonPlaceFeatures {
  readonly locationCover: number;
  readonly locationEvidence: number;
  readonly locationMissing: number;
  readonly countryMatch: number;
  readonly countryConflict: number;
  readonly placeConflict: number;
  readonly locationConflict: number;
  readonly postcodeMatch: number;
  readonly regionMatch: number;
}

/**
 * What a person's place features depend on: country, regions, cities and street words (an
 * absent list reads as an empty one, as the comparisons read it; a person has no `oc`), joined
 * by control characters no normalised word holds.
 */
function placesKey(profile: PersonProfile): string {
  const list = (words: readonly string[] | undefined) => words?.join('\u0002') ?? '';
  return `${profile.c ?? ''}\u0001${list(profile.r)}\u0001${list(profile.ci)}\u0001${list(profile.ad)}`;
}

/** How a query's `location` compares with a person's places (`places`: the place vocabulary). */
function personPlaceFeatures(
  location: ParsedLocation,
  profile: PersonProfile,
  places: Vocabulary | undefined,
): PersonPlaceFeatures {
  const loc = locationFeatures(location, profile);
  const hasPlaces = (profile.ci?.length ?? 0) + (profile.ad?.length ?? 0) + (profile.r?.length ?? 0) > 0;
  const resolved = (location.places.length ?? 0) > 0;
  return {
    locationCover: loc.cover,
    locationEvidence: places ? placeEvidence(location, profile, places) : 0,
    locationMissing: !hasPlaces && !profile.c ? 1 : 0,
    countryMatch: loc.places.country ? 1 : 0,
    countryConflict: loc.places.countryConflict ? 1 : 0,
    // Elsewhere in the hierarchy ("Sydney" for someone in Melbourne), unless the words name the
    // person's own place or postcode.
    placeConflict: loc.places.conflict && loc.cover < 0.5 && !loc.postcode ? 1 : 0,
    // Words that name no known place and none of the person's (a misspelt or unknown village).
    locationConflict: hasPlaces && !resolved && loc.cover < 0.3 && !loc.regionMatch && !loc.postcode ? 1 : 0,
    postcodeMatch: loc.postcode,
    regionMatch: loc.regionMatch,
  };
}

/**
 * How `query`'s names compare with a person's `names` (`null` when it has none); `surnames`
 * the words of the person's surname when it has two (`surnameWords`).
 */
function personNameFeatures(
  query: AnalyzedQuery,
  names: readonly string[],
  vocabulary: Vocabulary,
  surnames?: readonly string[],
): PersonNameFeatures | null {
  const best = bestPersonName(canonicalNames(query), names, vocabulary, surnames);
  if (!best) return null;
  const c = best.comparison;
  const middle = middleNames(best.queryWords, best.candidateWords);
  // Without a second surname the query leaves out, the candidate's name is compared as its first.
  const own = c.secondSurnameFrom !== undefined ? c.tokens.slice(0, c.secondSurnameFrom) : c.tokens;
  // A query without the middle name the candidate has ("Julia Brown" for Julia João Brown)
  // compares whole as the candidate without it.
  const whole = best.query.tokens.length === 2 && own.length >= 3 ? [own[0], own[own.length - 1]] : own;
  // A variant of a candidate's word (Luke for Lucas) is read as that word for the key and the
  // spelling, as a nickname is read as its formal name.
  const respelt = respeltAsCandidate(best.queryWords, best.candidateWords);
  const key = respelt === best.queryWords ? best.query.key : sortedKey(respelt.tokens);
  let spelling = personSpelling(best.queryWords, best.candidateWords);
  if (c.secondSurnameFrom !== undefined)
    spelling = Math.max(
      spelling,
      personSpelling(best.queryWords, wordsBefore(best.candidateWords, c.secondSurnameFrom)),
    );
  if (respelt !== best.queryWords)
    spelling = Math.max(
      spelling,
      wholeSpelling(respelt.written, best.candidateWords.written) * EQUIVALENT_NAME_SIMILARITY,
    );
  return {
    middleNameMatch: middle.match,
    middleNameConflict: middle.conflict,
    nameCoverQuery: c.coverQuery,
    nameCoverCandidate: c.coverCandidate,
    nameBoth: c.coverQuery * c.coverCandidate,
    nameMissedQuery: c.missedQuery,
    nameMissedCandidate: c.missedCandidate,
    nameEvidence: c.evidence,
    nameKeyEqual: key === sortedKey(c.tokens) || (whole !== c.tokens && key === sortedKey(whole)) ? 1 : 0,
    nameJaroWinkler: spelling,
    singleTokenName: best.query.tokens.length === 1 ? 1 : 0,
    nameOneEdit: oneWordOneEdit(best.query.tokens, c.tokens) ? 1 : 0,
    reading: best.reading,
  };
}

/**
 * Compares `query` with a person's profile. `places` (the person place vocabulary) weighs
 * place words by rarity: "London" says less than "Keynsham".
 */
export function personFeatures(
  query: AnalyzedQuery,
  profile: PersonProfile,
  vocabulary: Vocabulary,
  places?: Vocabulary,
): FeatureVector {
  const f = zeroVector(PERSON_TEMPLATE);
  if (query.names.length > 0) {
    f.hasName = 1;
    const memo = personMemo(query, vocabulary, places);
    const surnames = surnameWords(profile.l);
    // The comparison reads the surname's words only when it has two (few persons).
    // One name (most persons) is its own key, the profile's string: no string built, and its
    // hash is kept from the last query that looked it up (a profile is cached across queries).
    const names = profile.n.length === 1 ? profile.n[0] : profile.n.join('\u0001');
    const key = surnames ? `${names}\u0002${profile.l}` : names;
    let name = memo.names.get(key);
    if (name === undefined) {
      name = personNameFeatures(query, profile.n, vocabulary, surnames);
      memo.names.set(key, name);
    }
    if (name !== null) {
      f.middleNameMatch = name.middleNameMatch;
      f.middleNameConflict = name.middleNameConflict;
      f.nameCoverQuery = name.nameCoverQuery;
      f.nameCoverCandidate = name.nameCoverCandidate;
      f.nameBoth = name.nameBoth;
      f.nameMissedQuery = name.nameMissedQuery;
      f.nameMissedCandidate = name.nameMissedCandidate;
      f.nameEvidence = name.nameEvidence;
      f.nameKeyEqual = name.nameKeyEqual;
      f.nameJaroWinkler = name.nameJaroWinkler;
      f.singleTokenName = name.singleTokenName;
      f.nameOneEdit = name.nameOneEdit;
    }
    // The given name and surname of the reading the names compared best in ("Ada Amir Rossi"
    // of "Ada Amir Rossi Santos" for Ada Amir Rossi).
    const reading = name?.reading ?? 0;
    const q = query.names[reading];
    if (q.first !== undefined) {
      const partsKey = `${reading}\u0001${profile.f ?? '\u0002'}\u0001${profile.l ?? '\u0002'}`;
      let parts = memo.parts.get(partsKey);
      if (parts === undefined) {
        parts = givenAndSurname(q, q.first, profile);
        memo.parts.set(partsKey, parts);
      }
      f.firstNameSimilarity = parts.first;
      f.lastNameSimilarity = parts.last;
      if (parts.givenConflict) f.givenNameConflict = 1;
      if (parts.surnameConflict) f.surnameConflict = 1;
      // "A. Hoffmann": an initial that agrees with the given name, and the surname.
      if (q.first.length === 1 && profile.f?.startsWith(q.first) && parts.last >= 0.9)
        f.givenInitialMatch = 1;
    }
  }
  if (query.emails.length > 0) emailFeatures(query, profile, f);
  if (query.location) {
    f.hasLocation = 1;
    const memo = personMemo(query, vocabulary, places);
    const key = placesKey(profile);
    let place = memo.places.get(key);
    if (place === undefined) {
      place = personPlaceFeatures(query.location, profile, places);
      memo.places.set(key, place);
    }
    f.locationCover = place.locationCover;
    if (places) f.locationEvidence = place.locationEvidence;
    f.locationMissing = place.locationMissing;
    f.countryMatch = place.countryMatch;
    f.countryConflict = place.countryConflict;
    f.placeConflict = place.placeConflict;
    f.locationConflict = place.locationConflict;
    f.postcodeMatch = place.postcodeMatch;
    f.regionMatch = place.regionMatch;
    // An initial and the surname say little alone; in the person's place, few others share them.
    f.givenInitialPlace = f.givenInitialMatch * place.locationCover;
  }
  if (query.titleTokens.length > 0) titleFeatures(query.titleTokens, profile, f);
  if (query.employerTokens.length > 0) employerFeatures(query, profile, f);
  if (query.schoolTokens.length > 0) {
    f.hasSchool = 1;
    const schools = splitWords(profile.s);
    if (schools.length > 0) {
      // The school's own words: "School of Design" is in many schools' names.
      const own = query.schoolTokens.filter((t) => !GENERIC_SCHOOL_WORDS.has(t));
      f.schoolSimilarity = cover(own.length ? own : query.schoolTokens, schools);
      if (f.schoolSimilarity < 0.3) f.schoolConflict = 1;
    } else f.schoolMissing = 1;
  }
  phoneFeatures(query, profile.p, f);
  if (query.ip) {
    f.hasIp = 1;
    if (query.ipOrganizations?.length && profile.wi?.some((id) => query.ipOrganizations?.includes(id)))
      f.ipMatch = 1;
  }
  return expandPerson(f);
}

/**
 * The employer features of `f` (in place), for a query that names an employer. Another
 * employer than the person's is a namesake more often than a job change; not so an employer
 * no organization of the graph is named (`employerUnknown`): the person may have moved there
 * since the graph was written. That one is weighed on its own (`employerUnknownConflict`), not
 * as the conflict of a known employer (issue 22).
 */
function employerFeatures(query: AnalyzedQuery, profile: PersonProfile, f: FeatureVector): void {
  const employers = splitWords(profile.w);
  if (employers.length === 0) {
    f.hasEmployer = 1;
    f.employerMissing = 1;
    return;
  }
  const similarity = cover(query.employerTokens, employers);
  if (similarity < 0.3 && query.employerUnknown) {
    f.employerUnknownConflict = 1;
    return;
  }
  f.hasEmployer = 1;
  f.employerSimilarity = similarity;
  if (similarity < 0.3) f.employerConflict = 1;
}

/**
 * E-mail evidence. A personal address at a free-mail provider that the graph does not know is
 * weak evidence (its local part may spell the person's name), never a conflict: the graph
 * holds the addresses it was given, people have others. A role mailbox (`info@`, `sales@`)
 * says which organization, not which person: only its domain counts. An address at the domain
 * of the person's employer counts as working there.
 */
function emailFeatures(query: AnalyzedQuery, profile: PersonProfile, f: FeatureVector): void {
  f.hasEmail = 1;
  const emails = profile.e ?? [];
  let bestLocal = 0;
  let bestAddress = 0;
  let fewestEdits = 4;
  let bestDomain = 0;
  let typoOfAddress = false;
  let nameFit = 0;
  let personal = false;
  let sameProvider = false;
  let middles: string[] | undefined;
  // The domains' similarity counts only against a company address (`emailDomainConflict`).
  const corporate = query.emails.some((e) => !e.freeMail);
  for (const e of query.emails) {
    if (e.freeMail) f.emailFreeMail = 1;
    // A role-looking address (`hr@`, `ap@`) that the graph stores as this person's own is
    // theirs (often their initials): compared as a personal one.
    const role = e.role && !hasLocalPart(emails, e.local);
    if (role) f.emailRole = 1;
    else {
      personal = true;
      middles ??= middlesOf(profile);
      nameFit = Math.max(nameFit, localFitsName(e, profile.f, profile.l, middles));
    }
    for (const address of emails) {
      const at = address.lastIndexOf('@');
      const local = address.slice(0, at);
      const domain = address.slice(at + 1);
      if (domain === e.domain) {
        f.emailDomainMatch = 1;
        sameProvider ||= e.freeMail;
      }
      if (role) continue;
      if (address === e.address) f.emailExact = 1;
      bestAddress = Math.max(bestAddress, jaroWinkler(e.address, address));
      const edits = editDistance(e.address, address, 3);
      const localSimilarity = jaroWinkler(e.local, local);
      fewestEdits = Math.min(fewestEdits, edits);
      if (corporate) bestDomain = Math.max(bestDomain, jaroWinkler(e.domain, domain));
      bestLocal = Math.max(bestLocal, localSimilarity);
      // The same local part and the whole address a few typos away: the typos fell in the
      // domain or moved the `@` ("jude.elli@73smartin.info" for "jude.ellis73@martin.sinfo").
      typoOfAddress ||= edits <= 3 && localSimilarity >= 0.9;
    }
  }
  if (query.domainOrganizations?.length && profile.wi?.some((id) => query.domainOrganizations?.includes(id)))
    f.emailEmployerDomain = 1;
  f.emailLocalSimilarity = bestLocal;
  f.emailNameMatch = nameFit;
  // The query has an address and the candidate none: no evidence either way, but such
  // candidates are often namesakes from sources without e-mails.
  if (emails.length === 0) f.emailMissing = 1;
  // A personal address at a company's domain, where the graph knows no address of the person
  // and no employer at that domain: the address names a workplace the graph does not connect
  // with them (a free-mail address names none, a role mailbox no person).
  if (emails.length === 0 && !f.emailEmployerDomain && query.emails.some((e) => !e.freeMail && !e.role))
    f.emailUnknownCompany = 1;
  f.emailSimilarity = bestAddress;
  // Another personal address where the graph knows the person's: at the same provider or at a
  // company's domain (free-mail addresses the graph does not know are no conflict).
  const comparable =
    personal && emails.length > 0 && (sameProvider || !query.emails.every((e) => e.freeMail || e.role));
  if (comparable && !f.emailExact && bestAddress < 0.85) f.emailConflict = 1;
  // Typos leave an address a few edits away; another person's address is further. The exact
  // address (0 edits) gets the highest value: evidence must never drop as addresses get closer,
  // or a namesake one edit away (`jo.lee1@` for `jo.lee@`) would outscore the person.
  if (emails.length > 0 && fewestEdits <= 3) f.emailEditsNear = (4 - fewestEdits) / 3;
  if (
    corporate &&
    emails.length > 0 &&
    bestDomain < 0.85 &&
    !typoOfAddress &&
    !f.emailDomainMatch &&
    !f.emailEmployerDomain
  )
    f.emailDomainConflict = 1;
}

/** Whether one of `addresses` has the local part `local`. */
function hasLocalPart(addresses: readonly string[], local: string): boolean {
  for (let i = 0; i < addresses.length; i++) {
    const address = addresses[i];
    if (address.length > local.length && address.startsWith(local) && address[local.length] === '@')
      return true;
  }
  return false;
}

/** Middle names of a person's first name in the profile (between given name and surname). */
function middlesOf(profile: PersonProfile): string[] {
  const tokens = profile.n[0]?.split(' ') ?? [];
  return tokens.length >= 3 ? tokens.slice(1, -1) : [];
}

/**
 * Hinge transforms of similarity features (`x>0.9` = max(0, x − 0.9) / 0.1) and interactions
 * of a strong name match with conflicting other fields, so that the logistic model can weigh
 * "nearly equal" differently from "somewhat similar" and a namesake from the same person.
 */
const HINGES: readonly [string, number][] = [
  ['nameBoth', 0.8],
  ['nameBoth', 0.95],
  ['nameJaroWinkler', 0.9],
  ['nameJaroWinkler', 0.97],
  ['firstNameSimilarity', 0.9],
  ['lastNameSimilarity', 0.9],
  ['emailSimilarity', 0.9],
  ['emailSimilarity', 0.97],
  ['locationCover', 0.8],
  ['locationTokensMatch', 0.8],
  ['titleSimilarity', 0.8],
];

const CONFLICTS = [
  'locationConflict',
  'placeConflict',
  'emailConflict',
  'emailDomainConflict',
  'titleConflict',
  'countryConflict',
  'urlConflict',
  'givenNameConflict',
];

const HINGE_NAMES = HINGES.map(([name, knot]) => `${name}>${knot}`);
const CONFLICT_NAMES = CONFLICTS.map((conflict) => `strongName*${conflict}`);

/** Adds the hinge and interaction features to `f` (in place) and returns it. */
export function expandFeatures(f: FeatureVector): FeatureVector {
  for (let i = 0; i < HINGES.length; i++) {
    const [name, knot] = HINGES[i];
    const value = f[name];
    if (value !== undefined) f[HINGE_NAMES[i]] = value > knot ? (value - knot) / (1 - knot) : 0;
  }
  const strongName = f.nameBoth !== undefined && f.nameBoth >= 0.95 ? 1 : 0;
  for (let i = 0; i < CONFLICTS.length; i++) {
    const value = f[CONFLICTS[i]];
    if (value !== undefined) f[CONFLICT_NAMES[i]] = strongName * value;
  }
  return f;
}

/**
 * Feature vectors as the feature functions start them: every base feature and every expansion
 * at 0, in the order the expansions add them (so explanations list features as before).
 *
 * Built by adding ~60 properties one at a time, as the feature functions used to build every
 * vector, an object falls back to dictionary mode (V8 keeps few properties added by computed
 * name "fast"): each vector was a hash table of ~5 KB, the largest share of the matcher's
 * garbage, and every read of it by the model a hash lookup. The template goes through
 * `JSON.parse`, which gives a fast object of fixed shape, and `zeroVector` clones it: one
 * allocation of ~500 bytes with the properties in place.
 */
function featureTemplate(names: readonly string[]): FeatureVector {
  const f: FeatureVector = {};
  for (const name of names) f[name] = 0;
  const template = JSON.parse(JSON.stringify(expandFeatures(f))) as FeatureVector;
  // The template's fields start as constant small integers (0). The first fraction written to
  // a field made it a "double" field, and each clone then allocated one box per such field;
  // each first write of another kind of value changed the shape's field types, and the code
  // that relied on them was deoptimised, late in a process's life for rare features. A value
  // of another kind (null) written once through a clone, which shares the template's shape,
  // makes every field "any value" and mutable from the start: clones copy the fields as they
  // are (0 needs no box), and no later write changes the shape (issue 30).
  const clone: Record<string, unknown> = { ...template };
  for (const name in clone) clone[name] = null;
  return template;
}

const ORGANIZATION_TEMPLATE = featureTemplate(ORGANIZATION_FEATURES);
const PERSON_TEMPLATE = featureTemplate(PERSON_FEATURES);

/**
 * `expandFeatures` made for the vectors of one base feature list: the same values computed the
 * same way, each feature read and written by its name written in the code (a read per property
 * shape, where `expandFeatures` reads a different name at every step: a megamorphic lookup
 * each, issue 30). Only names from this module's lists go into the code.
 */
function expander(base: readonly string[]): (f: FeatureVector) => FeatureVector {
  const has = new Set(base);
  const lines: string[] = [];
  for (let i = 0; i < HINGES.length; i++) {
    const [name, knot] = HINGES[i];
    if (!has.has(name)) continue;
    const k = JSON.stringify(knot);
    lines.push(
      `v = f[${JSON.stringify(name)}]; f[${JSON.stringify(HINGE_NAMES[i])}] = v > ${k} ? (v - ${k}) / (1 - ${k}) : 0;`,
    );
  }
  lines.push('const strongName = f.nameBoth !== undefined && f.nameBoth >= 0.95 ? 1 : 0;');
  for (let i = 0; i < CONFLICTS.length; i++) {
    if (!has.has(CONFLICTS[i])) continue;
    lines.push(`f[${JSON.stringify(CONFLICT_NAMES[i])}] = strongName * f[${JSON.stringify(CONFLICTS[i])}];`);
  }
  return new Function(`return function expand(f) { let v;\n${lines.join('\n')}\nreturn f; };`)() as (
    f: FeatureVector,
  ) => FeatureVector;
}

const expandOrganization = expander(ORGANIZATION_FEATURES);
const expandPerson = expander(PERSON_FEATURES);

function zeroVector(template: FeatureVector): FeatureVector {
  return { ...template };
}

/** Every feature name the model of `type` reads, expansions included. */
export function modelFeatureNames(base: readonly string[]): string[] {
  const out = [...base];
  for (const [name, knot] of HINGES) if (base.includes(name)) out.push(`${name}>${knot}`);
  for (const conflict of CONFLICTS) if (base.includes(conflict)) out.push(`strongName*${conflict}`);
  return out;
}

/**
 * Features: how a candidate's profile compares with the query, as numbers the model weighs.
 * Every feature is 0 when its evidence is absent, so that a missing field neither helps nor
 * hurts; presence indicators let the model learn what a field's absence means.
 */
import { canonicalGivenName, isOrganizationStopword } from '../kg/index.ts';
import { ipInRanges } from './ip.ts';
import { type OrganizationProfile, type PersonProfile, placeTokens } from './profile.ts';
import type { AnalyzedQuery, QueryName } from './query-analysis.ts';
import { bestTokenMatches, editDistance, jaroWinkler, tokenSimilarity } from './similarity.ts';
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
  'acronymMatch',
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
  'locationTokensMatch',
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
  'hasEmail',
  'emailExact',
  'emailLocalSimilarity',
  'emailSimilarity',
  'emailDomainMatch',
  'emailConflict',
  'emailEditsNear',
  'emailDomainConflict',
  'emailMissing',
  'hasLocation',
  'locationCover',
  'locationEvidence',
  'locationConflict',
  'locationMissing',
  'postcodeMatch',
  'regionMatch',
  'hasTitle',
  'titleSimilarity',
  'titleConflict',
  'titleMissing',
  'hasEmployer',
  'employerSimilarity',
  'employerConflict',
  'employerMissing',
  'hasPhone',
  'phoneMatch',
  'phoneConflict',
  'ipMatch',
] as const);

export type FeatureVector = Record<string, number>;

interface NameComparison {
  /** Tokens left without a match (similarity < 0.6) on each side. */
  unmatchedQuery: number;
  unmatchedCandidate: number;
  /** IDF mass of the matched query tokens, in units of the largest IDF (how rare what matched is). */
  evidence: number;
  coverQuery: number;
  coverCandidate: number;
  missedQuery: number;
  missedCandidate: number;
  tokens: readonly string[];
}

/**
 * Compares query tokens with candidate tokens, IDF-weighted in both directions. `missed*` is
 * the largest IDF share (0–1) of a token left unmatched: a rare word that the other side lacks
 * is strong evidence of a different entity.
 */
function compareTokens(
  query: readonly string[],
  candidate: readonly string[],
  vocabulary: Vocabulary,
): NameComparison {
  const matchQ = bestTokenMatches(query, candidate);
  const matchC = bestTokenMatches(candidate, query);
  let wq = 0;
  let sq = 0;
  let missedQuery = 0;
  for (let i = 0; i < query.length; i++) {
    const w = vocabulary.idf(query[i]);
    wq += w;
    sq += w * matchQ[i];
    if (matchQ[i] < 0.6) missedQuery = Math.max(missedQuery, w / vocabulary.maxIdf);
  }
  let wc = 0;
  let sc = 0;
  let missedCandidate = 0;
  for (let i = 0; i < candidate.length; i++) {
    const w = vocabulary.idf(candidate[i]);
    wc += w;
    sc += w * matchC[i];
    if (matchC[i] < 0.6) missedCandidate = Math.max(missedCandidate, w / vocabulary.maxIdf);
  }
  return {
    unmatchedQuery: matchQ.filter((m) => m < 0.6).length,
    unmatchedCandidate: matchC.filter((m) => m < 0.6).length,
    evidence: sq / vocabulary.maxIdf,
    coverQuery: wq > 0 ? sq / wq : 0,
    coverCandidate: wc > 0 ? sc / wc : 0,
    missedQuery,
    missedCandidate,
    tokens: candidate,
  };
}

function bestName(
  names: readonly QueryName[],
  candidateNames: readonly string[],
  tokenize: (name: string) => string[],
  vocabulary: Vocabulary,
): { comparison: NameComparison; query: QueryName } | undefined {
  let best: { comparison: NameComparison; query: QueryName } | undefined;
  let bestScore = -1;
  for (const query of names) {
    for (const name of candidateNames) {
      const comparison = compareTokens(query.tokens, tokenize(name), vocabulary);
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

function sortedKey(tokens: readonly string[]): string {
  return [...new Set(tokens)].sort().join(' ');
}

/** Best fuzzy match (0–1) of each query token against any of `targets`' tokens, averaged. */
function cover(query: readonly string[], targets: readonly string[]): number {
  if (query.length === 0) return 0;
  const matches = bestTokenMatches(query, targets);
  return matches.reduce((sum, m) => sum + m, 0) / query.length;
}

function locationFeatures(query: AnalyzedQuery, profile: OrganizationProfile | PersonProfile) {
  const location = query.location;
  const out = { countryMatch: 0, countryConflict: 0, regionMatch: 0, tokensMatch: 0, cover: 0, postcode: 0 };
  if (!location) return out;
  const regions = profile.r ?? [];
  const places = [...regions, ...(profile.ci ?? [])].flatMap((p) => p.split(' '));
  if ('ad' in profile && profile.ad) places.push(...profile.ad);
  const words = location.tokens.filter((t) => !/^\d+$/.test(t));
  if (location.country && profile.c) {
    // "Georgia" may be a country or a US state: a region of that name is no conflict.
    if (location.country === profile.c) out.countryMatch = 1;
    else if (!regions.some((r) => location.tokens.join(' ') === r)) out.countryConflict = 1;
  }
  if (location.regions.some((r) => regions.includes(r))) out.regionMatch = 1;
  if (words.length > 0) {
    out.cover = cover(words, places);
    const regionWords = regions.flatMap((r) => r.split(' '));
    out.tokensMatch = regionWords.length > 0 || (profile.ci?.length ?? 0) > 0 ? out.cover : 0;
  }
  if (location.postcodes.length && 'ad' in profile && profile.ad?.some((t) => location.postcodes.includes(t)))
    out.postcode = 1;
  return out;
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
      f.nameKeyEqual = best.query.key !== '' && best.query.key === sortedKey(c.tokens) ? 1 : 0;
      f.nameJaroWinkler = jaroWinkler(best.query.tokens.join(' '), c.tokens.join(' '));
    }
    const acronyms = profile.a ?? [];
    if (query.names.some((n) => n.acronym !== undefined && acronyms.includes(n.acronym))) f.acronymMatch = 1;
  }
  if (query.urls.length > 0) {
    f.hasUrl = 1;
    const hosts = profile.h ?? [];
    const domains = profile.d ?? [];
    if (query.urls.some((u) => u.hosts.some((h) => hosts.includes(h)))) f.urlHostMatch = 1;
    // The query's own host, not a parent of it: a subdomain owned by another entry wins.
    if (query.urls.some((u) => hosts.includes(u.hosts[0]))) f.urlExactHost = 1;
    if (query.urls.some((u) => domains.includes(u.domain))) f.urlDomainMatch = 1;
    if (hosts.length > 0 && !f.urlHostMatch && !f.urlDomainMatch) f.urlConflict = 1;
  }
  const domains = profile.d ?? [];
  if (query.emails.some((e) => !e.freeMail && domains.includes(e.registrable))) f.emailDomainMatch = 1;
  phoneFeatures(query, profile.p, f);
  if (query.location) {
    f.hasLocation = 1;
    const loc = locationFeatures(query, profile);
    f.countryMatch = loc.countryMatch;
    f.countryConflict = loc.countryConflict;
    f.regionMatch = loc.regionMatch;
    f.locationTokensMatch = loc.tokensMatch;
  }
  if (query.ip && profile.ip && ipInRanges(query.ip, profile.ip)) f.ipMatch = 1;
  return expandFeatures(f);
}

/** Phone evidence: the query gave numbers; one is the candidate's, or the candidate has others. */
function phoneFeatures(query: AnalyzedQuery, phones: readonly string[] | undefined, f: FeatureVector): void {
  if (query.phones.length === 0) return;
  f.hasPhone = 1;
  if (phones?.some((p) => query.phones.includes(p))) f.phoneMatch = 1;
  else if (phones && phones.length > 0) f.phoneConflict = 1;
}

function givenNameSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const ca = canonicalGivenName(a);
  const cb = canonicalGivenName(b);
  if (ca === cb) return 0.95;
  if ((a.length === 1 && b.startsWith(a)) || (b.length === 1 && a.startsWith(b))) return 0.6;
  return Math.max(tokenSimilarity(a, b), tokenSimilarity(ca, cb) * 0.95);
}

function personTokens(name: string): string[] {
  return name.split(' ').map(canonicalGivenName);
}

const canonicalByQuery = new WeakMap<AnalyzedQuery, QueryName[]>();

/** The query's names with given names in canonical form; once per query, not per candidate. */
function canonicalNames(query: AnalyzedQuery): QueryName[] {
  let names = canonicalByQuery.get(query);
  if (!names) {
    names = query.names.map((n) => ({ ...n, tokens: n.tokens.map(canonicalGivenName) }));
    canonicalByQuery.set(query, names);
  }
  return names;
}

/** IDF mass (in units of the largest IDF) of the query's place words found among the candidate's. */
function placeEvidence(query: AnalyzedQuery, profile: PersonProfile, places: Vocabulary): number {
  const words = placeTokens(query.location?.tokens ?? []);
  if (words.length === 0) return 0;
  const own = [...(profile.ci ?? []).flatMap((c) => c.split(' ')), ...(profile.ad ?? [])];
  const matches = bestTokenMatches(words, own);
  let sum = 0;
  for (let i = 0; i < words.length; i++) sum += matches[i] * places.idf(words[i]);
  return sum / places.maxIdf;
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
    const best = bestName(canonicalNames(query), profile.n, personTokens, vocabulary);
    if (best) {
      const c = best.comparison;
      f.nameCoverQuery = c.coverQuery;
      f.nameCoverCandidate = c.coverCandidate;
      f.nameBoth = c.coverQuery * c.coverCandidate;
      f.nameMissedQuery = c.missedQuery;
      f.nameMissedCandidate = c.missedCandidate;
      f.nameEvidence = c.evidence;
      f.nameKeyEqual = best.query.key === sortedKey(c.tokens) ? 1 : 0;
      f.nameJaroWinkler = jaroWinkler(best.query.tokens.join(' '), c.tokens.join(' '));
      f.singleTokenName = best.query.tokens.length === 1 ? 1 : 0;
    }
    // Given name and surname, also crossed (surname written first).
    const q = query.names[0];
    const first = profile.f;
    const last = profile.l;
    if (q.first !== undefined) {
      const straight =
        (first ? givenNameSimilarity(q.first, first) : 0) +
        (last && q.last ? tokenSimilarity(q.last, last) : 0);
      const crossed =
        (last ? tokenSimilarity(q.first, last) : 0) +
        (first && q.last ? givenNameSimilarity(q.last, first) : 0);
      if (straight >= crossed) {
        f.firstNameSimilarity = first ? givenNameSimilarity(q.first, first) : 0;
        f.lastNameSimilarity = last && q.last ? tokenSimilarity(q.last, last) : 0;
      } else {
        f.firstNameSimilarity = first && q.last ? givenNameSimilarity(q.last, first) : 0;
        f.lastNameSimilarity = last ? tokenSimilarity(q.first, last) : 0;
      }
      // Both sides have both parts, and one part differs beyond a typo: likely a namesake.
      if (q.last && first && last) {
        if (f.firstNameSimilarity < 0.5) f.givenNameConflict = 1;
        if (f.lastNameSimilarity < 0.5) f.surnameConflict = 1;
      }
    }
  }
  if (query.emails.length > 0) {
    f.hasEmail = 1;
    const emails = profile.e ?? [];
    let bestLocal = 0;
    let bestAddress = 0;
    let fewestEdits = 4;
    let bestDomain = 0;
    for (const e of query.emails) {
      for (const address of emails) {
        if (address === e.address) f.emailExact = 1;
        bestAddress = Math.max(bestAddress, jaroWinkler(e.address, address));
        fewestEdits = Math.min(fewestEdits, editDistance(e.address, address, 3));
        bestDomain = Math.max(bestDomain, jaroWinkler(e.domain, address.slice(address.lastIndexOf('@') + 1)));
        const at = address.lastIndexOf('@');
        const local = address.slice(0, at);
        const domain = address.slice(at + 1);
        bestLocal = Math.max(bestLocal, jaroWinkler(e.local, local));
        if (domain === e.domain) f.emailDomainMatch = 1;
      }
    }
    f.emailLocalSimilarity = bestLocal;
    // The query has an address and the candidate none: no evidence either way, but such
    // candidates are often namesakes from sources without e-mails.
    if (emails.length === 0) f.emailMissing = 1;
    f.emailSimilarity = bestAddress;
    if (emails.length > 0 && !f.emailExact && bestAddress < 0.85) f.emailConflict = 1;
    // Typos leave an address a few edits away; another person's address is further. The exact
    // address (0 edits) gets the highest value: evidence must never drop as addresses get closer,
    // or a namesake one edit away (`jo.lee1@` for `jo.lee@`) would outscore the person.
    if (emails.length > 0 && fewestEdits <= 3) f.emailEditsNear = (4 - fewestEdits) / 3;
    if (emails.length > 0 && bestDomain < 0.85) f.emailDomainConflict = 1;
  }
  if (query.location) {
    f.hasLocation = 1;
    const loc = locationFeatures(query, profile);
    f.locationCover = loc.cover;
    if (places) f.locationEvidence = placeEvidence(query, profile, places);
    const hasPlaces = (profile.ci?.length ?? 0) + (profile.ad?.length ?? 0) + (profile.r?.length ?? 0) > 0;
    if (!hasPlaces) f.locationMissing = 1;
    if (hasPlaces && loc.cover < 0.3 && !loc.regionMatch && !loc.postcode) f.locationConflict = 1;
    f.postcodeMatch = loc.postcode;
    f.regionMatch = loc.regionMatch;
  }
  if (query.titleTokens.length > 0) {
    f.hasTitle = 1;
    const titles = (profile.t ?? []).flatMap((t) => t.split(' '));
    f.titleSimilarity = cover(query.titleTokens, titles);
    if (titles.length > 0 && f.titleSimilarity < 0.3) f.titleConflict = 1;
    if (titles.length === 0) f.titleMissing = 1;
  }
  if (query.employerTokens.length > 0) {
    f.hasEmployer = 1;
    const employers = (profile.w ?? []).flatMap((w) => w.split(' '));
    if (employers.length > 0) {
      f.employerSimilarity = cover(query.employerTokens, employers);
      // Works elsewhere (as far as the graph knows): a namesake more often than a job change.
      if (f.employerSimilarity < 0.3) f.employerConflict = 1;
    } else f.employerMissing = 1;
  }
  phoneFeatures(query, profile.p, f);
  if (query.ipOrganizations?.length && profile.wi?.some((id) => query.ipOrganizations?.includes(id)))
    f.ipMatch = 1;
  return expandFeatures(f);
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
  return JSON.parse(JSON.stringify(expandFeatures(f))) as FeatureVector;
}

const ORGANIZATION_TEMPLATE = featureTemplate(ORGANIZATION_FEATURES);
const PERSON_TEMPLATE = featureTemplate(PERSON_FEATURES);

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

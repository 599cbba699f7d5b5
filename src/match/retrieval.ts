/**
 * Candidate retrieval: exact keys (host, domain, e-mail, phone, IP bucket, whole-name key,
 * acronym) and tokens (names; for persons also places and e-mail words) weighted by IDF,
 * rarest first, skipping the postings of tokens too frequent to discriminate. Typo tolerance
 * on both sides: every query token is also looked up through its vocabulary neighbours (one
 * edit; two for long unknown tokens). The candidate set is bounded whatever the graph size.
 */
import { canonicalGivenName } from '../kg/index.ts';
import type { CandidateSource } from './candidate-source.ts';
import { ipKeysForAddress } from './ip.ts';
import type { Vocabularies } from './vocabularies.ts';
import { emailTokens, KEY, personNameKey, personNamePlaceKey, placeTokens } from './profile.ts';
import type { AnalyzedQuery, QueryName } from './query-analysis.ts';
import type { Vocabulary } from './vocabulary.ts';

/** Tuning of retrieval (sizes, not weights of the model). */
export interface RetrievalLimits {
  /** A token's postings are read only when at most this many entities carry it. */
  readonly maxPostings: number;
  /** Total postings read for tokens per query. */
  readonly postingBudget: number;
  /** Candidates kept (best `esscore` first) for scoring. */
  readonly maxCandidates: number;
  /**
   * Kept beyond `maxCandidates`: candidates a discriminating lookup (a workplace, past
   * employer, school or e-mail domain the query names) and another of its lookups found, best
   * `esscore` first: among a crowd of namesakes, the one working where the query says.
   */
  readonly maxDiscriminated: number;
}

export const DEFAULT_LIMITS: RetrievalLimits = Object.freeze({
  maxPostings: 1000,
  postingBudget: 3000,
  maxCandidates: 30,
  maxDiscriminated: 10,
});

/** A retrieved candidate: its ref and its raw retrieval score. */
export interface RetrievedCandidate {
  readonly ref: number;
  readonly esscore: number;
}

/** One postings read of a query's retrieval. */
export interface Lookup {
  readonly key: string;
  readonly weight: number;
  readonly limit: number;
  /** One query token may be looked up through several keys (neighbours); it counts once. */
  readonly group: string;
  /** Whether the key is where the person works, worked, studied or has mail (`maxDiscriminated`). */
  readonly discriminating?: boolean;
  /**
   * The key has no postings at the vocabularies' graph version (`nameKeyAbsent`): it is not read,
   * and counts as read empty, unless the source's vocabularies are partial
   * (`CandidateSource.partialTermCounts`).
   */
  readonly absent?: boolean;
}

interface TokenLookup {
  readonly key: string;
  readonly df: number;
  readonly weight: number;
  readonly group: string;
}

// Exact-key weights in esscore units (an IDF-weighted token is worth ln(N/df), ≈ 3–10).
const EXACT_WEIGHT = {
  host: 14,
  domain: 8,
  email: 14,
  emailLocal: 5,
  emailDomain: 3,
  phone: 12,
  ip: 4,
  name: 6,
  acronym: 5,
  // Above `name`: a namesake in the query's place without the query's middle names is kept
  // before a crowd of exact namesakes elsewhere (they have `name` and no place).
  namePlace: 7,
  // Where the organization a query names is: below `name`, so that the namesakes there do not
  // displace the crowd of exact namesakes (the same lowest refs for every query of the name,
  // mostly cached: reading the place's crowd instead costs profile reads), above what `name`
  // is over a workplace (`emailDomain`): the namesake working there (`pw:`) is kept first.
  nameOrganizationPlace: 4,
};
const EXACT_LIMIT = 100;
/**
 * Postings of a whole-name key read; `NAME_CROWD_LIMIT` for a query with a workplace lookup (an
 * e-mail domain's too cost +4% CPU per query on 1M + 1M for 9 of 2,779 Person queries right).
 */
const NAME_LIMIT = 200;
const NAME_CROWD_LIMIT = 2000;
/**
 * Prefixes of the keys of a Person query's workplace lookups (employer, past employer, school):
 * with one, its whole-name key is read to `NAME_CROWD_LIMIT` postings.
 */
const WORKPLACE_KEYS = [KEY.personEmployer, KEY.personPastEmployer, KEY.personSchool];
/** Prefixes of the keys of a Person query's discriminating lookups (`maxDiscriminated`). */
const DISCRIMINATING_KEYS = [...WORKPLACE_KEYS, KEY.emailDomain];
/** Weight of a token found through a vocabulary neighbour, relative to an exact token. */
const NEIGHBOUR_DISCOUNT = 0.75;
/**
 * Neighbours looked up for a known person-name token. The graph's own typos ("Moly Young",
 * "Thomas rGeen") are rare tokens, listed after other real names ("holly", "jolly", "polly"
 * for "molly"): with 3, a record with a typo of a common name was often not retrieved.
 */
const KNOWN_NEIGHBOURS = 6;

function tokenLookups(
  tokens: readonly string[],
  vocabulary: Vocabulary,
  prefix: string,
  scale: number,
  group: string,
  into: TokenLookup[],
  maxPostings: number,
  expandKnown = false,
): void {
  for (const token of tokens) {
    const df = vocabulary.count(token);
    if (df > 0)
      into.push({ key: prefix + token, df, weight: scale * vocabulary.idf(token), group: group + token });
    // A person's nickname is also looked up as the formal name ("fred": every Frederick, who
    // is indexed under his formal name and as written), in the token's group, at its weight.
    if (expandKnown) {
      const formal = canonicalGivenName(token);
      const formalDf = formal === token ? 0 : vocabulary.count(formal);
      if (formalDf > 0)
        into.push({
          key: prefix + formal,
          df: formalDf,
          weight: scale * vocabulary.idf(formal),
          group: group + token,
        });
    }
    // A known token is expanded only for person names, whose graph records carry typos of
    // their own ("Allenn" for "Allen"); a frequent token is never (its variants would flood
    // the candidates). Unknown tokens are always looked up through their neighbours.
    if (df > 0 && (!expandKnown || df > maxPostings)) continue;
    for (const neighbour of vocabulary.neighbours(token, df > 0 ? KNOWN_NEIGHBOURS : 4)) {
      into.push({
        key: prefix + neighbour,
        df: vocabulary.count(neighbour),
        weight: scale * NEIGHBOUR_DISCOUNT * vocabulary.idf(neighbour),
        group: group + token,
      });
    }
  }
}

/** Readings of a query's place looked up with its name (a city name can be a dozen places). */
const MAX_QUERY_PLACES = 8;

/**
 * The places a Person query's location names, each at the most specific level a reading of it
 * gives (a city; else a region; else a country), as `personNamePlaceKey` spells them: "Melbourne"
 * is two cities, "Texas" a region, "Germany" a country. A place the hierarchy does not know (a
 * typo) names none.
 */
export function queryPlaces(query: AnalyzedQuery): (readonly ['c' | 'r' | 'k', string])[] {
  const location = query.location;
  if (!location) return [];
  const out = new Map<string, readonly ['c' | 'r' | 'k', string]>();
  const add = (level: 'c' | 'r' | 'k', place: string) => out.set(`${level}:${place}`, [level, place]);
  for (const place of location.places) {
    if (place.city) add('c', place.city);
    else if (place.region) add('r', place.region);
    else add('k', place.country);
  }
  for (const region of location.regions)
    if (!location.places.some((p) => p.region === region)) add('r', region);
  if (out.size === 0 && location.country) add('k', location.country);
  return [...out.values()].slice(0, MAX_QUERY_PLACES);
}

/**
 * The places a Person query's name is looked up with and their weights: those its location
 * names (`namePlace`), then those of the organizations it points at (where its employer or its
 * e-mail's organization is: `nameOrganizationPlace`), each once.
 */
function namePlaces(query: AnalyzedQuery): (readonly ['c' | 'r' | 'k', string, number])[] {
  const out: (readonly ['c' | 'r' | 'k', string, number])[] = queryPlaces(query).map(([level, place]) => [
    level,
    place,
    EXACT_WEIGHT.namePlace,
  ]);
  if (!query.organizationPlaces?.length) return out;
  const seen = new Set(out.map(([level, place]) => `${level}:${place}`));
  for (const [level, place] of query.organizationPlaces)
    if (!seen.has(`${level}:${place}`)) {
      seen.add(`${level}:${place}`);
      out.push([level, place, EXACT_WEIGHT.nameOrganizationPlace]);
    }
  return out;
}

/**
 * The whole-name keys (as `pn:` spells them) a Person query's name is looked up by with its
 * place: the name's own key, and without its middle names or initials ("elena i. patel":
 * `elena patel`, as an entity with middle names is also indexed).
 */
function namePlaceForms(name: QueryName): string[] {
  if (!name.middles?.length || !name.first || !name.last) return [name.key];
  const key = personNameKey([canonicalGivenName(name.first), canonicalGivenName(name.last)]);
  return key === name.key ? [name.key] : [name.key, key];
}

/**
 * Whether the whole-name key `nameKey` (as `pn:`, `np:` before its place, or `on:` spell it: name
 * words, sorted, space-separated) has no postings because one of its words has none in `names`
 * (the `pt:` or `ot:` vocabulary of the same graph version). `indexEntity` stores a person's
 * `pt:` key for each formal word of its `pn:` and `np:` keys, and an organization's `ot:` key for
 * each word of its `on:` key (profile.ts), so an entity carrying the key carries each word; a
 * test checks this of the demo graph's entities. On a 1M + 1M graph 40% of the keys its
 * queries read were empty, and half of those were such names (a typo in a name): skipping them,
 * a query reads 1.38 statements and 2.39 keys instead of 1.78 and 3.01 (bench/NOTES.md).
 */
export function nameKeyAbsent(nameKey: string, names: Vocabulary): boolean {
  let start = 0;
  for (;;) {
    const end = nameKey.indexOf(' ', start);
    if (names.count(end < 0 ? nameKey.slice(start) : nameKey.slice(start, end)) === 0) return true;
    if (end < 0) return false;
    start = end + 1;
  }
}

/**
 * The lookups of a Person query's name with its places (`namePlaces`): the namesakes in the
 * query's place, or where the organizations it names are; one group per name, whichever reading
 * of the place and whichever form of the name.
 */
function namePlaceLookups(
  name: QueryName,
  places: readonly (readonly ['c' | 'r' | 'k', string, number])[],
  names: Vocabulary,
  into: Lookup[],
): void {
  const group = `${KEY.personNamePlace}${name.key}`;
  for (const key of namePlaceForms(name)) {
    const absent = nameKeyAbsent(key, names);
    for (const [level, place, weight] of places) {
      const lookup: Lookup = {
        key: personNamePlaceKey(key, level, place),
        weight,
        limit: EXACT_LIMIT,
        group,
      };
      into.push(absent ? { ...lookup, absent } : lookup);
    }
  }
}

/** Adds an exact key's lookup (its own group unless `group` is given). */
type AddExactLookup = (key: string, weight: number, limit?: number, group?: string, absent?: boolean) => void;

/**
 * A Person query's lookups of the people of the organizations it points at (resolved by the
 * matcher: `withQueryOrganizations`) and of the school it names.
 */
function organizationLookups(query: AnalyzedQuery, exact: AddExactLookup): void {
  for (const id of query.ipOrganizations ?? []) exact(KEY.personEmployer + id, EXACT_WEIGHT.ip);
  // The people working at the organization whose domain the e-mail is at.
  for (const id of query.domainOrganizations ?? []) exact(KEY.personEmployer + id, EXACT_WEIGHT.emailDomain);
  // The people working at the organization named as the employer: among many namesakes, the
  // one working there is retrieved (weighted as an e-mail domain: a place of work, not a name).
  // Those who worked there before too (`pe:`), in the same group: whoever has both counts once.
  // Below the whole name's weight, so that the workplace's other people do not displace the
  // crowd of exact namesakes; added to it, the namesake who works or worked there comes first.
  for (const id of query.employerOrganizations ?? []) {
    const group = KEY.personEmployer + id;
    exact(group, EXACT_WEIGHT.emailDomain);
    exact(KEY.personPastEmployer + id, EXACT_WEIGHT.emailDomain, EXACT_LIMIT, group);
  }
  // The people who studied at the school the query names, weighted as a workplace.
  if (query.schoolKey) exact(KEY.personSchool + query.schoolKey, EXACT_WEIGHT.emailDomain);
}

/** Finds the candidates for `query` (every type; the matcher filters by type). */
export function retrieveCandidates(
  query: AnalyzedQuery,
  source: Pick<CandidateSource, 'refsForKeys'>,
  vocabularies: Vocabularies,
  limits: RetrievalLimits = DEFAULT_LIMITS,
): RetrievedCandidate[] {
  return retrieveByLookups(retrievalLookups(query, vocabularies, limits), source, limits);
}

/**
 * How far a Person query reads the postings of its whole names. With a workplace lookup, a
 * crowd of exact namesakes is read further: the namesake working (or having worked, or
 * studied) where the query says adds the two weights and comes first, though a crowd of lower
 * refs would fill the name's usual postings. A personal address at a company domain that names
 * no organization (a typo: "rzalofoli.example" for "ralofoli.example") reads it as far: its
 * domain word's neighbour (`et:`) names the few people there, who would otherwise sit below a
 * crowd of namesakes with the same local part.
 */
function personNameLimit(query: AnalyzedQuery, lookups: readonly Lookup[]): number {
  const unknownDomain =
    query.domainOrganizations?.length === 0 && query.emails.some((email) => !email.freeMail && !email.role);
  return unknownDomain || lookups.some(isWorkplaceLookup) ? NAME_CROWD_LIMIT : NAME_LIMIT;
}

/** A discriminating lookup of where the person works, worked or studied (not of a mail domain). */
function isWorkplaceLookup(lookup: Lookup): boolean {
  return lookup.discriminating === true && !lookup.key.startsWith(KEY.emailDomain);
}

/**
 * The postings reads `query`'s retrieval makes (no read yet): which keys, each with its limit.
 * A bulk batch reads the keys of all its queries at once (match/batch-search.ts), then retrieves
 * each query with `retrieveByLookups` from what was read.
 */
export function retrievalLookups(
  query: AnalyzedQuery,
  vocabularies: Vocabularies,
  limits: RetrievalLimits = DEFAULT_LIMITS,
): readonly Lookup[] {
  const isPerson = query.type === 'Person';
  const lookups: Lookup[] = [];
  const exact: AddExactLookup = (key, weight, limit = EXACT_LIMIT, group = key, absent = false) => {
    const discriminating = isPerson && DISCRIMINATING_KEYS.some((prefix) => key.startsWith(prefix));
    const lookup: Lookup = discriminating
      ? { key, weight, limit, group, discriminating }
      : { key, weight, limit, group };
    lookups.push(absent ? { ...lookup, absent } : lookup);
  };
  for (const url of query.urls) {
    if (url.profile !== undefined) {
      exact(KEY.profileUri + url.profile, EXACT_WEIGHT.host);
      continue;
    }
    for (const host of url.hosts) exact(KEY.host + host, EXACT_WEIGHT.host);
    exact(KEY.domain + url.domain, EXACT_WEIGHT.domain);
  }
  const tokens: TokenLookup[] = [];
  const emailWords: string[] = [];
  for (const email of query.emails) {
    exact(KEY.email + email.address, EXACT_WEIGHT.email);
    if (isPerson && email.local.length >= 3) exact(KEY.emailLocal + email.local, EXACT_WEIGHT.emailLocal);
    if (!email.freeMail) {
      exact(KEY.emailDomain + email.registrable, EXACT_WEIGHT.emailDomain);
      if (!isPerson) exact(KEY.domain + email.registrable, EXACT_WEIGHT.domain);
    }
    if (isPerson) emailWords.push(...emailTokens(email));
  }
  for (const phone of query.phones) exact(KEY.phone + phone, EXACT_WEIGHT.phone);
  if (query.ip && !isPerson)
    for (const key of ipKeysForAddress(query.ip)) exact(KEY.ip + key, EXACT_WEIGHT.ip);
  if (isPerson) organizationLookups(query, exact);

  const namePrefix = isPerson ? KEY.personToken : KEY.orgToken;
  const nameLimit = isPerson ? personNameLimit(query, lookups) : NAME_LIMIT;
  const places = isPerson ? namePlaces(query) : [];
  for (const name of query.names) {
    const prefix = isPerson ? KEY.personName : KEY.orgName;
    if (name.key)
      exact(
        prefix + name.key,
        EXACT_WEIGHT.name,
        nameLimit,
        undefined,
        nameKeyAbsent(name.key, vocabularies.names),
      );
    if (name.key && places.length) namePlaceLookups(name, places, vocabularies.names, lookups);
    if (name.acronym) exact(KEY.acronym + name.acronym, EXACT_WEIGHT.acronym, 500);
    tokenLookups(name.tokens, vocabularies.names, namePrefix, 1, 'n:', tokens, limits.maxPostings, isPerson);
  }
  const max = limits.maxPostings;
  if (emailWords.length)
    tokenLookups(emailWords, vocabularies.emails, KEY.emailToken, 0.6, 'e:', tokens, max);
  if (isPerson && query.location) {
    tokenLookups(
      placeTokens(query.location.tokens),
      vocabularies.places,
      KEY.personPlace,
      0.6,
      'p:',
      tokens,
      limits.maxPostings,
    );
  }
  tokens.sort((a, b) => a.df - b.df);
  let budget = limits.postingBudget;
  const seen = new Set<string>();
  for (const t of tokens) {
    if (seen.has(t.key)) continue;
    seen.add(t.key);
    if (t.df > limits.maxPostings || t.df > budget) continue;
    budget -= t.df;
    lookups.push({ key: t.key, weight: t.weight, limit: limits.maxPostings, group: t.group });
  }
  // Every token too frequent (e.g. "National University") and no exact key: the rarest, capped.
  if (lookups.length === 0 && tokens.length > 0) {
    const rarest = tokens[0];
    lookups.push({ key: rarest.key, weight: rarest.weight, limit: limits.maxPostings, group: rarest.group });
  }
  return lookups;
}

/** The candidates of `lookups` (from `retrievalLookups`): their postings read, then summed. */
export function retrieveByLookups(
  lookups: readonly Lookup[],
  source: Pick<CandidateSource, 'refsForKeys' | 'partialTermCounts'>,
  limits: RetrievalLimits = DEFAULT_LIMITS,
): RetrievedCandidate[] {
  if (lookups.length === 0) return [];

  // One batched read per distinct limit: exact keys of frequent values (a shared e-mail
  // domain) are read only as far as they are used.
  const postings = new Map<string, number[]>();
  for (const [limit, group] of Map.groupBy(lookups, (lookup) => lookup.limit)) {
    const keys = readKeys(group, source.partialTermCounts !== true);
    if (keys.length === 0) continue;
    for (const [key, refs] of source.refsForKeys(keys, limit)) postings.set(key, refs);
  }
  // Per candidate: the best weight per group (a token looked up through its neighbours is one
  // group of several lookups), summed over the groups in their order.
  const scores = scratchScores(postings, lookups);
  for (const members of Map.groupBy(lookups, (lookup) => lookup.group).values()) {
    if (members.length === 1) {
      // Most groups (~92%) are one lookup: its weight is each of its refs' best, added at once.
      const [lookup] = members;
      const refs = postings.get(lookup.key) ?? [];
      const n = Math.min(refs.length, lookup.limit);
      const few = n <= limits.maxDiscriminated && isWorkplaceLookup(lookup);
      scores.addGroup(refs, n, lookup.weight, lookup.discriminating === true, few);
      continue;
    }
    scores.startGroup();
    for (const lookup of members) {
      const refs = postings.get(lookup.key) ?? [];
      const n = Math.min(refs.length, lookup.limit);
      // A workplace only a few people have (an employer, a school): each of them may be the one.
      const few = n <= limits.maxDiscriminated && isWorkplaceLookup(lookup);
      for (let i = 0; i < n; i++) scores.offer(refs[i], lookup.weight, lookup.discriminating === true, few);
    }
    scores.endGroup();
  }
  return scores.best(limits.maxCandidates, limits.maxDiscriminated);
}

/**
 * The keys of `lookups` to read: those not known to be `absent` when `skipAbsent` (the source's
 * vocabularies are whole: `CandidateSource.partialTermCounts`).
 */
export function readKeys(lookups: readonly Pick<Lookup, 'key' | 'absent'>[], skipAbsent: boolean): string[] {
  const keys: string[] = [];
  for (const lookup of lookups) if (!(skipAbsent && lookup.absent === true)) keys.push(lookup.key);
  return keys;
}

/**
 * Candidates' retrieval scores while one query's postings are summed: an open-addressing table
 * of typed arrays from ref to esscore, reused by every query of the thread (the matcher is
 * synchronous). It replaces a Map per query and one per group: with up to a few thousand
 * postings per query, their inserts and the entries' garbage were most of retrieval's time.
 * Sums are made in the same order as before (group by group), so scores are bit-identical.
 */
class RefScores {
  #mask = 0;
  /** Ref in a slot (valid when the slot's epoch is the query's). */
  #refs = new Float64Array(0);
  #epochs = new Uint32Array(0);
  #esscores = new Float64Array(0);
  /** Whether the slot's ref has an esscore this query (the epoch), as a Map entry would be. */
  #scored = new Uint32Array(0);
  #groupWeights = new Float64Array(0);
  #groupStamps = new Uint32Array(0);
  /** Groups that gave the slot's ref a weight this query, and whether one was discriminating. */
  #groupCounts = new Uint32Array(0);
  #discriminated = new Uint32Array(0);
  /** Whether a workplace lookup of few postings gave the slot's ref a weight this query. */
  #fewAtWorkplace = new Uint32Array(0);
  #epoch = 0;
  #group = 0;
  /** Slots touched by the current group, then slots with an esscore, in first-scored order. */
  #inGroup = new Int32Array(0);
  #inGroupCount = 0;
  #scoredSlots = new Int32Array(0);
  #scoredCount = 0;

  /** Empties the table for a query that offers at most `entries` refs. */
  reset(entries: number): void {
    const wanted = Math.max(64, 2 ** Math.ceil(Math.log2(entries * 2 + 1)));
    // The stamps are 32-bit: well before they would wrap (a query makes at most a few hundred
    // groups), the table starts over.
    if (wanted > this.#refs.length || this.#epoch >= 0xfffffff0 || this.#group >= 0xfff00000) {
      const size = Math.max(wanted, this.#refs.length);
      this.#mask = size - 1;
      this.#refs = new Float64Array(size);
      this.#epochs = new Uint32Array(size);
      this.#esscores = new Float64Array(size);
      this.#scored = new Uint32Array(size);
      this.#groupWeights = new Float64Array(size);
      this.#groupStamps = new Uint32Array(size);
      this.#groupCounts = new Uint32Array(size);
      this.#discriminated = new Uint32Array(size);
      this.#fewAtWorkplace = new Uint32Array(size);
      this.#inGroup = new Int32Array(size);
      this.#scoredSlots = new Int32Array(size);
      this.#epoch = 0;
      this.#group = 0;
    }
    this.#epoch++;
    this.#scoredCount = 0;
  }

  startGroup(): void {
    this.#group++;
    this.#inGroupCount = 0;
  }

  /** The group's best weight for `ref` becomes `weight` if larger (as `best < weight` did). */
  offer(ref: number, weight: number, discriminating = false, fewAtWorkplace = false): void {
    const slot = this.#slotOf(ref);
    if (discriminating && weight > 0) this.#discriminated[slot] = this.#epoch;
    if (fewAtWorkplace && weight > 0) this.#fewAtWorkplace[slot] = this.#epoch;
    if (this.#groupStamps[slot] !== this.#group) {
      this.#groupStamps[slot] = this.#group;
      this.#groupWeights[slot] = 0;
      this.#inGroup[this.#inGroupCount++] = slot;
    }
    if (this.#groupWeights[slot] < weight) this.#groupWeights[slot] = weight;
  }

  /**
   * A group of one lookup, its first `n` `refs` at `weight`: what `startGroup`, `offer` of each
   * and `endGroup` give, without the group's own bests. A ref repeated next to itself (a source
   * may list a key's refs so, in ref order) counts once, as the group's best does.
   */
  addGroup(refs: readonly number[], n: number, weight: number, discriminating: boolean, few: boolean): void {
    if (!(weight > 0)) return;
    const epoch = this.#epoch;
    for (let i = 0; i < n; i++) {
      const ref = refs[i];
      if (i > 0 && ref === refs[i - 1]) continue;
      const slot = this.#slotOf(ref);
      if (discriminating) this.#discriminated[slot] = epoch;
      if (few) this.#fewAtWorkplace[slot] = epoch;
      if (this.#scored[slot] === epoch) {
        this.#esscores[slot] += weight;
        this.#groupCounts[slot]++;
      } else {
        this.#scored[slot] = epoch;
        this.#esscores[slot] = 0 + weight;
        this.#groupCounts[slot] = 1;
        this.#scoredSlots[this.#scoredCount++] = slot;
      }
    }
  }

  /** Adds the group's best weights to the esscores (refs whose best stayed 0 get none). */
  endGroup(): void {
    for (let i = 0; i < this.#inGroupCount; i++) {
      const slot = this.#inGroup[i];
      const weight = this.#groupWeights[slot];
      if (!(weight > 0)) continue;
      if (this.#scored[slot] === this.#epoch) {
        this.#esscores[slot] += weight;
        this.#groupCounts[slot]++;
      } else {
        this.#scored[slot] = this.#epoch;
        this.#esscores[slot] = 0 + weight;
        this.#groupCounts[slot] = 1;
        this.#scoredSlots[this.#scoredCount++] = slot;
      }
    }
  }

  /**
   * The `k` best candidates (highest esscore, then lowest ref), best first, then the `extra`
   * best of the others that a discriminating lookup and another lookup found, or a workplace
   * lookup of few postings alone (a namesake with a middle name the query leaves out, at the
   * employer the query names, below a crowd of exact namesakes: issue 22's 1M graph).
   */
  best(k: number, extra = 0): RetrievedCandidate[] {
    const top: RetrievedCandidate[] = [];
    for (let i = 0; i < this.#scoredCount; i++) {
      const slot = this.#scoredSlots[i];
      insertBest(top, k, this.#refs[slot], this.#esscores[slot]);
    }
    if (extra === 0 || top.length < k) return top;
    const last = top[k - 1];
    const more: RetrievedCandidate[] = [];
    for (let i = 0; i < this.#scoredCount; i++) {
      const slot = this.#scoredSlots[i];
      if (this.#discriminated[slot] !== this.#epoch) continue;
      if (this.#groupCounts[slot] < 2 && this.#fewAtWorkplace[slot] !== this.#epoch) continue;
      const ref = this.#refs[slot];
      const esscore = this.#esscores[slot];
      if (ref !== last.ref && !before(ref, esscore, last)) insertBest(more, extra, ref, esscore);
    }
    return more.length === 0 ? top : [...top, ...more];
  }

  #slotOf(ref: number): number {
    let slot = Math.imul(ref | 0, 0x9e3779b1) & this.#mask;
    while (this.#epochs[slot] === this.#epoch) {
      if (this.#refs[slot] === ref) return slot;
      slot = (slot + 1) & this.#mask;
    }
    this.#epochs[slot] = this.#epoch;
    this.#refs[slot] = ref;
    this.#groupStamps[slot] = 0;
    return slot;
  }
}

const sharedScores = new RefScores();

/** The thread's score table, emptied and sized for the postings `lookups` will offer. */
function scratchScores(postings: ReadonlyMap<string, number[]>, lookups: readonly Lookup[]): RefScores {
  let entries = 0;
  for (const lookup of lookups) entries += Math.min(postings.get(lookup.key)?.length ?? 0, lookup.limit);
  sharedScores.reset(entries);
  return sharedScores;
}

/** Inserts `candidate` into `top` (best first) if it is among the `k` best. */
function insertBest(top: RetrievedCandidate[], k: number, ref: number, esscore: number): void {
  if (top.length === k && !before(ref, esscore, top[k - 1])) return;
  let at = top.length;
  while (at > 0 && before(ref, esscore, top[at - 1])) at--;
  top.splice(at, 0, { ref, esscore });
  if (top.length > k) top.pop();
}

/** Whether a candidate (`ref`, `esscore`) ranks before `other`. */
function before(ref: number, esscore: number, other: RetrievedCandidate): boolean {
  return esscore > other.esscore || (esscore === other.esscore && ref < other.ref);
}

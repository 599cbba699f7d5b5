/**
 * Whether a Person query made from a graph entity can be answered by any matcher: when what the
 * query says of the entity is also true of another person of the graph, nothing in the query
 * tells the two apart, and the top candidate is right at best by chance. Issue 22 compares the
 * top-right rates of a 20k and a 1M graph; on the 1M one far more queries are such ties, so the
 * rates are also given over the resolvable queries. The rule, strict (a query is removed only
 * when another person fits every field of it exactly as well as the entity does):
 *
 * - `unresolvable`: the query gives a name (and a place) and nothing else, and another person
 *   has the entity's full name (its `pn:` key), in the place the query names if it names one
 *   (an `np:` key at a level the matcher reads the location at).
 * - `same title`: the same with a title, and such a namesake also has the entity's current
 *   title (the demo graph draws titles from a dozen).
 * - `free-mail`: the query's fields are e-mails (and a name, and a place), and every e-mail is
 *   at a free-mail provider (`NormalizedEmail.freeMail`, the matcher's own reading) where the
 *   entity holds no address (`paul.smith@web.de` for one of many Paul Smiths, who works at
 *   acme.com). Such an address says only the name its local part spells (`localFitsName` in
 *   match/features.ts reads the name forms from the person's name alone) and, when one of the
 *   entity's addresses has the same local part, that: the query is removed when a person of
 *   the entity's full name (in that place) also holds no address at that provider and has an
 *   address with that local part exactly when the entity has (`freeMailSignature`). Neither
 *   has the address, both have (or lack) its local part: no address evidence tells them apart
 *   (the rest of a different address, an employer's domain, is no evidence about a free-mail
 *   one).
 * - `same phone`: the query is a phone number (and a place) the entity holds, and another
 *   person holds that number too and is in the place as far as the query says: in every place
 *   the matcher reads the location as (`queryPlaces`) that the entity is in, or, when it reads
 *   none (a typo), in the entity's city, region and country.
 *
 * Used by `bench/enhance-inprocess.ts` and `bench/crowd-misses.ts`.
 */
import type { MatchQuery } from '../../src/match/index.ts';
import { indexEntity, KEY, type PersonProfile, personNamePlaceKey } from '../../src/match/profile.ts';
import { type AnalyzedQuery, analyzeQuery } from '../../src/match/query-analysis.ts';
import { queryPlaces } from '../../src/match/retrieval.ts';
import type { EntityStore } from '../../src/storage/index.ts';
import { queryShape } from './queries.ts';

/** Why a Person query cannot be resolved (`unresolvable` answers one, or `undefined`). */
export const UNRESOLVABLE = ['unresolvable', 'same title', 'free-mail', 'same phone'] as const;
export type Unresolvable = (typeof UNRESOLVABLE)[number];

/** The query's places as the matcher reads its location (`c:`/`r:`/`k:` and the place). */
function placesOf(query: AnalyzedQuery): string[] {
  return queryPlaces(query).map(([level, place]) => `${level}:${place}`);
}

/**
 * The whole-name lookups of an entity's namesakes (its `pn:` keys), in the places the query's
 * location names if it names one (`np:` keys, at the levels retrieval reads it at).
 */
function namesakeLookups(keys: readonly string[], query: AnalyzedQuery): string[] {
  const nameKeys = keys
    .filter((k) => k.startsWith(KEY.personName))
    .map((k) => k.slice(KEY.personName.length));
  const places = query.location === undefined ? [] : queryPlaces(query);
  return places.length === 0
    ? nameKeys.map((k) => KEY.personName + k)
    : nameKeys.flatMap((k) => places.map(([level, place]) => personNamePlaceKey(k, level, place)));
}

/** The other people (refs) behind `lookups`, at most `limit` per lookup. */
function othersBehind(store: EntityStore, ref: number, lookups: readonly string[], limit: number): number[] {
  const refs = new Set([...store.refsForKeys(lookups, limit).values()].flat());
  refs.delete(ref);
  return [...refs];
}

/** Whether another person has `ref`'s full name (and a place the query names, if it names one). */
function hasNamesake(
  store: EntityStore,
  ref: number,
  keys: readonly string[],
  query: AnalyzedQuery,
): boolean {
  return othersBehind(store, ref, namesakeLookups(keys, query), 2).length > 0;
}

/**
 * Whether another person has `ref`'s full name, the title the query gives (a generated query's
 * title is the entity's first) and, if the query names a place, that place: on a graph whose
 * titles come from a dozen, a title does not tell namesakes apart.
 */
function hasTitledNamesake(
  store: EntityStore,
  ref: number,
  keys: readonly string[],
  title: string | undefined,
  query: AnalyzedQuery,
): boolean {
  if (title === undefined) return false;
  const refs = othersBehind(store, ref, namesakeLookups(keys, query), 5000);
  return store.profiles(refs).some((row) => (row.profile as PersonProfile).t?.includes(title));
}

/**
 * What the query's e-mails say of the person with `addresses` beyond a name, or `undefined`
 * when they say more: each at a free-mail provider where the person holds no address (so not
 * the address either), and whether one of the person's addresses has its local part (`1`) or
 * not (`0`), one digit per e-mail.
 */
function freeMailSignature(query: AnalyzedQuery, addresses: readonly string[]): string | undefined {
  let signature = '';
  for (const e of query.emails) {
    if (!e.freeMail) return undefined;
    let sameLocal = false;
    for (const a of addresses) {
      const at = a.lastIndexOf('@');
      if (a.slice(at + 1) === e.domain) return undefined;
      sameLocal ||= a.slice(0, at) === e.local;
    }
    signature += sameLocal ? '1' : '0';
  }
  return signature;
}

/**
 * Whether another person of `ref`'s full name (in the query's place) fits the query's free-mail
 * addresses as the entity does (the same `freeMailSignature`): namesakes read up to 50 per
 * lookup.
 */
function hasFreeMailNamesake(
  store: EntityStore,
  ref: number,
  keys: readonly string[],
  query: AnalyzedQuery,
  signature: string,
): boolean {
  const refs = othersBehind(store, ref, namesakeLookups(keys, query), 50);
  return store
    .profiles(refs)
    .some((row) => freeMailSignature(query, (row.profile as PersonProfile).e ?? []) === signature);
}

/** The places (`c:`/`r:`/`k:` and the place) a person's `np:` keys put them in. */
function personPlaces(keys: readonly string[]): Set<string> {
  const places = new Set<string>();
  for (const key of keys)
    if (key.startsWith(KEY.personNamePlace)) places.add(key.slice(key.lastIndexOf('|') + 1));
  return places;
}

/**
 * Whether another person holds the entity's number that the query gives and is, as far as the
 * query's location says, where the entity is (see the module comment).
 */
function hasPhoneSharer(
  store: EntityStore,
  ref: number,
  index: { readonly keys: readonly string[]; readonly profile: unknown },
  query: AnalyzedQuery,
): boolean {
  const numbers = query.phones.map((p) => KEY.phone + p).filter((k) => index.keys.includes(k));
  if (numbers.length === 0) return false;
  const others = store.getByRefs(othersBehind(store, ref, numbers, 50));
  const read = placesOf(query);
  const own = personPlaces(index.keys);
  const ownProfile = index.profile as PersonProfile;
  const samePlace = (a: PersonProfile, b: PersonProfile) =>
    a.c === b.c &&
    String(a.r) === String(b.r) &&
    String(a.ci) === String(b.ci) &&
    String(a.ad) === String(b.ad);
  return others.some((other) => {
    if (other.doc.type !== 'Person') return false;
    const theirs = indexEntity(other.doc);
    if (!numbers.every((k) => theirs.keys.includes(k))) return false;
    if (query.location === undefined) return true;
    if (read.length === 0) return samePlace(ownProfile, theirs.profile as PersonProfile);
    const places = personPlaces(theirs.keys);
    return read.every((place) => !own.has(place) || places.has(place));
  });
}

/**
 * Why the Person query `query`, made from the entity `expected`, cannot be resolved (the rule is
 * the module comment's), or `undefined` when it can be.
 */
export function unresolvable(
  store: EntityStore,
  query: MatchQuery,
  expected: string,
): Unresolvable | undefined {
  const shape = queryShape(query).split('+');
  const given = new Set(shape);
  const only = (...fields: string[]) => shape.every((f) => fields.includes(f));
  const nameOnly = given.has('name') && only('name', 'location');
  const titled = given.has('name') && given.has('title') && only('name', 'location', 'title');
  const freeMail = given.has('email') && only('name', 'email', 'location');
  const phone = given.has('phone') && only('phone', 'location');
  if (!nameOnly && !titled && !freeMail && !phone) return undefined;
  const stored = store.getById(expected);
  if (!stored) throw new Error(`${expected}: not in the graph`);
  const index = indexEntity(stored.doc);
  const analyzed = analyzeQuery(query);
  if (nameOnly) return hasNamesake(store, stored.ref, index.keys, analyzed) ? 'unresolvable' : undefined;
  const profile = index.profile as PersonProfile;
  if (titled) {
    const title = profile.t?.[0];
    return hasTitledNamesake(store, stored.ref, index.keys, title, analyzed) ? 'same title' : undefined;
  }
  if (freeMail) {
    const signature = freeMailSignature(analyzed, profile.e ?? []);
    if (signature === undefined) return undefined;
    return hasFreeMailNamesake(store, stored.ref, index.keys, analyzed, signature) ? 'free-mail' : undefined;
  }
  return hasPhoneSharer(store, stored.ref, index, analyzed) ? 'same phone' : undefined;
}

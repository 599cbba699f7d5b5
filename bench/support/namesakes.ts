/**
 * Whether a Person query made from a graph entity can be answered by any matcher: when its
 * fields are the entity's full name (and a place, and a title) and another person of the graph
 * has them too, nothing in the query tells the two apart, and the top candidate is right at
 * best by chance. Issue 22 compares the top-right rates of a 20k and a 1M graph; on the 1M one
 * far more queries are such ties, so the rates are also given over the resolvable queries.
 * Used by `bench/enhance-inprocess.ts` and `bench/crowd-misses.ts`.
 */
import type { MatchQuery } from '../../src/match/index.ts';
import { indexEntity, KEY, type PersonProfile, personNamePlaceKey } from '../../src/match/profile.ts';
import { analyzeQuery } from '../../src/match/query-analysis.ts';
import { queryPlaces } from '../../src/match/retrieval.ts';
import type { EntityStore } from '../../src/storage/index.ts';
import { queryShape } from './queries.ts';

/** Why a Person query cannot be resolved, or `undefined` when its fields single the entity out. */
export type Unresolvable = 'unresolvable' | 'same title';

/**
 * The whole-name lookups of an entity's namesakes (its `pn:` keys), in the places the query's
 * location names if it names one (`np:` keys, at the levels retrieval reads it at).
 */
function namesakeLookups(keys: readonly string[], query: MatchQuery): string[] {
  const nameKeys = keys
    .filter((k) => k.startsWith(KEY.personName))
    .map((k) => k.slice(KEY.personName.length));
  const places = query.location === undefined ? [] : queryPlaces(analyzeQuery(query));
  return places.length === 0
    ? nameKeys.map((k) => KEY.personName + k)
    : nameKeys.flatMap((k) => places.map(([level, place]) => personNamePlaceKey(k, level, place)));
}

/** Whether another person has `ref`'s full name (and a place the query names, if it names one). */
function hasNamesake(store: EntityStore, ref: number, keys: readonly string[], query: MatchQuery): boolean {
  const lookups = namesakeLookups(keys, query);
  for (const refs of store.refsForKeys(lookups, 2).values()) if (refs.some((r) => r !== ref)) return true;
  return false;
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
  query: MatchQuery,
): boolean {
  if (title === undefined) return false;
  const lookups = namesakeLookups(keys, query);
  const refs = new Set([...store.refsForKeys(lookups, 5000).values()].flat());
  refs.delete(ref);
  return store.profiles([...refs]).some((row) => (row.profile as PersonProfile).t?.includes(title));
}

/**
 * Why the Person query `query`, made from the entity `expected`, cannot be resolved: only
 * queries of a name (and a place), or of a name and a title (and a place), can be, when
 * another person shares those fields.
 */
export function unresolvable(
  store: EntityStore,
  query: MatchQuery,
  expected: string,
): Unresolvable | undefined {
  const shape = queryShape(query);
  const nameOnly = shape === 'name' || shape === 'name+location';
  const titled = shape === 'name+title' || shape === 'name+location+title';
  if (!nameOnly && !titled) return undefined;
  const stored = store.getById(expected);
  if (!stored) throw new Error(`${expected}: not in the graph`);
  const index = indexEntity(stored.doc);
  if (nameOnly) return hasNamesake(store, stored.ref, index.keys, query) ? 'unresolvable' : undefined;
  const title = (index.profile as PersonProfile).t?.[0];
  return hasTitledNamesake(store, stored.ref, index.keys, title, query) ? 'same title' : undefined;
}

/**
 * A Person query's location retrieves together with its name (issue 22, the large graph): among
 * more namesakes than the candidates kept, those in the place the query names are retrieved
 * (`np:` keys: the whole-name key with a city, a region or a country). Sixty people share the
 * name in Chicago, written first; the one in Lyon, the one in Bavaria, the one in Canada and
 * one in Edinburgh with a middle name (John Edward Carter) are written last, so that the name
 * alone would not bring them among the 30 candidates kept. Each place is also home to people of
 * other names, more than the postings a place word may have to be read (20 here, as 1,000 on
 * the default limits: a city of the 1M + 1M demo graph has tens of thousands): the place's
 * words alone cannot retrieve them either.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import { createMatcher, DEFAULT_LIMITS, type Matcher, type MatchQuery } from '../src/match/index.ts';
import type { Storage } from '../src/storage/index.ts';
import { writeIndexed } from './support/load-graph.ts';
import { personQuery } from './support/match-queries.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';

const person = (id: string, city: string, region: string, country: string, name = 'John Carter'): Entity => ({
  id,
  type: 'Person',
  name,
  location: { city: { name: city }, region: { name: region }, country: { name: country } },
});

const ENTITIES: Entity[] = [];
const GIVEN = ['Mary', 'Olga', 'Pierre', 'Hans', 'Aiko', 'Bruno'];
const SURNAMES = ['Lindqvist', 'Moreau', 'Okafor', 'Brandt', 'Tanaka'];
for (const [city, region, country] of [
  ['Lyon', 'Auvergne-Rhône-Alpes', 'France'],
  ['Munich', 'Bavaria', 'Germany'],
  ['Toronto', 'Ontario', 'Canada'],
  ['Edinburgh', 'Scotland', 'United Kingdom'],
] as const) {
  for (let i = 0; i < 30; i++)
    ENTITIES.push(person(`PER-${city}-${i}`, city, region, country, `${GIVEN[i % 6]} ${SURNAMES[i % 5]}`));
}
for (let i = 0; i < 60; i++) ENTITIES.push(person(`PER-carter-${i}`, 'Chicago', 'Illinois', 'United States'));
ENTITIES.push(
  person('PER-carter-lyon', 'Lyon', 'Auvergne-Rhône-Alpes', 'France'),
  person('PER-carter-munich', 'Munich', 'Bavaria', 'Germany'),
  person('PER-carter-toronto', 'Toronto', 'Ontario', 'Canada'),
  person('PER-carter-edinburgh', 'Edinburgh', 'Scotland', 'United Kingdom', 'John Edward Carter'),
);

let storage: Storage;
let cleanup: () => Promise<void>;
let matcher: Matcher;

const query = (location: string | undefined, names = ['John Carter']): MatchQuery =>
  personQuery({ names, ...(location === undefined ? {} : { location }) });

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  writeIndexed(storage.entities, ENTITIES);
  matcher = createMatcher(storage.entities, { limits: { ...DEFAULT_LIMITS, maxPostings: 20 } });
});
after(async () => cleanup());

for (const [location, expected] of [
  ['Lyon', 'PER-carter-lyon'],
  ['lyon, france', 'PER-carter-lyon'],
  ['Bavaria', 'PER-carter-munich'],
  ['Canada', 'PER-carter-toronto'],
] as const) {
  test(`the namesake in the named place (${location}) is retrieved and ranked first`, () => {
    const found = matcher.match(query(location), { limit: 10 });
    assert.equal(found[0]?.id, expected, JSON.stringify(found.slice(0, 3).map((c) => c.id)));
    assert.ok(found[0].score > (found[1]?.score ?? 0), 'the place tells it apart from the others');
  });
}

test('the name written surname first finds the same person', () => {
  const found = matcher.match(query('Munich', ['Carter, John']), { limit: 10 });
  assert.equal(found[0]?.id, 'PER-carter-munich');
});

test('a namesake with a middle name the query leaves out is found by given name, surname and place', () => {
  const found = matcher.match(query('Edinburgh'), { limit: 10 });
  assert.equal(found[0]?.id, 'PER-carter-edinburgh', JSON.stringify(found.slice(0, 3).map((c) => c.id)));
});

test('a query with a middle initial finds the namesake of that place by given name and surname', () => {
  const found = matcher.match(query('Edinburgh', ['John E. Carter']), { limit: 10 });
  assert.equal(found[0]?.id, 'PER-carter-edinburgh', JSON.stringify(found.slice(0, 3).map((c) => c.id)));
});

test('without a place the namesakes outside the first 30 are not retrieved by the name alone', () => {
  const found = matcher.match(query(undefined), { limit: 60 });
  assert.ok(found.length > 1);
  assert.equal(found[0].score, found[1].score);
  const ids = new Set(found.map((c) => c.id));
  for (const id of ['PER-carter-lyon', 'PER-carter-munich', 'PER-carter-edinburgh'])
    assert.ok(!ids.has(id), `the limit holds (${id})`);
});

test('a place the graph holds none of the namesakes in retrieves no one by it: they stay alike', () => {
  const found = matcher.match(query('Madrid'), { limit: 60 });
  assert.ok(found.length > 1);
  assert.equal(found[0].score, found[1].score);
});

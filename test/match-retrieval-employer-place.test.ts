/**
 * A Person query naming an employer retrieves its name where the employer is (issue 22, the
 * large graph): people mostly live where they work, so among more namesakes than the name's
 * postings read (220 John Carters in Chicago, written first: the whole-name key is read for 200)
 * the one working at the named organization, in Lyon, is retrieved through the `np:` keys of the
 * organization's city, and with the employer's evidence ranked first. Without it, the employer's
 * people (weighted as a workplace, below the whole name) fall behind the crowd and are cut.
 * An employer written with a typo, whose name key names no organization, is read as the
 * organizations its words find.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import { createMatcher, type Matcher } from '../src/match/index.ts';
import type { Storage } from '../src/storage/index.ts';
import { writeIndexed } from './support/load-graph.ts';
import { personQuery } from './support/match-queries.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';

const place = (city: string, region: string, country: string) => ({
  city: { name: city },
  region: { name: region },
  country: { name: country },
});
const LYON = place('Lyon', 'Auvergne-Rhône-Alpes', 'France');
const ENTITIES: Entity[] = [];
for (let i = 0; i < 220; i++)
  ENTITIES.push({
    id: `PER-carter-${i}`,
    type: 'Person',
    name: 'John Carter',
    location: place('Chicago', 'Illinois', 'United States'),
  });
ENTITIES.push(
  { id: 'ORG-kessler', type: 'Organization', name: 'Kessler Brandt GmbH', location: LYON },
  { id: 'PER-carter-other-lyon', type: 'Person', name: 'John Carter', location: LYON },
  {
    id: 'PER-carter-kessler',
    type: 'Person',
    name: 'John Carter',
    location: LYON,
    employments: [{ employer: { id: 'ORG-kessler', name: 'Kessler Brandt GmbH' }, isCurrent: true }],
  },
);

let storage: Storage;
let cleanup: () => Promise<void>;
let matcher: Matcher;

const query = personQuery;

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  writeIndexed(storage.entities, ENTITIES);
  matcher = createMatcher(storage.entities);
});
after(async () => cleanup());

test('the namesake working at the named employer is retrieved among a crowd and ranked first', () => {
  const found = matcher.match(query({ employer: 'Kessler Brandt GmbH' }), { limit: 10 });
  assert.equal(found[0]?.id, 'PER-carter-kessler', JSON.stringify(found.slice(0, 3).map((c) => c.id)));
  assert.ok(found[0].score > found[1].score, 'the employer tells it apart');
  const answer = matcher.search(query({ employer: 'Kessler Brandt GmbH' }), { limit: 10 });
  assert.deepEqual(
    matcher.searchMany([query({ employer: 'Kessler Brandt GmbH' })], [{ limit: 10 }])[0],
    answer,
    'a bulk batch answers the same',
  );
});

test('an employer written with a typo is read as the organization its words find', () => {
  const typo = query({ employer: 'Keszler Brandt GmbH' });
  const found = matcher.match(typo, { limit: 10 });
  assert.equal(found[0]?.id, 'PER-carter-kessler', JSON.stringify(found.slice(0, 3).map((c) => c.id)));
  assert.deepEqual(matcher.searchMany([typo], [{ limit: 10 }])[0], matcher.search(typo, { limit: 10 }));
});

test('an employer the graph does not hold adds no place: the namesakes stay alike', () => {
  const found = matcher.match(query({ employer: 'Nowhere Holdings Ltd' }), { limit: 10 });
  assert.notEqual(found[0]?.id, 'PER-carter-kessler');
  assert.equal(found[0].score, found[1].score);
});

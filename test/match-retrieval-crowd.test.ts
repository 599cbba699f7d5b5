/**
 * A common name with more namesakes than retrieval reads (issue 22, the large graph): 1,100
 * people are named John Carter (their name words too frequent to be read, their whole-name key
 * read only as far as its first 200 postings) and the one the query means is written last. A
 * query naming his employer or school reads the crowd further, so that he, at the workplace
 * the query names, comes first.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import { createMatcher, type Matcher } from '../src/match/index.ts';
import type { Storage } from '../src/storage/index.ts';
import { importGraph } from './support/load-graph.ts';
import { personQuery } from './support/match-queries.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';

const NAMESAKES = 1100;
const QUILLON: Entity = { id: 'ORG-quillon', type: 'Organization', name: 'Quillon Robotics LLC' };
const COLLEAGUES: Entity[] = ['Ada Moreau', 'Bram Okafor', 'Chen Wei'].map((name, i) => ({
  id: `PER-colleague-${i}`,
  type: 'Person',
  name,
  employments: [{ employer: { id: QUILLON.id, name: 'Quillon Robotics LLC' }, isCurrent: true }],
}));
const CROWD: Entity[] = Array.from({ length: NAMESAKES }, (_, i) => ({
  id: `PER-carter-${i}`,
  type: 'Person',
  name: 'John Carter',
}));
const WORKER: Entity = {
  id: 'PER-carter-quillon',
  type: 'Person',
  name: 'John Carter',
  employments: [{ employer: { id: QUILLON.id, name: 'Quillon Robotics LLC' }, isCurrent: true }],
};
const STUDENT: Entity = {
  id: 'PER-carter-student',
  type: 'Person',
  name: 'John Carter',
  educations: [{ institution: { name: 'Verdant School of Design' } }],
};

let storage: Storage;
let cleanup: () => Promise<void>;
let matcher: Matcher;

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  await importGraph(storage.entities, [QUILLON, ...COLLEAGUES, ...CROWD, WORKER, STUDENT]);
  matcher = createMatcher(storage.entities);
});
after(async () => cleanup());

test('the name alone is a crowd: the namesakes written last are not among the candidates', () => {
  const found = matcher.match(personQuery(), { limit: 1000 });
  assert.ok(found.length > 0);
  assert.ok(!found.some((c) => c.id === WORKER.id || c.id === STUDENT.id));
});

test('with his employer, the namesake working there is found in the crowd and ranked first', () => {
  const found = matcher.match(personQuery({ employer: 'Quillon Robotics' }), { limit: 10 });
  assert.equal(found[0]?.id, WORKER.id, JSON.stringify(found.slice(0, 3).map((c) => c.id)));
  assert.ok(found[0].score > (found[1]?.score ?? 0), 'the employer tells him apart from the crowd');
});

test('with his school, the namesake who studied there is found in the crowd and ranked first', () => {
  const found = matcher.match(personQuery({ school: 'Verdant School of Design' }), { limit: 10 });
  assert.equal(found[0]?.id, STUDENT.id, JSON.stringify(found.slice(0, 3).map((c) => c.id)));
  assert.ok(found[0].score > (found[1]?.score ?? 0), 'the school tells him apart from the crowd');
});

/**
 * A Person query's `employer` also finds who worked there before, and its `school` who studied
 * there (issue 22, the large graph): imported people get `pe:` (past employer id) and `ps:`
 * (school name key) retrieval keys, and retrieval looks them up. Sixty people share the name,
 * each working at an organization of their own; the ones the queries mean are written last, so
 * that the name alone would not bring them among the 30 candidates kept.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import { createMatcher, type Matcher } from '../src/match/index.ts';
import type { Storage } from '../src/storage/index.ts';
import { importGraph } from './support/load-graph.ts';
import { personQuery } from './support/match-queries.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';

const organization = (id: string, name: string): Entity => ({ id, type: 'Organization', name });
const worker = (id: string, employer: Entity, extra: Partial<Entity> = {}): Entity => ({
  id,
  type: 'Person',
  name: 'John Carter',
  employments: [{ employer: { id: employer.id, name: employer.name ?? '' }, isCurrent: true }],
  ...extra,
});

const ENTITIES: Entity[] = [];
const WORDS = ['Arbor', 'Basalt', 'Cobalt', 'Delta', 'Ember', 'Fjord', 'Garnet', 'Harbor', 'Iris', 'Juniper'];
const ORGS: Entity[] = [];
for (let i = 0; i < 60; i++) {
  const org = organization(`ORG-${i}`, `${WORDS[i % 10]} ${WORDS[Math.floor(i / 10)]} Holdings`);
  ORGS.push(org);
  ENTITIES.push(org, worker(`PER-carter-${i}`, org));
}
const QUILLON = organization('ORG-quillon', 'Quillon Robotics LLC');
ENTITIES.push(QUILLON);
// Works at ORG-7 now; worked at Quillon before.
const FORMER = worker('PER-carter-former', ORGS[7]);
FORMER.employments = [
  ...(FORMER.employments ?? []),
  { employer: { id: QUILLON.id, name: QUILLON.name ?? '' }, isCurrent: false },
];
// Studied at a school that is no entity of the graph (a name only).
const STUDENT = worker('PER-carter-student', ORGS[8], {
  educations: [{ institution: { name: 'Verdant School of Design' } }],
});
ENTITIES.push(FORMER, STUDENT);

let storage: Storage;
let cleanup: () => Promise<void>;
let matcher: Matcher;

const query = personQuery;

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  await importGraph(storage.entities, ENTITIES);
  matcher = createMatcher(storage.entities);
});
after(async () => cleanup());

test('the import indexes past employers (pe:) and schools (ps:), current employers stay pw: only', () => {
  const [former] = storage.entities.refsForKey('pe:ORG-quillon', 10);
  assert.equal(storage.entities.getByRefs([former])[0]?.id, 'PER-carter-former');
  assert.deepEqual(storage.entities.refsForKey('pw:ORG-quillon', 10), []);
  assert.equal(storage.entities.refsForKey('pe:ORG-7', 10).length, 0, 'a current employer is no past one');
  const [student] = storage.entities.refsForKey('ps:design school verdant', 10);
  assert.equal(storage.entities.getByRefs([student])[0]?.id, 'PER-carter-student');
});

test('the namesake who worked at the named employer before is retrieved and ranked first', () => {
  const found = matcher.match(query({ employer: 'Quillon Robotics' }), { limit: 10 });
  assert.equal(found[0]?.id, 'PER-carter-former', JSON.stringify(found.slice(0, 3).map((c) => c.id)));
  assert.ok(found[0].score > (found[1]?.score ?? 0), 'the past employer tells it apart from the others');
});

test('the namesake who studied at the named school is retrieved and ranked first', () => {
  const found = matcher.match(query({ school: 'Verdant School of Design' }), { limit: 10 });
  assert.equal(found[0]?.id, 'PER-carter-student', JSON.stringify(found.slice(0, 3).map((c) => c.id)));
  assert.ok(found[0].score > (found[1]?.score ?? 0), 'the school tells it apart from the others');
});

test('a school the graph does not know retrieves no one by it: the namesakes stay alike', () => {
  const found = matcher.match(query({ school: 'Nonexistent Academy' }), { limit: 60 });
  assert.ok(found.length > 1);
  assert.equal(found[0].score, found[1].score);
});

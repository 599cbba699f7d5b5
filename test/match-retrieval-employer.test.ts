/**
 * A Person query's `employer` retrieves (issue 22, the large graph): among many namesakes, the
 * one working at the organization the query names is among the candidates and ranked first.
 * Sixty people share the name, each at an organization of their own; the one the query means
 * is written last, so that the name alone would not bring it among the 30 candidates kept.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import { createMatcher, type Matcher, type MatchQuery } from '../src/match/index.ts';
import type { Storage } from '../src/storage/index.ts';
import { writeIndexed } from './support/load-graph.ts';
import { personQuery } from './support/match-queries.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';

const organization = (id: string, name: string): Entity => ({ id, type: 'Organization', name });
const worker = (id: string, name: string, employer: Entity): Entity => ({
  id,
  type: 'Person',
  name,
  employments: [{ employer: { id: employer.id, name: employer.name ?? '' }, isCurrent: true }],
});

const ENTITIES: Entity[] = [];
const WORDS = ['Arbor', 'Basalt', 'Cobalt', 'Delta', 'Ember', 'Fjord', 'Garnet', 'Harbor', 'Iris', 'Juniper'];
for (let i = 0; i < 60; i++) {
  const org = organization(`ORG-${i}`, `${WORDS[i % 10]} ${WORDS[Math.floor(i / 10)]} Holdings`);
  ENTITIES.push(org, worker(`PER-carter-${i}`, 'John Carter', org));
}
const QUILLON = organization('ORG-quillon', 'Quillon Robotics LLC');
ENTITIES.push(QUILLON, worker('PER-carter-quillon', 'John Carter', QUILLON));

let storage: Storage;
let cleanup: () => Promise<void>;
let matcher: Matcher;

const query = (employer: string): MatchQuery => personQuery({ employer });

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  writeIndexed(storage.entities, ENTITIES);
  matcher = createMatcher(storage.entities);
});
after(async () => cleanup());

test('the namesake working at the named employer is retrieved and ranked first', () => {
  const found = matcher.match(query('Quillon Robotics'), { limit: 10 });
  assert.equal(found[0]?.id, 'PER-carter-quillon', JSON.stringify(found.slice(0, 3).map((c) => c.id)));
  assert.ok(found[0].score > (found[1]?.score ?? 0), 'the employer tells it apart from the others');
});

test('the employer written with its legal form dotted finds the same person', () => {
  const found = matcher.match(query('Quillon Robotics L.L.C.'), { limit: 10 });
  assert.equal(found[0]?.id, 'PER-carter-quillon');
});

test('an employer the graph does not know retrieves no one by it: the namesakes stay alike', () => {
  const found = matcher.match(query('Nonexistent Widgets'), { limit: 60 });
  assert.ok(found.length > 1);
  assert.equal(found[0].score, found[1].score);
});

test('an employer no organization is named weighs as one the graph does not know; a known one as a conflict', () => {
  const unknown = matcher.match(query('Nonexistent Widgets'), { limit: 3 });
  for (const c of unknown) {
    assert.equal(c.explanation.features.employerUnknownConflict, 1, 'a move since the graph was written');
    assert.equal(c.explanation.features.employerConflict, undefined);
  }
  const known = matcher.match(query('Quillon Robotics'), { limit: 3 });
  const other = known.find((c) => c.id !== 'PER-carter-quillon');
  assert.equal(other?.explanation.features.employerConflict, 1);
  assert.equal(other?.explanation.features.employerUnknownConflict, undefined, "someone else's employer");
  // A word of the graph's organization names misspelt: found by its words, not unknown.
  const misspelt = matcher.match(query('Quillon Robotcs'), { limit: 3 });
  assert.equal(misspelt[0]?.id, 'PER-carter-quillon');
  const rival = misspelt.find((c) => c.id !== 'PER-carter-quillon');
  assert.equal(rival?.explanation.features.employerConflict, 1);
  assert.equal(rival?.explanation.features.employerUnknownConflict, undefined);
});

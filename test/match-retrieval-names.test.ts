/**
 * Person-name retrieval beyond the words as written (issue 22): a nickname finds the people
 * stored under the formal name, and a name finds a record carrying the graph's own typo of it
 * even when other real names one edit away are more frequent. Each target shares its surname
 * with 40 people written before it, so that only its given name can bring it among the 30
 * candidates retrieval keeps.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import { createMatcher, type Matcher, type MatchQuery } from '../src/match/index.ts';
import type { Storage } from '../src/storage/index.ts';
import { writeIndexed } from './support/load-graph.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';

const person = (id: string, name: string): Entity => ({ id, type: 'Person', name });
const letters = (i: number) =>
  String.fromCharCode(97 + (i % 26)) + String.fromCharCode(97 + Math.floor(i / 26));

const ENTITIES: Entity[] = [];
for (let i = 0; i < 40; i++) {
  ENTITIES.push(person(`PER-young-${i}`, `Filler${letters(i)} Young`));
  ENTITIES.push(person(`PER-anderson-${i}`, `Filler${letters(i)} Anderson`));
}
// Real names one edit from "molly", each more frequent than the typo "moly".
for (let i = 0; i < 4; i++) {
  for (const given of ['Holly', 'Jolly', 'Polly', 'Molly'])
    ENTITIES.push(person(`PER-${given}-${i}`, `${given} Other${letters(i)}`));
}
ENTITIES.push(person('PER-moly-young', 'Moly Young'));
ENTITIES.push(person('PER-frederick-anderson', 'Frederick Anderson'));

let storage: Storage;
let cleanup: () => Promise<void>;
let matcher: Matcher;

const q = (name: string): MatchQuery => ({ type: 'Person', names: [name], urls: [], emails: [], phones: [] });

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  writeIndexed(storage.entities, ENTITIES);
  matcher = createMatcher(storage.entities);
});
after(async () => cleanup());

test("a record with the graph's typo of a common given name is retrieved and ranked first", () => {
  const found = matcher.match(q('Molly Young'), { limit: 30 });
  assert.equal(found[0]?.id, 'PER-moly-young', JSON.stringify(found.slice(0, 3).map((c) => c.id)));
});

test('a nickname finds the person stored under the formal given name, with a typo in the surname', () => {
  const found = matcher.match(q('Fred Andersen'), { limit: 30 });
  assert.equal(found[0]?.id, 'PER-frederick-anderson', JSON.stringify(found.slice(0, 3).map((c) => c.id)));
});

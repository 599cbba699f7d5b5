/**
 * A common name, written without the middle name, with the person's past employer (issue 22,
 * the large graph): 1,100 people are named Tom Fischer (their name words too frequent to be
 * read); the one the query means is Tom Leon Fischer, who worked at Sipobadi Analytics. No
 * name lookup finds him (his whole name is another key), only the employer's people (`pe:`,
 * weight 3) do, below the crowd's whole-name weight. A workplace that few people have keeps
 * each of them as a candidate beyond the 30 best.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import { createMatcher, type Matcher } from '../src/match/index.ts';
import type { Storage } from '../src/storage/index.ts';
import { importGraph } from './support/load-graph.ts';
import { personQuery } from './support/match-queries.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';

const SIPOBADI: Entity = { id: 'ORG-sipobadi', type: 'Organization', name: 'Sipobadi Analytics AG' };
const NOW: Entity = { id: 'ORG-tezochito', type: 'Organization', name: 'Tezochito Foods' };
const CROWD: Entity[] = Array.from({ length: 1100 }, (_, i) => ({
  id: `PER-fischer-${i}`,
  type: 'Person',
  name: 'Tom Fischer',
}));
const TOM: Entity = {
  id: 'PER-fischer-leon',
  type: 'Person',
  name: 'Tom Leon Fischer',
  employments: [
    { employer: { id: NOW.id, name: 'Tezochito Foods' }, isCurrent: true },
    { employer: { id: SIPOBADI.id, name: 'Sipobadi Analytics AG' }, isCurrent: false },
  ],
};

let storage: Storage;
let cleanup: () => Promise<void>;
let matcher: Matcher;

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  await importGraph(storage.entities, [SIPOBADI, NOW, ...CROWD, TOM]);
  matcher = createMatcher(storage.entities);
});
after(async () => cleanup());

test('the name without his middle name and his past employer find him in the crowd, first', () => {
  const query = personQuery({ names: ['Tom Fischer'], employer: 'Sipobadi Analytics AG' });
  const found = matcher.match(query, { limit: 10 });
  assert.equal(found[0]?.id, TOM.id, JSON.stringify(found.slice(0, 3).map((c) => c.id)));
});

test('the name alone finds the crowd of exact namesakes, not him', () => {
  const found = matcher.match(personQuery({ names: ['Tom Fischer'] }), { limit: 10 });
  assert.ok(found.length > 0);
  assert.notEqual(found[0].id, TOM.id);
});

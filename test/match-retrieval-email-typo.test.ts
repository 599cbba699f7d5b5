/**
 * A common name and a company address with a typo in its domain (issue 22, the large graph):
 * 1,100 people are named Olga Silva, each with `olga.silva@` at a company of their own, and the
 * one the query means, at ralofoli.example, is written last. The query's address is another
 * form of her name at the mistyped domain (`osilva@rzalofoli.example`): its domain names no
 * organization, so no workplace lookup reads the crowd of namesakes further (only its first
 * 200); the unknown domain does instead, and its word's neighbour (`ralofoli`) sets her apart.
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
const words = ['bel', 'cor', 'dan', 'fen', 'gar', 'hol', 'kir', 'lum', 'mor', 'nes', 'pol'];
/** A made-up company word per index: `belcordan`. */
const company = (i: number) =>
  words[i % 11] + words[Math.floor(i / 11) % 11] + words[Math.floor(i / 121) % 11];
const CROWD: Entity[] = Array.from({ length: NAMESAKES }, (_, i) => ({
  id: `PER-silva-${i}`,
  type: 'Person',
  name: 'Olga Silva',
  emailAddresses: [{ contactString: `olga.silva@${company(i)}${i}.example` }],
}));
const RALOFOLI: Entity = {
  id: 'ORG-ralofoli',
  type: 'Organization',
  name: 'Ralofoli Foods',
  homepageUri: 'ralofoli.example',
};
const OLGA: Entity = {
  id: 'PER-silva-ralofoli',
  type: 'Person',
  name: 'Olga Silva',
  emailAddresses: [{ contactString: 'olga.silva@ralofoli.example' }],
  employments: [{ employer: { id: RALOFOLI.id, name: 'Ralofoli Foods' }, isCurrent: true }],
};

let storage: Storage;
let cleanup: () => Promise<void>;
let matcher: Matcher;

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  await importGraph(storage.entities, [RALOFOLI, ...CROWD, OLGA]);
  matcher = createMatcher(storage.entities);
});
after(async () => cleanup());

test('the name and her address with its domain mistyped find her in the crowd, first', () => {
  const query = personQuery({ names: ['Olga Silva'], emails: ['osilva@rzalofoli.example'] });
  const found = matcher.match(query, { limit: 10 });
  assert.equal(found[0]?.id, OLGA.id, JSON.stringify(found.slice(0, 3).map((c) => c.id)));
  assert.ok(found[0].score > (found[1]?.score ?? 0), 'the domain tells her apart from the crowd');
});

test('her address as the graph has it finds her too (the exact address)', () => {
  const query = personQuery({ names: ['Olga Silva'], emails: ['olga.silva@ralofoli.example'] });
  assert.equal(matcher.match(query, { limit: 10 })[0]?.id, OLGA.id);
});

/**
 * Retrieval does not read a whole-name key one of whose words no entity carries (`absent`
 * lookups, `nameKeyAbsent`): such a key has no postings, and the candidates are those of reading
 * every key. Queries with typos in the name (the fitting's generator) give the absent keys.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import { analyzeQuery, createMatcher, type MatchQuery } from '../src/match/index.ts';
import { LaggingVersionSource } from '../src/search/index.ts';
import { createVocabularyShareData, VocabularyShare } from '../src/threads/index.ts';
import { DEFAULT_LIMITS, retrievalLookups, retrieveByLookups } from '../src/match/retrieval.ts';
import { generateQuery } from '../src/match/training/query-generator.ts';
import { VocabularyCache } from '../src/match/vocabularies.ts';
import { Random } from '../src/random.ts';
import type { Storage } from '../src/storage/index.ts';
import { demoEntities, writeIndexed } from './support/load-graph.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';

let storage: Storage;
let cleanup: () => Promise<void>;
const entities: Entity[] = [];

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  entities.push(...demoEntities({ organizations: 150, persons: 300, seed: 3 }));
  writeIndexed(storage.entities, entities);
});
after(async () => cleanup());

test('absent whole-name keys have no postings, and skipping them retrieves what reading every key does', () => {
  const vocabularies = new VocabularyCache(storage.entities);
  const random = new Random(17);
  const queries: MatchQuery[] = [];
  while (queries.length < 600) {
    const query = generateQuery(random.pick(entities), random, entities);
    if (query) queries.push(query);
  }
  let absent = 0;
  let names = 0;
  for (const query of queries) {
    const analyzed = analyzeQuery(query);
    const lookups = retrievalLookups(analyzed, vocabularies.vocabularies(analyzed.type), DEFAULT_LIMITS);
    for (const lookup of lookups) {
      if (/^(pn|np|on):/.test(lookup.key)) names++;
      if (!lookup.absent) continue;
      absent++;
      assert.deepEqual(
        storage.entities.refsForKeys([lookup.key], lookup.limit).get(lookup.key),
        [],
        lookup.key,
      );
    }
    const everyKey = lookups.map(({ absent: _absent, ...lookup }) => lookup);
    assert.deepEqual(
      retrieveByLookups(lookups, storage.entities, DEFAULT_LIMITS),
      retrieveByLookups(everyKey, storage.entities, DEFAULT_LIMITS),
      JSON.stringify(query),
    );
  }
  // The generator's typos leave some names with a word nobody has, not most.
  assert.ok(absent > 10 && absent < names / 2, `${absent} absent of ${names} name keys`);
});

test('over a source whose vocabularies lag its writes, an entity stored since is found by its whole name', () => {
  // Search and refresh match through a LaggingVersionSource: the vocabularies are those of the
  // version it pins, so a word of an entity stored since is not in them, yet its whole-name key
  // has postings and must be read (partialTermCounts).
  const lagging = new LaggingVersionSource(storage.entities, { maxLagMs: 3_600_000 });
  // As the runtime does: a matcher per answer, the vocabularies in a share of their own.
  const share = new VocabularyShare(createVocabularyShareData());
  const matcherOver = () => createMatcher(lagging, { share });
  const query = (name: string): MatchQuery => ({
    type: 'Organization',
    names: [name],
    urls: [],
    emails: [],
    phones: [],
  });
  assert.equal(matcherOver().match(query('Quorvextil Zentrafox AG'), { limit: 1 })[0]?.score ?? 0, 0);
  const added: Entity = { id: 'ORG-lagging-1', type: 'Organization', name: 'Quorvextil Zentrafox AG' };
  writeIndexed(storage.entities, [added]);
  const found = matcherOver().match(query('Quorvextil Zentrafox AG'), { limit: 1 });
  assert.equal(found[0]?.id, added.id);
});

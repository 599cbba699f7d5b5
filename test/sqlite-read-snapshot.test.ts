import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import { type CandidateSource, createMatcher, type MatchQuery } from '../src/match/index.ts';
import type { Storage } from '../src/storage/index.ts';
import { openSqliteStorage } from '../src/storage/sqlite/index.ts';
import { demoEntities, writeIndexed } from './support/load-graph.ts';
import { tempDir } from './support/temp-dir.ts';

const dir = tempDir();
const file = path.join(dir.path, 'quarry.sqlite');
let writer: Storage;
let reader: Storage;
const graph: Entity[] = [];

before(() => {
  writer = openSqliteStorage(file);
  graph.push(...demoEntities({ organizations: 40, persons: 60, seed: 9 }));
  writeIndexed(writer.entities, graph.slice(0, -1));
  reader = openSqliteStorage(file, { readOnly: true });
});
after(async () => {
  await reader.close();
  await writer.close();
  dir.remove();
});

test("the entity store's read snapshot: a write by another connection is not seen until it ends", () => {
  const entities = reader.entities as Storage['entities'] & { readSnapshot<T>(fn: () => T): T };
  const last = graph.at(-1) as Entity;
  const before = entities.version();
  const seen = entities.readSnapshot(() => {
    const first = entities.version();
    writeIndexed(writer.entities, [last]);
    // Inside a snapshot opened by the caller, it joins it instead of opening another.
    const nested = reader.readSnapshot(() => entities.readSnapshot(() => entities.version()));
    return { first, second: entities.version(), nested, found: entities.getById(last.id) };
  });
  assert.equal(seen.first, before);
  assert.equal(seen.second, before, 'the same snapshot for every read of fn');
  assert.equal(seen.nested, before);
  assert.equal(seen.found, undefined);
  assert.notEqual(entities.version(), before, 'after it, the write is seen');
  assert.equal(entities.getById(last.id)?.id, last.id);
});

test("the matcher makes each query's reads inside one read snapshot of its source", () => {
  const entities = reader.entities;
  let depth = 0;
  let snapshots = 0;
  let readsOutside = 0;
  const inSnapshot = <T>(read: () => T): T => {
    if (depth === 0) readsOutside++;
    return read();
  };
  const source: CandidateSource = {
    refsForKeys: (keys, limit) => inSnapshot(() => entities.refsForKeys(keys, limit)),
    profiles: (refs) => inSnapshot(() => entities.profiles(refs)),
    termCounts: (prefix) => entities.termCounts(prefix),
    counts: () => entities.counts(),
    version: () => inSnapshot(() => entities.version()),
    readSnapshot<T>(fn: () => T): T {
      snapshots++;
      depth++;
      try {
        return fn();
      } finally {
        depth--;
      }
    },
  };
  const matcher = createMatcher(source);
  matcher.warmUp();
  readsOutside = 0;
  const person = graph.find((e) => e.type === 'Person') as Entity;
  const queries: MatchQuery[] = [
    { type: 'Person', names: [String(person.name)], urls: [], emails: [], phones: [], employer: 'Acme' },
    { type: 'Organization', names: [String(graph[0].name)], urls: [], emails: [], phones: [] },
  ];
  for (const query of queries) assert.ok(matcher.match(query).length > 0);
  assert.equal(snapshots, queries.length, 'one snapshot per query');
  assert.equal(readsOutside, 0, 'no read outside it');
  // Without a cache the source is read directly, each read on its own (as before).
  const uncached = createMatcher(source, { cache: false });
  uncached.warmUp();
  snapshots = 0;
  uncached.match(queries[1]);
  assert.equal(snapshots, 0);
});

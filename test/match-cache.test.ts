import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import {
  CachingCandidateSource,
  type CandidateSource,
  createMatcher,
  type MatchQuery,
  profileBytes,
  type ScoredCandidate,
} from '../src/match/index.ts';
import { generateQuery } from '../src/match/training/query-generator.ts';
import { Random } from '../src/random.ts';
import { approximateBytes } from '../src/approximate-bytes.ts';
import type { Storage } from '../src/storage/index.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';
import { demoEntities, writeIndexed } from './support/load-graph.ts';

let storage: Storage;
let cleanup: () => Promise<void>;
const entities: Entity[] = [];

function write(docs: readonly Entity[]): void {
  writeIndexed(storage.entities, docs);
}

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  // A small demo graph: shared surnames, cities and e-mail domains give the caches work.
  entities.push(...demoEntities({ organizations: 150, persons: 300, seed: 3 }));
  write(entities);
});
after(async () => cleanup());

/** Seeded noisy queries about the graph's entities (the fitting's generator). */
function queries(n: number, seed: number): MatchQuery[] {
  const random = new Random(seed);
  const out: MatchQuery[] = [];
  while (out.length < n) {
    const entity = random.pick(entities);
    const query = generateQuery(entity, random, entities);
    if (query) out.push(query);
  }
  return out;
}

/** What an answer is made of, down to the last bit of every score and contribution. */
function answer(found: readonly ScoredCandidate[]) {
  return found.map((c) => ({
    id: c.id,
    score: c.score,
    baseScore: c.baseScore,
    esscore: c.esscore,
    contributions: c.explanation.contributions,
  }));
}

test('a cached source gives the matcher exactly what the uncached one does, whatever came before', () => {
  const asked = queries(200, 11);
  const uncached = createMatcher(storage.entities, { cache: false });
  const expected = asked.map((query) => answer(uncached.match(query)));
  // Tight bounds empty the caches often; roomy ones keep everything: both must answer alike,
  // in any order of queries (the order decides what is cached when).
  for (const cache of [
    { profileBytes: 8_000, postingsBytes: 2_000 },
    { profileBytes: 64 * 2 ** 20, postingsBytes: 64 * 2 ** 20 },
  ]) {
    const cached = createMatcher(storage.entities, { cache });
    const order = asked.map((_, i) => i);
    new Random(5).shuffle(order);
    for (const pass of [order, [...order].reverse()]) {
      for (const i of pass) assert.deepEqual(answer(cached.match(asked[i])), expected[i], `query ${i}`);
    }
  }
});

test('searchMany answers each query of a batch exactly as search answers it alone', () => {
  const asked = queries(240, 17);
  // Repeated queries and a query without evidence in the batch too.
  asked.push(asked[3], asked[40], { type: 'Person', names: [], urls: [], emails: [], phones: [] });
  const uncached = createMatcher(storage.entities, { cache: false });
  const expected = asked.map((query) => uncached.search(query, { limit: 7 }));
  for (const cache of [
    { profileBytes: 8_000, postingsBytes: 2_000 },
    { profileBytes: 64 * 2 ** 20, postingsBytes: 64 * 2 ** 20 },
  ]) {
    const matcher = createMatcher(storage.entities, { cache });
    // Batches of several sizes, the caches holding what earlier batches read.
    for (const size of [1, 13, 100, asked.length]) {
      for (let from = 0; from < asked.length; from += size) {
        const batch = asked.slice(from, from + size);
        const answers = matcher.searchMany(
          batch,
          batch.map(() => ({ limit: 7 })),
        );
        answers.forEach((got, i) => {
          assert.ok(got, `query ${from + i} answered in its batch`);
          assert.deepEqual(
            answer(got.candidates),
            answer(expected[from + i].candidates),
            `query ${from + i}`,
          );
          assert.deepEqual(got.notes, expected[from + i].notes);
        });
      }
    }
  }
  // Through a source that does not cache (so might answer in another order), searched alone.
  assert.deepEqual(uncached.searchMany(asked.slice(0, 3), [{}, {}, {}]), [undefined, undefined, undefined]);
});

test('the caching source answers postings in the order of the keys asked for, whatever it holds', () => {
  const entities = storage.entities;
  const keys = [...entities.termCounts('pt:').keys()].slice(0, 6).map((key) => `pt:${key}`);
  const cached = new CachingCandidateSource(entities);
  cached.refsForKeys([keys[4], keys[1]], 50);
  const asked = [keys[0], keys[1], keys[2], keys[1], keys[4], keys[5]];
  assert.deepEqual([...cached.refsForKeys(asked, 50).keys()], [...entities.refsForKeys(asked, 50).keys()]);
  assert.deepEqual([...cached.refsForKeys(asked, 50).keys()], [keys[0], keys[1], keys[2], keys[4], keys[5]]);
});

test('the caching source answers as its source, profiles in the order of the refs asked for', () => {
  const entities = storage.entities;
  // A source answering profiles in reverse: the caching source still keeps the refs' order.
  const reversed: CandidateSource = {
    refsForKeys: (keys, limit) => entities.refsForKeys(keys, limit),
    profiles: (refs) => entities.profiles(refs).reverse(),
    termCounts: (prefix) => entities.termCounts(prefix),
    counts: () => entities.counts(),
    version: () => entities.version(),
  };
  const cached = new CachingCandidateSource(reversed, { profileBytes: 1_000, postingsBytes: 1_000 });
  const refs = (rows: readonly { ref: number }[]) => rows.map((row) => row.ref);
  assert.deepEqual(refs(cached.profiles([2, 4])), [2, 4]);
  assert.deepEqual(refs(cached.profiles([5, 4, 1, 2, 3])), [5, 4, 1, 2, 3]);
  // A ref without a profile is left out, the others keep their order.
  assert.deepEqual(refs(cached.profiles([3, 1_000_000, 1])), [3, 1]);
  const random = new Random(9);
  const keys = [...entities.termCounts('pt:').keys()].map((key) => `pt:${key}`);
  for (let i = 0; i < 100; i++) {
    const asked = Array.from({ length: 1 + random.int(5) }, () => random.pick(keys));
    const limit = random.pick([3, 100]);
    const got = cached.refsForKeys(asked, limit);
    const want = entities.refsForKeys(asked, limit);
    for (const key of asked) assert.deepEqual(got.get(key), want.get(key), key);
    const rows = Array.from({ length: 1 + random.int(6) }, () => 1 + random.int(500));
    assert.deepEqual(
      cached.profiles(rows).map((row) => row.id),
      rows.flatMap((ref) => entities.profiles([ref]).map((row) => row.id)),
    );
  }
});

test('the postings kept are bounded by bytes: a long key evicts them as many short ones would', () => {
  const entities = storage.entities;
  const read: string[] = [];
  const counting: CandidateSource = {
    refsForKeys: (keys, limit) => {
      read.push(...keys);
      return entities.refsForKeys(keys, limit);
    },
    profiles: (refs) => entities.profiles(refs),
    termCounts: (prefix) => entities.termCounts(prefix),
    counts: () => entities.counts(),
    version: () => entities.version(),
  };
  const [known] = [...entities.termCounts('pt:').keys()].map((key) => `pt:${key}`);
  const cached = new CachingCandidateSource(counting, { postingsBytes: 4_000 });
  const want = entities.refsForKeys([known], 100).get(known);
  assert.deepEqual(cached.refsForKeys([known], 100).get(known), want);
  for (let i = 0; i < 10; i++) cached.refsForKeys([`pt:short${i}`], 100);
  cached.refsForKeys([known], 100);
  assert.equal(read.filter((key) => key === known).length, 1, 'ten short keys fit: still remembered');
  // One key of 5,000 characters (a hostile name token) is more than the bound by itself.
  cached.refsForKeys([`pt:${'z'.repeat(5_000)}`], 100);
  assert.deepEqual(cached.refsForKeys([known], 100).get(known), want);
  assert.equal(read.filter((key) => key === known).length, 2, 'dropped for the long key: read again');
});

test('the profiles kept are bounded by their size in memory: past it they are read again', () => {
  const entities = storage.entities;
  let reads = 0;
  const counting: CandidateSource = {
    refsForKeys: (keys, limit) => entities.refsForKeys(keys, limit),
    profiles: (refs) => {
      reads += refs.length;
      return entities.profiles(refs);
    },
    termCounts: (prefix) => entities.termCounts(prefix),
    counts: () => entities.counts(),
    version: () => entities.version(),
  };
  // As the cache sizes it (from the stored JSON's length).
  const oneProfile = profileBytes(entities.profiles([1])[0]);
  // Room for about two profiles: two more push the first two out, and they are read again.
  const small = new CachingCandidateSource(counting, { profileBytes: oneProfile * 2.5 });
  small.profiles([1, 2]);
  assert.deepEqual(
    small.profiles([4, 3]).map((row) => row.ref),
    [4, 3],
  );
  const afterTwoBatches = reads;
  assert.deepEqual(
    small.profiles([1, 2]).map((row) => row.ref),
    [1, 2],
  );
  assert.equal(reads, afterTwoBatches + 2, 'over its budget the older profiles were dropped');
  // The least recently used goes first: 2 was read after 1, but 1 was asked for since.
  const lru = new CachingCandidateSource(counting, { profileBytes: oneProfile * 2.5 });
  lru.profiles([1, 2]);
  lru.profiles([1]);
  lru.profiles([3]);
  const afterThree = reads;
  assert.deepEqual(
    lru.profiles([1, 3]).map((row) => row.ref),
    [1, 3],
  );
  assert.equal(reads, afterThree, 'the two most recently used were kept');
  assert.deepEqual(
    lru.profiles([2]).map((row) => row.ref),
    [2],
  );
  assert.equal(reads, afterThree + 1, 'the least recently used was dropped');
  const roomy = new CachingCandidateSource(counting, { profileBytes: oneProfile * 100 });
  roomy.profiles([1, 2, 3, 4]);
  const roomyAfter = reads;
  roomy.profiles([1, 2]);
  assert.equal(reads, roomyAfter, 'within its budget nothing is read again');
});

test('the caching source sizes profile rows from their JSON text length when the store gives it', () => {
  const rows = storage.entities.profiles([1, 2, 3]);
  // The SQLite store's rows carry their JSON text's length.
  for (const row of rows) assert.equal(row.profileTextLength, JSON.stringify(row.profile).length);
  const parses: number[] = [];
  // Rows of a source whose profile getter counts its reads (the cache's sizing reads none).
  const counting: CandidateSource = {
    refsForKeys: (keys, limit) => storage.entities.refsForKeys(keys, limit),
    profiles: (refs) =>
      storage.entities.profiles(refs).map((row) => ({
        ref: row.ref,
        id: row.id,
        type: row.type,
        profileTextLength: row.profileTextLength,
        get profile() {
          parses.push(row.ref);
          return row.profile;
        },
      })),
    termCounts: (prefix) => storage.entities.termCounts(prefix),
    counts: () => storage.entities.counts(),
    version: () => storage.entities.version(),
  };
  const cached = new CachingCandidateSource(counting);
  const read = cached.profiles([3, 1, 2]);
  assert.deepEqual(
    read.map((row) => row.ref),
    [3, 1, 2],
  );
  assert.deepEqual(parses, [], 'sized from profileTextLength alone');
  assert.deepEqual(read[1].profile, rows[0].profile);
  assert.deepEqual(parses, [1]);
  // Without the text's length the cache sizes a row by its parsed profile, as before.
  const plain = new CachingCandidateSource({
    ...counting,
    profiles: (refs) =>
      counting.profiles(refs).map(({ ref, id, type, profile }) => ({ ref, id, type, profile })),
  });
  parses.length = 0;
  plain.profiles([2]);
  assert.deepEqual(parses, [2]);
  assert.equal(
    profileBytes({ ref: 1, id: 'x', type: 'Person', profile: { n: ['ab'] } }),
    approximateBytes({ n: ['ab'] }),
  );
});

test('after a write, the caching source reads the new graph', () => {
  const cached = new CachingCandidateSource(storage.entities);
  const key = 'pt:zebediah';
  assert.deepEqual(cached.refsForKeys([key], 10).get(key), []);
  write([{ id: 'PER-zebediah', type: 'Person', name: 'Zebediah Quill' }]);
  const [ref] = cached.refsForKeys([key], 10).get(key) ?? [];
  assert.equal(cached.profiles([ref])[0]?.id, 'PER-zebediah');
});

test('a query reads the graph version once; the next query sees a write made in between', () => {
  const entities = storage.entities;
  let versionReads = 0;
  const counting: CandidateSource = {
    refsForKeys: (keys, limit) => entities.refsForKeys(keys, limit),
    profiles: (refs) => entities.profiles(refs),
    termCounts: (prefix) => entities.termCounts(prefix),
    counts: () => entities.counts(),
    version: () => {
      versionReads++;
      return entities.version();
    },
  };
  write([{ id: 'PER-yolanda', type: 'Person', name: 'Yolanda Przybylski', emails: ['yolanda@example.com'] }]);
  const matcher = createMatcher(counting);
  matcher.warmUp();
  // A name and an e-mail at a company domain: postings and profiles are read several times.
  const query: MatchQuery = {
    type: 'Person',
    names: ['Yolanda Przybylski'],
    urls: [],
    emails: ['yolanda.przybylski@example.com'],
    phones: [],
  };
  versionReads = 0;
  assert.deepEqual(
    matcher.match(query).map((c) => c.id),
    ['PER-yolanda'],
  );
  assert.equal(versionReads, 1, 'one version read for the whole query');
  write([{ id: 'PER-yolanda-2', type: 'Person', name: 'Yolanda Przybylski' }]);
  const after = matcher.match(query).map((c) => c.id);
  assert.ok(after.includes('PER-yolanda-2'), `the write is seen by the next query: ${after}`);
  assert.equal(versionReads, 2);
});

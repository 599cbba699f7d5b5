import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import { createMatcher, DEFAULT_LIMITS, type Matcher, type MatchQuery } from '../src/match/index.ts';
import { profileCandidates } from '../src/match/matcher.ts';
import type { AnalyzedQuery } from '../src/match/query-analysis.ts';
import type { RetrievedCandidate } from '../src/match/retrieval.ts';
import type { Storage } from '../src/storage/index.ts';
import { openSqliteStorage } from '../src/storage/sqlite/index.ts';
import { createVocabularyShareData, VocabularyShare } from '../src/threads/index.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';
import { writeIndexed } from './support/load-graph.ts';

const ENTITIES: Entity[] = [
  {
    id: 'ORG-pecs',
    type: 'Organization',
    name: 'University of Pécs',
    homepageUri: 'pte.hu',
    allUris: ['pte.hu'],
    location: { country: { name: 'Hungary' } },
  },
  {
    id: 'ORG-mit',
    type: 'Organization',
    name: 'Massachusetts Institute of Technology',
    homepageUri: 'mit.edu',
    allUris: ['mit.edu'],
    location: { country: { name: 'United States' }, region: { name: 'Massachusetts' } },
    ipRanges: ['18.0.0.0/8', '2603:4000::/24'],
  },
  {
    id: 'ORG-nu1',
    type: 'Organization',
    name: 'National University',
    homepageUri: 'nu.edu',
    allUris: ['nu.edu'],
    location: { country: { name: 'United States' } },
  },
  {
    id: 'ORG-nu2',
    type: 'Organization',
    name: 'National University',
    homepageUri: 'nu.edu.ph',
    allUris: ['nu.edu.ph'],
    location: { country: { name: 'Philippines' } },
  },
  {
    id: 'ORG-salamanca',
    type: 'Organization',
    name: 'Universidad de Salamanca',
    homepageUri: 'usal.es',
    allUris: ['usal.es'],
    location: { country: { name: 'Spain' } },
  },
  {
    id: 'PER-wlee',
    type: 'Person',
    name: 'William Lee',
    nameDetail: { firstName: 'William', lastName: 'Lee' },
    emailAddresses: [{ contactString: 'w.lee@acme-labs.com' }],
    location: { city: { name: 'Leeds' } },
  },
  {
    id: 'PER-alee',
    type: 'Person',
    name: 'Anna Lee',
    nameDetail: { firstName: 'Anna', lastName: 'Lee' },
    location: { city: { name: 'London' } },
  },
];
// Profiles on shared hosts: LinkedIn's own homepage, and companies with pages on it.
ENTITIES.push(
  {
    id: 'ORG-linkedin',
    type: 'Organization',
    name: 'LinkedIn',
    homepageUri: 'linkedin.com',
    allUris: ['linkedin.com'],
  },
  {
    id: 'ORG-acme',
    type: 'Organization',
    name: 'Acme Robotics',
    homepageUri: 'acme-robotics.example',
    allUris: ['acme-robotics.example', 'linkedin.com/company/acme-robotics', 'twitter.com/acmerobotics'],
  },
  {
    id: 'ORG-zeta',
    type: 'Organization',
    name: 'Zeta Labs',
    homepageUri: 'zeta-labs.example',
    linkedInUri: 'linkedin.com/company/zeta-labs',
  },
);
for (let i = 0; i < 40; i++) {
  ENTITIES.push({
    id: `ORG-filler-${i}`,
    type: 'Organization',
    name: `Filler ${String.fromCharCode(97 + (i % 26))}${i} University`,
    homepageUri: `filler${i}.edu`,
    allUris: [`filler${i}.edu`],
  });
  ENTITIES.push({
    id: `PER-filler-${i}`,
    type: 'Person',
    name: `Person${i} Surname${i}`,
    location: { city: { name: 'London' } },
  });
}

let storage: Storage;
let cleanup: () => Promise<void>;
let matcher: Matcher;

function write(entities: Entity[]): void {
  writeIndexed(storage.entities, entities);
}

const q = (query: Partial<MatchQuery> & Pick<MatchQuery, 'type'>): MatchQuery => ({
  names: [],
  urls: [],
  emails: [],
  phones: [],
  ...query,
});

before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
  write(ENTITIES);
  matcher = createMatcher(storage.entities);
});
after(async () => cleanup());

test('finds organizations through name variants, urls, acronyms and typos', () => {
  const top = (query: MatchQuery) => matcher.match(query, { limit: 3 })[0];
  assert.equal(top(q({ type: 'Organization', names: ['Univ. of Pecs'] }))?.id, 'ORG-pecs');
  assert.equal(
    top(q({ type: 'Organization', urls: ['https://www.pte.hu/admissions?lang=en'] }))?.id,
    'ORG-pecs',
  );
  assert.equal(top(q({ type: 'Organization', urls: ['cs.mit.edu'] }))?.id, 'ORG-mit');
  assert.equal(top(q({ type: 'Organization', names: ['MIT'], location: 'United States' }))?.id, 'ORG-mit');
  assert.equal(
    top(q({ type: 'Organization', names: ['Universidad de Salaamanxa'], location: 'Spain' }))?.id,
    'ORG-salamanca',
  );
  assert.equal(top(q({ type: 'Organization', names: ['mit'], ip: '18.9.22.69' }))?.id, 'ORG-mit');
});

test('a url decides between duplicate names; a name alone is not sure of either', () => {
  const withUrl = matcher.match(
    q({ type: 'Organization', names: ['National University'], urls: ['nu.edu.ph'] }),
  );
  assert.equal(withUrl[0].id, 'ORG-nu2');
  assert.ok(withUrl[0].score > 0.5);
  const nameOnly = matcher.match(q({ type: 'Organization', names: ['National University'] }));
  assert.deepEqual(
    nameOnly
      .slice(0, 2)
      .map((c) => c.id)
      .sort(),
    ['ORG-nu1', 'ORG-nu2'],
  );
  assert.ok(nameOnly[0].score < withUrl[0].score, 'two equal candidates share the belief');
});

test('a profile on a shared host finds its owner only; the host alone is the site itself', () => {
  const hits = (url: string) =>
    matcher
      .match(q({ type: 'Organization', urls: [url] }), { limit: 5 })
      .filter((c) => c.score >= matcher.defaultThresholdFor('Organization'))
      .map((c) => c.id);
  assert.deepEqual(hits('https://www.linkedin.com/company/Acme-Robotics/'), ['ORG-acme']);
  assert.deepEqual(hits('https://uk.linkedin.com/company/zeta-labs?trk=feed'), ['ORG-zeta']);
  assert.deepEqual(hits('twitter.com/acmerobotics'), ['ORG-acme']);
  // Another company's page: nobody in the graph, not everyone with a LinkedIn page.
  const other = matcher.match(q({ type: 'Organization', urls: ['linkedin.com/company/omega-corp'] }));
  assert.deepEqual(
    other.map((c) => c.id),
    [],
  );
  assert.deepEqual(hits('https://www.linkedin.com'), ['ORG-linkedin']);
  // A name with another company's page on the same site: that page is evidence against.
  const [acme] = matcher.match(q({ type: 'Organization', names: ['Acme Robotics'] }));
  const [withOther] = matcher.match(
    q({ type: 'Organization', names: ['Acme Robotics'], urls: ['linkedin.com/company/zeta-labs'] }),
  );
  assert.equal(acme.id, 'ORG-acme');
  assert.ok(withOther.id !== 'ORG-acme' || withOther.score < acme.score);
});

test('scores are probabilities, sorted, explained, and limited to the query type', () => {
  const results = matcher.match(q({ type: 'Person', names: ['Bill Lee'], emails: ['w.lee@acme-labs.com'] }), {
    limit: 5,
  });
  assert.equal(results[0].id, 'PER-wlee');
  assert.ok(results[0].score > matcher.defaultThresholdFor('Person'));
  for (const r of results) {
    assert.equal(r.type, 'Person');
    assert.ok(r.score >= 0 && r.score <= 1);
    assert.ok(r.esscore > 0);
  }
  for (let i = 1; i < results.length; i++) assert.ok(results[i - 1].score >= results[i].score);
  const { explanation } = results[0];
  assert.equal(explanation.features.emailExact, 1);
  assert.match(explanation.summary, /e-mail/);
  // Contributions add up to the log-odds of the score (where a double still tells them).
  const namesakes = matcher.match(q({ type: 'Person', names: ['Lee'] }), { limit: 5 });
  const checked = [...results, ...namesakes].filter((r) => r.score > 0.001 && r.score < 0.999);
  assert.ok(checked.length > 0);
  for (const r of checked) {
    const sum = Object.values(r.explanation.contributions).reduce((a, b) => a + b, 0);
    const logOdds = Math.log(r.score / (1 - r.score));
    assert.ok(Math.abs(sum - logOdds) < 0.05, `contributions ${sum} vs log-odds ${logOdds}`);
  }
  // A query that fits several candidates: their probabilities and "none" share 1.
  const total = namesakes.reduce((a, r) => a + r.score, 0);
  assert.ok(namesakes.length >= 2 && total <= 1 + 1e-9, `${total}`);
});

test('an explanation lists the bias first, the features in the model order, the rivals last; its summary is read from them', () => {
  const results = [
    ...matcher.match(q({ type: 'Person', names: ['Bill Lee'], emails: ['w.lee@acme-labs.com'] }), {
      limit: 5,
    }),
    ...matcher.match(q({ type: 'Person', names: ['Lee'] }), { limit: 5 }),
    ...matcher.match(q({ type: 'Organization', names: ['National University'], urls: ['mit.edu'] }), {
      limit: 5,
    }),
  ];
  assert.ok(results.length >= 4);
  let withRivals = 0;
  for (const r of results) {
    const { contributions, features, summary } = r.explanation;
    const names = Object.keys(contributions);
    assert.equal(names[0], 'bias');
    if ('otherCandidates' in contributions) {
      withRivals++;
      assert.equal(names.at(-1), 'otherCandidates');
      assert.ok(contributions.otherCandidates <= 0);
    }
    // Only features with evidence, each with a contribution of its own (rounded to 3 places).
    for (const [name, value] of Object.entries(features)) {
      assert.notEqual(value, 0, name);
      assert.equal(Math.round((value as number) * 1000) / 1000, value, name);
    }
    for (const value of Object.values(contributions)) assert.equal(Math.round(value * 1000) / 1000, value);
    // "score 0.912; for: …; against: …": at most four labels each way, none twice.
    const match = /^score (\d\.\d{3})(?:; for: ([^;]+))?(?:; against: ([^;]+))?$/.exec(summary);
    assert.ok(match, summary);
    assert.equal(match[1], r.score.toFixed(3));
    const pros = match[2]?.split(', ') ?? [];
    const cons = match[3]?.split(', ') ?? [];
    assert.ok(pros.length <= 4 && cons.length <= 4, summary);
    assert.equal(new Set([...pros, ...cons]).size, pros.length + cons.length, summary);
  }
  assert.ok(withRivals > 0);
  // The e-mail is the strongest evidence for Bill Lee: listed first among the reasons for.
  assert.match(results[0].explanation.summary, /; for: e-mail/);
});

test('a scored candidate shows its fields and explanation as a plain object does; the explanation is built once', () => {
  const [first, second] = matcher.match(q({ type: 'Person', names: ['Lee'] }), { limit: 5 });
  assert.ok(first && second);
  assert.equal(Object.getPrototypeOf(first), Object.prototype);
  assert.deepEqual(Object.keys(first), [
    'ref',
    'id',
    'type',
    'score',
    'baseScore',
    'esscore',
    'linear',
    'explanation',
  ]);
  // Read once, the same object after; each candidate its own.
  assert.equal(first.explanation, first.explanation);
  assert.notEqual(first.explanation, second.explanation);
  assert.match(first.explanation.summary, new RegExp(`^score ${first.score.toFixed(3)}`));
  // Spread and JSON read the explanation as any enumerable property; nothing else shows.
  const copy = { ...first };
  assert.equal(copy.explanation, first.explanation);
  assert.deepEqual(Object.getOwnPropertySymbols(copy), []);
  assert.deepEqual(JSON.parse(JSON.stringify(first)), JSON.parse(JSON.stringify(copy)));
  assert.deepEqual(structuredClone(first).explanation, JSON.parse(JSON.stringify(first.explanation)));
});

test('nothing plausible, nothing identifying: empty or low', () => {
  assert.deepEqual(matcher.match(q({ type: 'Organization', location: 'Hungary' })), []);
  const nobody = matcher.match(q({ type: 'Person', names: ['Zebulon Quixotic'] }));
  assert.ok(nobody.length === 0 || nobody[0].score < matcher.defaultThresholdFor('Person'));
  const wrongPlace = matcher.match(
    q({ type: 'Person', names: ['Anna Lee'], emails: ['anna.lee@elsewhere.org'], location: 'Glasgow' }),
  );
  const rightPlace = matcher.match(q({ type: 'Person', names: ['Anna Lee'], location: 'London' }));
  assert.equal(rightPlace[0].id, 'PER-alee');
  assert.ok(wrongPlace.length === 0 || wrongPlace[0].score < rightPlace[0].score);
});

test('the matcher sees writes made after it was created (caches follow the graph version)', () => {
  const query = q({ type: 'Organization', names: ['Kunitachi College of Music'] });
  assert.ok(matcher.match(query).every((c) => c.id !== 'ORG-kunitachi'));
  write([
    {
      id: 'ORG-kunitachi',
      type: 'Organization',
      name: 'Kunitachi College of Music',
      homepageUri: 'kunitachi.ac.jp',
      allUris: ['kunitachi.ac.jp'],
    },
  ]);
  assert.equal(matcher.match(query)[0]?.id, 'ORG-kunitachi');
});

/** A matcher over the test store that records the keys whose postings it reads. */
function recordingMatcher(postingsCacheBytes?: number): { matcher: Matcher; read: string[][] } {
  const entities = storage.entities;
  const read: string[][] = [];
  const matcher = createMatcher(
    {
      refsForKeys: (keys, limit) => {
        read.push([...keys]);
        return entities.refsForKeys(keys, limit);
      },
      profiles: (refs) => entities.profiles(refs),
      termCounts: (prefix) => entities.termCounts(prefix),
      counts: () => entities.counts(),
      version: () => entities.version(),
    },
    { cache: { postingsBytes: postingsCacheBytes } },
  );
  return { matcher, read };
}

test('postings are read once per graph version: a repeated query reads none and answers the same', () => {
  const { matcher: recording, read } = recordingMatcher();
  const query = q({ type: 'Organization', names: ['Univ. of Pecs'], urls: ['pte.hu'] });
  const first = recording.match(query);
  assert.equal(first[0]?.id, 'ORG-pecs');
  assert.ok(read.flat().length > 0);
  const readBefore = read.length;
  assert.deepEqual(recording.match(query), first);
  assert.equal(read.length, readBefore, 'no postings read again');
  // A query sharing the name (the same name key) but not the url reads only the url's keys.
  assert.ok(read.flat().includes('on:pecs university'), read.flat().join(' '));
  recording.match(q({ type: 'Organization', names: ['University of Pecs'], urls: ['mit.edu'] }));
  const again = read.slice(readBefore).flat();
  assert.ok(again.includes('h:mit.edu') && !again.includes('on:pecs university'), again.join(' '));
  // A write changes the graph version: everything is read again.
  write([{ id: 'ORG-pecs-2', type: 'Organization', name: 'Pécs Music School', allUris: ['zenede.pte.hu'] }]);
  const readAfterWrite = read.length;
  assert.equal(recording.match(query)[0]?.id, 'ORG-pecs');
  assert.ok(read.slice(readAfterWrite).flat().includes('h:pte.hu'));
});

test('the postings kept are bounded: past the bound they are dropped and read again', () => {
  const query = q({ type: 'Organization', names: ['Univ. of Pecs'], urls: ['pte.hu'] });
  const { matcher: bounded, read } = recordingMatcher(200);
  const first = bounded.match(query);
  const readOnce = read.length;
  // More postings than the bound: the second query finds the cache emptied and reads them again.
  assert.deepEqual(bounded.match(query), first);
  assert.ok(read.length > readOnce);
  const { matcher: roomy, read: readRoomy } = recordingMatcher(100_000);
  roomy.match(query);
  const roomyOnce = readRoomy.length;
  roomy.match(query);
  assert.equal(readRoomy.length, roomyOnce);
});

test('an ip finds the organization owning the range and, for a person, its current employees', () => {
  write([
    {
      id: 'PER-mit-staff',
      type: 'Person',
      name: 'Grace Hopper',
      employments: [{ isCurrent: true, title: 'professor', employer: { id: 'ORG-mit', name: 'MIT' } }],
    },
    {
      id: 'PER-other',
      type: 'Person',
      name: 'Grace Hopper',
      employments: [{ isCurrent: true, employer: { id: 'ORG-pecs', name: 'University of Pécs' } }],
    },
  ]);
  const people = matcher.match(q({ type: 'Person', names: ['Grace Hopper'], ip: '18.9.22.69' }));
  assert.equal(people[0].id, 'PER-mit-staff');
  assert.equal(people[0].explanation.features.ipMatch, 1);
  assert.ok(people[0].score > (people.find((p) => p.id === 'PER-other')?.score ?? 0));
  const v6 = matcher.match(
    q({ type: 'Organization', names: ['Massachusetts Inst. of Tech.'], ip: '2603:4000:1::1' }),
  );
  assert.equal(v6[0].id, 'ORG-mit');
  assert.equal(v6[0].explanation.features.ipMatch, 1);
  // No ranges anywhere near: no evidence, no error.
  assert.equal(
    matcher.match(q({ type: 'Organization', names: ['University of Pecs'], ip: 'not-an-ip' }))[0].id,
    'ORG-pecs',
  );
});

test('an exact e-mail wins over namesakes whose addresses are one edit away', () => {
  const store = openSqliteStorage(':memory:');
  const people = Array.from(
    { length: 12 },
    (_, i): Entity => ({
      id: `PER-amber-${i * 20}`,
      type: 'Person',
      name: 'Alice Amber',
      emailAddresses: [{ contactString: `alice.amber${i * 20}@example.com` }],
    }),
  );
  writeIndexed(store.entities, people);
  const engine = createMatcher(store.entities);
  for (const i of [0, 20, 100]) {
    const [top, second] = engine.match(
      { type: 'Person', names: [], urls: [], emails: [`alice.amber${i}@example.com`], phones: [] },
      { limit: 2 },
    );
    assert.equal(top.id, `PER-amber-${i}`);
    assert.ok(top.score > second.score, `${top.score} vs ${second.score}`);
  }
  store.close();
});

test('warm-up loads every vocabulary once; matchers sharing them build none again, and queries agree', () => {
  const share = new VocabularyShare(createVocabularyShareData());
  const first = createMatcher(storage.entities, { share });
  first.warmUp();
  // Organization names, person names, person places, person e-mail words.
  assert.equal(share.built, 4);
  const query: MatchQuery = {
    type: 'Organization',
    names: ['Univ of Pecs'],
    urls: [],
    emails: [],
    phones: [],
  };
  const [hit] = first.match(query);
  assert.equal(share.built, 4);
  // A second matcher on the same share (another thread would get the tables the same way).
  const second = createMatcher(storage.entities, { share });
  second.warmUp();
  assert.equal(share.built, 4);
  const [again] = second.match(query);
  assert.equal(again.id, hit.id);
  assert.equal(again.score, hit.score);
  // And a matcher of its own answers the same.
  assert.equal(matcher.match(query)[0].score, hit.score);
  share.close();
});

test('retrieval keeps the candidates with the best esscore, equal esscores by lowest ref', () => {
  // "University" is in 40 filler names, Pécs and two National Universities, each with the same
  // weight: which 5 of them are kept is decided by the ref order alone.
  const query = q({ type: 'Organization', names: ['University'] });
  const all = createMatcher(storage.entities, { limits: { ...DEFAULT_LIMITS, maxCandidates: 1000 } }).match(
    query,
    { limit: 1000 },
  );
  const topEsscore = Math.max(...all.map((c) => c.esscore));
  assert.ok(all.filter((c) => c.esscore === topEsscore).length >= 43);
  const expected = [...all]
    .sort((a, b) => b.esscore - a.esscore || a.ref - b.ref)
    .slice(0, 5)
    .map((c) => c.ref);
  const five = createMatcher(storage.entities, { limits: { ...DEFAULT_LIMITS, maxCandidates: 5 } }).match(
    query,
    { limit: 1000 },
  );
  assert.deepEqual(
    five.map((c) => c.ref).sort((a, b) => a - b),
    [...expected].sort((a, b) => a - b),
  );
  // A name with a rarer word besides is kept first among them whatever its ref.
  const pecs = createMatcher(storage.entities, { limits: { ...DEFAULT_LIMITS, maxCandidates: 1 } }).match(
    q({ type: 'Organization', names: ['Pecs University'] }),
  );
  assert.deepEqual(
    pecs.map((c) => c.id),
    ['ORG-pecs'],
  );
});

test('profileCandidates pairs each row with its retrieved esscore, whatever order the source answers in', () => {
  const retrieved = [
    { ref: 1, esscore: 0.1 },
    { ref: 2, esscore: 0.2 },
    { ref: 3, esscore: 0.3 },
    { ref: 4, esscore: 0.4 },
  ] as unknown as RetrievedCandidate[];
  const row = (ref: number, type: 'Person' | 'Organization') => ({
    ref,
    id: `E${ref}`,
    type,
    profile: { n: [] },
  });
  const person = { type: 'Person' } as AnalyzedQuery;
  const paired = (refs: number[]) =>
    profileCandidates(person, retrieved, {
      profiles: () => refs.map((ref) => row(ref, ref === 2 ? 'Organization' : 'Person')),
    }).map((c) => [c.ref, c.esscore]);
  // In the order asked (a caching source), a row missing, a row of the other type left out.
  assert.deepEqual(paired([1, 2, 4]), [
    [1, 0.1],
    [4, 0.4],
  ]);
  // In another order (an uncached store): the rows' order, each with its own esscore.
  assert.deepEqual(paired([4, 3, 1]), [
    [4, 0.4],
    [3, 0.3],
    [1, 0.1],
  ]);
  assert.deepEqual(paired([3, 1, 4]), [
    [3, 0.3],
    [1, 0.1],
    [4, 0.4],
  ]);
});

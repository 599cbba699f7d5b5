/**
 * In-process enhance latency: the matcher alone (no HTTP), over a generated graph.
 *
 *   npx node bench/enhance-inprocess.ts [--orgs 1000000] [--persons 1000000] [--queries 20000]
 *                                       [--seed 1] [--data DIR] [--generator demo|synthetic]
 *                                       [--queries-out FILE] [--queries-in FILE]
 *                                       [--about-first N]
 *
 * Without --data, a seeded graph is generated once into a cache directory under the system temp
 * dir and reused by later runs: the project's demo graph (`--generator demo`, default, loaded
 * through the import path) or this benchmark's own (`--generator synthetic`,
 * bench/support/match-graph.ts, which also times `indexEntity` alone). Queries are noisy
 * variants of sampled entities (the fitting's query generator: typos, abbreviations, missing
 * fields, URL forms, …), 8% of them about entities made up on the spot. Prints the cost of
 * `indexEntity` per entity (when it generates), the warm-up (vocabularies), p50/p90/p99/max per
 * query, and RSS. Never fails on timing.
 *
 * `--about-first N` (demo graph only) makes the queries about the first N organizations and
 * the first N persons of the graph (by their demo ids), so that graphs of different sizes are
 * asked about the same entities: organizations are identical in every size of a seed's graph,
 * persons keep their names and titles but not their employers (drawn from all organizations).
 * With it the top-candidate rate of a 20k graph and of a 1M graph compare fairly.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDemoGraph } from '../src/import/index.ts';
import { demoOrganizationId, demoPersonId, type Entity } from '../src/kg/index.ts';
import { createMatcher, type MatchQuery } from '../src/match/index.ts';
import { generateQuery } from '../src/match/training/query-generator.ts';
import { Random } from '../src/random.ts';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { writeSyntheticGraph } from './support/match-graph.ts';
import { type Unresolvable, UNRESOLVABLE, unresolvable } from './support/namesakes.ts';
import { warmPageCache } from './support/page-cache.ts';
import { queryShape } from './support/queries.ts';
import { FIGURES, printFigure, printTarget } from './support/targets.ts';

const { values } = parseArgs({
  options: {
    orgs: { type: 'string', default: '1000000' },
    persons: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
    data: { type: 'string' },
    generator: { type: 'string', default: 'demo' },
    'queries-out': { type: 'string' },
    'queries-in': { type: 'string' },
    'about-first': { type: 'string' },
  },
});
const sizes = { organizations: Number(values.orgs), persons: Number(values.persons) };
const seed = Number(values.seed);
const queryCount = Number(values.queries);
const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(2)}%`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

console.log(`enhance-inprocess: ${process.argv.slice(2).join(' ') || '(defaults)'}`);
let dataDir = values.data;
if (!dataDir) {
  const generator = values.generator === 'synthetic' ? 'synthetic' : 'demo';
  const suffix = generator === 'demo' ? '-demo' : '';
  dataDir = path.join(
    tmpdir(),
    `quarry-bench-match-${sizes.organizations}-${sizes.persons}-${seed}${suffix}`,
  );
  const done = path.join(dataDir, 'complete');
  if (!existsSync(done)) {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    const storage = openSqliteStorage(sqliteFileFor(dataDir));
    if (generator === 'demo') {
      // The project's demo graph (kg/demo-data.ts), loaded through the import path.
      const summary = loadDemoGraph(storage.entities, { ...sizes, seed });
      console.log(
        `graph: demo graph, ${summary.created} entities loaded in ${(summary.elapsedMs / 1000).toFixed(1)} s into ${dataDir}`,
      );
    } else {
      const result = writeSyntheticGraph(storage.entities, sizes, seed, (n) =>
        process.stderr.write(`  generated ${n}\n`),
      );
      console.log(
        `graph: ${result.entities} entities generated in ${(result.totalMs / 1000).toFixed(1)} s into ${dataDir}`,
      );
      console.log(
        `indexEntity: ${((result.indexMs * 1000) / result.entities).toFixed(1)} µs per entity (${Math.round(result.entities / (result.indexMs / 1000))} entities/s on one core)`,
      );
    }
    storage.close();
    mkdirSync(done);
  } else {
    console.log(`graph: reusing ${dataDir}`);
  }
}

// Opened writable once so that migrations added since the graph was built are applied.
openSqliteStorage(sqliteFileFor(dataDir)).close();
const storage = openSqliteStorage(sqliteFileFor(dataDir), { readOnly: true });
const counts = storage.entities.counts();
console.log(`graph: ${counts.organizations} organizations, ${counts.persons} persons`);

// Sample entities by ref and turn them into noisy queries (or read them from --queries-in).
/** A query and the id of the entity it was made from (`null`: a made-up one, about nobody). */
interface BenchQuery {
  readonly query: MatchQuery;
  readonly expected: string | null;
}
const queries: BenchQuery[] = [];
if (values['queries-in']) {
  for (const line of readFileSync(values['queries-in'], 'utf8').split('\n')) {
    if (line.trim() !== '' && queries.length < queryCount) queries.push(JSON.parse(line) as BenchQuery);
  }
  console.log(`queries: ${queries.length} read from ${values['queries-in']}`);
} else {
  const random = new Random(seed + 1000);
  const maxRef = counts.organizations + counts.persons;
  const aboutFirst = values['about-first'] === undefined ? undefined : Number(values['about-first']);
  const sampled: Entity[] = [];
  while (sampled.length < Math.min(queryCount, 5000)) {
    const stored =
      aboutFirst === undefined
        ? storage.entities.getByRefs([1 + random.int(maxRef)])[0]
        : storage.entities.getById(
            random.chance(0.5)
              ? demoOrganizationId(random.int(aboutFirst), seed)
              : demoPersonId(random.int(aboutFirst), seed),
          );
    if (stored) sampled.push(stored.doc);
  }
  while (queries.length < queryCount) {
    const entity = random.pick(sampled);
    const query = generateQuery(entity, random, sampled);
    if (!query) continue;
    // Some queries about nobody: a made-up surname or company word.
    if (random.chance(0.08) && query.names.length)
      queries.push({ query: { ...query, names: [`${query.names[0]} Zyxwvut`] }, expected: null });
    else queries.push({ query, expected: entity.id });
  }
}
if (values['queries-out']) {
  writeFileSync(values['queries-out'], queries.map((q) => `${JSON.stringify(q)}\n`).join(''));
  console.log(`queries: written to ${values['queries-out']}`);
}

const matcher = createMatcher(storage.entities);
let t = performance.now();
matcher.match({ type: 'Organization', names: ['warm up'], urls: [], emails: [], phones: [] });
matcher.match({ type: 'Person', names: ['warm up'], urls: [], emails: [], phones: [] });
console.log(`warm-up (vocabularies): ${(performance.now() - t).toFixed(0)} ms`);

console.log(warmPageCache(sqliteFileFor(dataDir)));
const loadBefore = loadavg();
// One untimed pass over a slice warms the SQLite page cache like a running server would be.
for (const { query } of queries.slice(0, 2000)) matcher.match(query, { limit: 10 });
const times = new Float64Array(queries.length);
let hits = 0;
let matchable = 0;
let topRight = 0;
let hitRight = 0;
const byType = {
  Organization: { matchable: 0, topRight: 0, tied: 0, listed: 0 },
  Person: { matchable: 0, topRight: 0, tied: 0, listed: 0 },
};
/** Person queries made from a graph entity by shape, and those whose entity was not listed. */
const personQueriesByShape = new Map<string, number>();
const personMissesByShape = new Map<string, number>();
/** Person queries made from a graph entity, and whether their top candidate was right. */
const personAnswers: { readonly query: MatchQuery; readonly expected: string; readonly right: boolean }[] =
  [];
// CPU time of the whole loop too: on a machine shared with other work, wall-clock percentiles
// include time spent waiting for a core, the mean CPU time per query does not.
const cpuBefore = process.threadCpuUsage();
// The whole process too: V8's helper threads (parallel GC, concurrent compiles) work for the
// matcher as they do for a server's threads, where `bench/http.ts` counts them per request.
const processCpuBefore = process.cpuUsage();
const loopStarted = performance.now();
for (let i = 0; i < queries.length; i++) {
  t = performance.now();
  const { query, expected } = queries[i];
  const result = matcher.match(query, { limit: 10 });
  times[i] = performance.now() - t;
  const hit = result.length > 0 && result[0].score >= matcher.defaultThresholdFor(query.type);
  if (hit) hits++;
  if (expected !== null) {
    matchable++;
    const ofType = byType[query.type];
    ofType.matchable++;
    if (result[0]?.id === expected) {
      topRight++;
      ofType.topRight++;
      if (hit) hitRight++;
    } else if (result.some((c) => c.id === expected && c.score === result[0].score)) {
      // Scored exactly as the top one: nothing in the query tells the two apart (namesakes).
      ofType.tied++;
    }
    if (result.some((c) => c.id === expected)) ofType.listed++;
    else if (query.type === 'Person') {
      const shape = queryShape(query);
      personMissesByShape.set(shape, (personMissesByShape.get(shape) ?? 0) + 1);
    }
  }
  if (expected !== null && query.type === 'Person') {
    personAnswers.push({ query, expected, right: result[0]?.id === expected });
    const shape = queryShape(query);
    personQueriesByShape.set(shape, (personQueriesByShape.get(shape) ?? 0) + 1);
  }
}
const loopMs = performance.now() - loopStarted;
const cpuUsed = process.threadCpuUsage(cpuBefore);
const processCpuUsed = process.cpuUsage(processCpuBefore);
times.sort();
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(3);
console.log(
  `queries: ${queries.length} (hits at the default thresholds, Organization ${matcher.defaultThresholdFor('Organization')} / Person ${matcher.defaultThresholdFor('Person')}: ${hits})`,
);
console.log(
  `answers: of ${matchable} queries made from a graph entity, its entity is the top candidate in ${topRight} (${pct(topRight, matchable)}) and a hit at the default threshold in ${hitRight} (${pct(hitRight, matchable)}); hits right ${hitRight} of ${hits} (${pct(hitRight, hits)})`,
);
console.log(
  `top candidate right by type: ${Object.entries(byType)
    .map(([type, t]) => `${type} ${t.topRight} of ${t.matchable} (${pct(t.topRight, t.matchable)})`)
    .join(', ')}`,
);
console.log(
  `the entity among the first 10 candidates by type: ${Object.entries(byType)
    .map(([type, t]) => `${type} ${t.listed} of ${t.matchable} (${pct(t.listed, t.matchable)})`)
    .join(', ')}`,
);
console.log(
  `top candidate right or tied with it (the query's evidence cannot tell them apart) by type: ${Object.entries(
    byType,
  )
    .map(
      ([type, t]) =>
        `${type} ${t.topRight + t.tied} of ${t.matchable} (${pct(t.topRight + t.tied, t.matchable)})`,
    )
    .join(', ')}`,
);
// After the timed loop: which Person queries no matcher can resolve (bench/support/namesakes.ts).
const resolvable = { queries: 0, right: 0 };
const ties = Object.fromEntries(UNRESOLVABLE.map((c) => [c, 0])) as Record<Unresolvable, number>;
for (const { query, expected, right } of personAnswers) {
  const tie = unresolvable(storage.entities, query, expected);
  if (tie) ties[tie]++;
  else {
    resolvable.queries++;
    if (right) resolvable.right++;
  }
}
const unresolved = personAnswers.length - resolvable.queries;
console.log(
  `Person queries another person of the graph answers as well (bench/support/namesakes.ts: their name, and place or title, or the name a free-mail address spells, or a phone number and place, are someone else's too): ${unresolved} of ${personAnswers.length} (${pct(unresolved, personAnswers.length)}; name ${ties.unresolvable}, title ${ties['same title']}, free-mail ${ties['free-mail']}, phone ${ties['same phone']}); top candidate right among the others (resolvable): ${resolvable.right} of ${resolvable.queries} (${pct(resolvable.right, resolvable.queries)})`,
);
console.log(
  `Person queries whose entity is not among the first 10, by the fields they give (not listed / queries): ${[
    ...personQueriesByShape,
  ]
    .sort((a, b) => (personMissesByShape.get(b[0]) ?? 0) - (personMissesByShape.get(a[0]) ?? 0))
    .map(([shape, n]) => `${shape} ${personMissesByShape.get(shape) ?? 0}/${n}`)
    .join(', ')}`,
);
console.log(
  `load average before the timed loop: ${loadBefore.map((l) => l.toFixed(1)).join(' ')} (${availableParallelism()} cores)`,
);
console.log(`enhance in-process p50: ${at(0.5)} ms`);
console.log(`enhance in-process p90: ${at(0.9)} ms`);
console.log(`enhance in-process p99: ${at(0.99)} ms`);
console.log(`enhance in-process max: ${times[times.length - 1].toFixed(3)} ms`);
console.log(
  `enhance in-process mean: ${(loopMs / queries.length).toFixed(3)} ms wall, ${((cpuUsed.user + cpuUsed.system) / 1000 / queries.length).toFixed(3)} ms cpu (the matching thread; the whole process, V8's helper threads included: ${((processCpuUsed.user + processCpuUsed.system) / 1000 / queries.length).toFixed(3)} ms)`,
);
console.log(`rss: ${mib(process.memoryUsage().rss)}`);
// The whole process's CPU, as the servers' figures count theirs (V8's helper threads included).
// Issue 30's ratios no longer divide by this figure: `bench/http.ts` and `bench/bulk.ts` time the
// matcher on their own queries around their load (bench/support/paired-matcher.ts).
printFigure({
  name: FIGURES.matcherCpu,
  value: Number(((processCpuUsed.user + processCpuUsed.system) / queries.length).toFixed(1)),
  unit: 'µs',
});
printTarget({
  name: 'enhance in-process p50 (issue 2)',
  value: Number(at(0.5)),
  bound: 'max',
  limit: 0.5,
  unit: 'ms',
});
printTarget({
  name: 'enhance in-process p99 (issue 2)',
  value: Number(at(0.99)),
  bound: 'max',
  limit: 5,
  unit: 'ms',
});
storage.close();

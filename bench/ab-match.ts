/**
 * The matcher of several checkouts against their stores, in one process: CPU per query of each
 * over the same queries, timed in alternating blocks.
 *
 *   npx node bench/ab-match.ts --queries FILE [--count 10000] LABEL=CHECKOUT=DATA_DIR[=MMAP_MIB] …
 *
 * Each side is a checkout of the project (a git worktree with node_modules, e.g. `git worktree
 * add --detach /tmp/pre22 <rev>`) and the data directory of a store that checkout imported (a
 * store is indexed by its own version of `indexEntity`; `bench/enhance-inprocess.ts` builds one
 * under the temporary directory). FILE holds `{"query": …}` lines (`enhance-inprocess.ts
 * --queries-out`). Every side warms its vocabularies and runs the first 2,000 queries untimed,
 * then the next COUNT are run in blocks of 250, each block by every side in turn (the order
 * reversed every other block). On a shared host one workload's CPU per query varies by 1.5x
 * from process to process; side by side in one process the ratio holds better (still ±10% on
 * a 2-core host at load 13: run it more than once). Prints each side's CPU per query, its ratio
 * to the first side, and whether the top candidates of the last two sides agree.
 *
 * `--explain` also reads every returned candidate's explanation (as an enhance answer's
 * `searchInfo` does), inside the timed blocks, and checks that the explanations of the last two
 * sides are the same JSON text.
 *
 * MMAP_MIB opens that side's store with `PRAGMA mmap_size` of that many MiB (the
 * `QUARRY_SQLITE_MMAP_MIB` setting; a checkout older than it ignores it): the same checkout and
 * store twice, with and without, compares the two in one process.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { MatchQuery } from '../src/match/index.ts';

const BLOCK = 250;
const WARM = 2000;

const { values, positionals } = parseArgs({
  options: {
    queries: { type: 'string' },
    count: { type: 'string', default: '10000' },
    explain: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
if (!values.queries || positionals.length === 0) {
  throw new Error('usage: ab-match.ts --queries FILE [--count N] LABEL=CHECKOUT=DATA_DIR[=MMAP_MIB] …');
}
const count = Number(values.count);
const queries: MatchQuery[] = [];
for (const line of readFileSync(values.queries, 'utf8').split('\n')) {
  if (line.trim() !== '' && queries.length < WARM + count)
    queries.push((JSON.parse(line) as { query: MatchQuery }).query);
}

interface Side {
  readonly label: string;
  readonly match: (query: MatchQuery) => { id: string; explanation: unknown }[];
  cpuMicros: number;
  readonly tops: string[];
  readonly explanations: unknown[];
}

const sides: Side[] = [];
for (const spec of positionals) {
  const [label, checkout, dataDir, mmapMiB] = spec.split('=');
  if (!label || !checkout || !dataDir)
    throw new Error(`${spec}: expected LABEL=CHECKOUT=DATA_DIR[=MMAP_MIB]`);
  // Another checkout's modules: their types are this one's as far as the benchmark uses them.
  const { createMatcher } = (await import(
    path.resolve(checkout, 'src/match/index.ts')
  )) as typeof import('../src/match/index.ts');
  const { openSqliteStorage, sqliteFileFor } = (await import(
    path.resolve(checkout, 'src/storage/sqlite/index.ts')
  )) as typeof import('../src/storage/sqlite/index.ts');
  const storage = openSqliteStorage(sqliteFileFor(dataDir), {
    readOnly: true,
    mmapMiB: Number(mmapMiB ?? 0),
  });
  const matcher = createMatcher(storage.entities);
  const started = performance.now();
  for (const query of queries.slice(0, WARM)) matcher.match(query, { limit: 10 });
  console.log(`${label}: warmed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  sides.push({
    label,
    match: (query) => matcher.match(query, { limit: 10 }),
    cpuMicros: 0,
    tops: [],
    explanations: [],
  });
}

const timed = queries.slice(WARM);
const loadBefore = loadavg()[0];
for (let start = 0, block = 0; start < timed.length; start += BLOCK, block++) {
  const slice = timed.slice(start, start + BLOCK);
  for (const side of block % 2 ? [...sides].reverse() : sides) {
    const before = process.threadCpuUsage();
    for (const query of slice) {
      const candidates = side.match(query);
      side.tops.push(candidates[0]?.id ?? '');
      if (values.explain) for (const candidate of candidates) side.explanations.push(candidate.explanation);
    }
    const used = process.threadCpuUsage(before);
    side.cpuMicros += used.user + used.system;
  }
}
for (const side of sides) {
  console.log(
    `${side.label}: ${(side.cpuMicros / 1000 / timed.length).toFixed(3)} ms CPU per query over ${timed.length} (ratio to ${sides[0].label} ${(side.cpuMicros / sides[0].cpuMicros).toFixed(3)})`,
  );
}
if (sides.length >= 2) {
  const [second, last] = sides.slice(-2);
  const same = second.tops.every((id, i) => id === last.tops[i]);
  console.log(`top candidates of ${second.label} and ${last.label} ${same ? 'all equal' : 'DIFFER'}`);
  if (values.explain) {
    const text = (side: Side) => side.explanations.map((e) => JSON.stringify(e)).join('\n');
    const equal = text(second) === text(last);
    console.log(
      `explanations (${last.explanations.length}) of ${second.label} and ${last.label} ${equal ? 'all equal' : 'DIFFER'}`,
    );
  }
}
console.log(`load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`);

/**
 * A bulk worker's answering, in-process: records answered one by one (an `Enhancer` over the
 * matcher, as before issue 30) against a batch at a time (`BatchReads`: the batch's searches
 * together, `Matcher.searchMany`, and its answers' entities in one read), alternating, over one
 * store connection each. Prints CPU per record of each pass and checks that every answer is the
 * same text.
 *
 *   npx node bench/batch-search.ts [--orgs 50000] [--persons 50000] [--records 20000]
 *                                  [--batch 256] [--rounds 3] [--seed 1]
 *
 * The graph is the demo graph `bench/enhance-inprocess.ts` generates (same cache directory, so
 * either builds it for the other). Never fails on timing.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { BatchReads, Enhancer, type ParsedEnhanceRequest } from '../src/enhance/index.ts';
import { createMatcher } from '../src/match/index.ts';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { warmPageCache } from './support/page-cache.ts';
import { cachedDemoGraph, sampledBulkRequests } from './support/demo-graph.ts';

const { values } = parseArgs({
  options: {
    orgs: { type: 'string', default: '50000' },
    persons: { type: 'string', default: '50000' },
    records: { type: 'string', default: '20000' },
    batch: { type: 'string', default: '256' },
    rounds: { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
  },
});
const sizes = { organizations: Number(values.orgs), persons: Number(values.persons) };
const seed = Number(values.seed);
const batchSize = Number(values.batch);
const dataDir = cachedDemoGraph(sizes, seed);
openSqliteStorage(sqliteFileFor(dataDir)).close();

/** An enhancer as a bulk worker has one: its own read-only connection (32 MiB page cache). */
function worker(batched: boolean) {
  const storage = openSqliteStorage(sqliteFileFor(dataDir), { readOnly: true, cacheMiB: 32 });
  const matcher = createMatcher(storage.entities);
  const reads = new BatchReads(matcher, storage.entities);
  const enhancer = new Enhancer(batched ? reads.deps : { entities: storage.entities, matcher });
  enhancer.warmUp();
  return {
    answer(requests: readonly ParsedEnhanceRequest[]): string[] {
      return storage.readSnapshot(() => {
        if (batched) reads.prepare(requests);
        const out = requests.map((request) => JSON.stringify(enhancer.enhance(request, {})));
        reads.clear();
        return out;
      });
    },
  };
}

// Records as a bulk job gets them: noisy queries about sampled entities, as enhance records.
const sampler = openSqliteStorage(sqliteFileFor(dataDir), { readOnly: true });
const requests = sampledBulkRequests(sampler.entities, sizes, seed, Number(values.records));
sampler.close();
console.log(warmPageCache(sqliteFileFor(dataDir)));

const workers = { single: worker(false), batched: worker(true) };
/** Answers every record in batches; CPU µs per record. */
function pass(kind: keyof typeof workers, answers: string[][]): number {
  const before = process.threadCpuUsage();
  for (let from = 0; from < requests.length; from += batchSize)
    answers.push(workers[kind].answer(requests.slice(from, from + batchSize)));
  const used = process.threadCpuUsage(before);
  return (used.user + used.system) / requests.length;
}
// A first pass of each warms the page caches and the JIT.
pass('single', []);
pass('batched', []);
for (let round = 1; round <= Number(values.rounds); round++) {
  const single: string[][] = [];
  const batched: string[][] = [];
  const a = pass('single', single);
  const b = pass('batched', batched);
  const batchedTexts = batched.flat();
  const same = single.flat().every((text, i) => text === batchedTexts[i]);
  console.log(
    `round ${round}: one by one ${a.toFixed(0)} µs CPU/record, batched ${b.toFixed(0)} µs (${(b / a).toFixed(2)}×); answers identical: ${same}; load ${loadavg()[0].toFixed(1)}`,
  );
  if (!same) process.exitCode = 1;
}

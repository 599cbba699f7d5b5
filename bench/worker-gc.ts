/**
 * What a bulk worker's answering leaves to the garbage collector (issue 30): a worker's loop
 * in-process (`BatchReads` over one read-only connection, 256-record batches, the demo graph
 * `bench/batch-search.ts` builds), then one measured pass under V8's sampling heap profiler,
 * keeping only allocations that no scavenge collected. Prints CPU per record and those bytes by
 * allocating function and by stack.
 *
 *   npx node --expose-gc [--trace-gc-nvp] bench/worker-gc.ts [--orgs 50000] [--persons 50000]
 *                                                           [--records 20000] [--top 30]
 *
 * Read the figures with care: "not collected by a scavenge" is what was promoted, what is still
 * live at the end (`--live-only` keeps only that: the long-lived caches), and also the young
 * garbage a full collection happened to free, which follows allocation volume, not lifetime.
 * What a change does to promotion is best read from `--trace-gc-nvp` (the `promoted=` of each
 * `gc=s` line after the two warm-up passes), A/B in one session.
 */
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { BatchReads } from '../src/enhance/batch-reads.ts';
import { Enhancer } from '../src/enhance/index.ts';
import { createMatcher } from '../src/match/index.ts';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { cachedDemoGraph, sampledBulkRequests } from './support/demo-graph.ts';

const { values } = parseArgs({
  options: {
    orgs: { type: 'string', default: '50000' },
    persons: { type: 'string', default: '50000' },
    records: { type: 'string', default: '20000' },
    top: { type: 'string', default: '30' },
    'live-only': { type: 'boolean', default: false },
  },
});
const sizes = { organizations: Number(values.orgs), persons: Number(values.persons) };
const seed = 1;
// The graph of bench/batch-search.ts (either builds it for the other).
const dataDir = cachedDemoGraph(sizes, seed);

const storage = openSqliteStorage(sqliteFileFor(dataDir), { readOnly: true, cacheMiB: 32 });
const reads = new BatchReads(createMatcher(storage.entities), storage.entities);
const enhancer = new Enhancer(reads.deps);
enhancer.warmUp();

// Records as bulk-worker batches get them: noisy queries about sampled entities.
const requests = sampledBulkRequests(storage.entities, sizes, seed, Number(values.records));

/** Answers every record as a worker does (a read snapshot and `prepare` per batch); CPU µs/record. */
function pass(): number {
  const before = process.threadCpuUsage();
  for (let from = 0; from < requests.length; from += 256) {
    const batch = requests.slice(from, from + 256);
    storage.readSnapshot(() => {
      reads.prepare(batch);
      for (const request of batch) JSON.stringify(enhancer.enhance(request, {}));
      reads.clear();
    });
  }
  const used = process.threadCpuUsage(before);
  return (used.user + used.system) / requests.length;
}
console.log(`warm-up passes: ${pass().toFixed(0)}, ${pass().toFixed(0)} µs CPU/record`);

interface ProfileNode {
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly selfSize: number;
  readonly children: ProfileNode[];
}
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: !values['live-only'],
  includeObjectsCollectedByMinorGC: false,
});
const cpu = pass();
const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
session.disconnect();

const byFunction = new Map<string, number>();
const byStack = new Map<string, number>();
let total = 0;
const walk = (node: ProfileNode, stack: readonly string[]) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
  const frames = [name, ...stack];
  if (node.selfSize > 0) {
    total += node.selfSize;
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
    const key = frames.slice(0, 5).join(' < ');
    byStack.set(key, (byStack.get(key) ?? 0) + node.selfSize);
  }
  for (const child of node.children) walk(child, frames);
};
walk(profile.head, []);
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(2).padStart(8);
const top = Number(values.top);
console.log(
  `measured pass: ${cpu.toFixed(0)} µs CPU/record (load ${loadavg()[0].toFixed(1)}); not collected by a scavenge ` +
    `${(total / 2 ** 20).toFixed(1)} MiB, ${(total / requests.length / 1024).toFixed(2)} KiB/record`,
);
console.log('MiB by allocating function:');
for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(mib(bytes), name);
console.log('MiB by stack (5 frames):');
for (const [stack, bytes] of [...byStack].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(mib(bytes), stack);

/**
 * What a credit charge's commit costs a graph reader (issue 30), in one process, A/B interleaved:
 * a read-only connection matches queries as an enhance thread does (one read snapshot per
 * query, 32 MiB page cache), and after each query a writing connection commits a one-row charge
 * either to the graph's file (where the tokens were before migration 4: a scratch table in the
 * graph file stands for them), to the accounts file (where they are now), or not at all. Blocks
 * of queries alternate between the three, so that the machine's load drifts alike for each.
 * Prints, per mode, the reader's CPU and read system calls per query (the writer's own work is
 * not counted).
 *
 *   npx node bench/charge-cache.ts --data <COPY of a graph store> [--queries 3000] [--rounds 6]
 *
 * Writes to the store (the scratch table, a token): give it a copy.
 */
import fs from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Entity } from '../src/kg/index.ts';
import { createMatcher, type MatchQuery } from '../src/match/index.ts';
import { generateQuery } from '../src/match/training/query-generator.ts';
import { Random } from '../src/random.ts';
import { openSqliteDatabase, openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { warmPageCache } from './support/page-cache.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    queries: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '6' },
  },
});
if (!values.data) throw new Error('--data DIR (a copy: the bench writes to it)');
const file = sqliteFileFor(values.data);
const queryCount = Number(values.queries);

const writer = openSqliteDatabase(file);
writer.exec(`CREATE TABLE IF NOT EXISTS main.charge_probe (id TEXT PRIMARY KEY, credits INTEGER);
  INSERT OR REPLACE INTO main.charge_probe VALUES ('probe', 1000000000);
  INSERT OR REPLACE INTO accounts.tokens (id, secret_hash, label, credits, created_at)
    VALUES ('tok_probe', 'charge-cache-probe', 'bench/charge-cache.ts', 1000000000, 0);`);
const charges = {
  graph: writer.prepare("UPDATE main.charge_probe SET credits = credits - 1 WHERE id = 'probe'"),
  accounts: writer.prepare("UPDATE accounts.tokens SET credits = credits - 1 WHERE id = 'tok_probe'"),
};
type Mode = 'graph' | 'accounts' | 'none';
const charge = (mode: Mode) => {
  if (mode === 'none') return;
  writer.exec('BEGIN IMMEDIATE');
  charges[mode].run();
  writer.exec('COMMIT');
};

const storage = openSqliteStorage(file, { readOnly: true, cacheMiB: 32 });
const counts = storage.entities.counts();
const random = new Random(7);
const sampled: Entity[] = [];
while (sampled.length < 3000) {
  const stored = storage.entities.getByRefs([1 + random.int(counts.organizations + counts.persons)])[0];
  if (stored) sampled.push(stored.doc);
}
const queries: MatchQuery[] = [];
while (queries.length < queryCount) {
  const query = generateQuery(random.pick(sampled), random, sampled);
  if (query) queries.push(query);
}
const matcher = createMatcher(storage.entities);
console.log(warmPageCache(file));
for (const query of queries.slice(0, 1000)) storage.readSnapshot(() => matcher.match(query, { limit: 10 }));

/** Read system calls of this thread so far (`syscr`). */
const readCalls = () => Number(/syscr:\s*(\d+)/.exec(fs.readFileSync('/proc/thread-self/io', 'utf8'))?.[1]);
/** The read system calls of `readCalls` itself, subtracted from each measure. */
const overhead = -(readCalls() - readCalls());
const totals: Record<Mode, { cpuUs: number; reads: number; queries: number; blocks: number[] }> = {
  graph: { cpuUs: 0, reads: 0, queries: 0, blocks: [] },
  accounts: { cpuUs: 0, reads: 0, queries: 0, blocks: [] },
  none: { cpuUs: 0, reads: 0, queries: 0, blocks: [] },
};
const load = loadavg()[0];
const rounds = Number(values.rounds);
const blockSize = Math.floor(queries.length / 3);
for (let round = 0; round < rounds; round++) {
  // Each round: every mode once, in a rotating order, over a different third of the queries.
  const modes: Mode[] = (['graph', 'accounts', 'none'] as const).map((_, i, all) => all[(i + round) % 3]);
  for (let m = 0; m < modes.length; m++) {
    const mode = modes[m];
    const block = queries.slice(((m + round) % 3) * blockSize, ((m + round) % 3) * blockSize + blockSize);
    let cpu = 0;
    let reads = 0;
    for (const query of block) {
      const readsBefore = readCalls();
      const before = process.threadCpuUsage();
      storage.readSnapshot(() => matcher.match(query, { limit: 10 }));
      const after = process.threadCpuUsage(before);
      reads += readCalls() - readsBefore - overhead;
      cpu += after.user + after.system;
      charge(mode);
    }
    const total = totals[mode];
    total.cpuUs += cpu;
    total.reads += reads;
    total.queries += block.length;
    total.blocks.push(cpu / block.length);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `charge-cache: ${counts.organizations + counts.persons} entities, ${rounds} rounds × 3 modes × ${blockSize} queries, load ${load.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
);
for (const [mode, total] of Object.entries(totals)) {
  console.log(
    `  commit to ${mode.padEnd(8)}: reader CPU ${(total.cpuUs / total.queries).toFixed(0)} µs/query ` +
      `(median of blocks ${median(total.blocks).toFixed(0)}), read system calls ${(total.reads / total.queries).toFixed(2)}/query`,
  );
}
storage.close();
writer.close();

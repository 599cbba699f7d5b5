/**
 * The matcher over the PostgreSQL bridge, in-process (issue 26): what a match costs in CPU on
 * PostgreSQL — this process's threads (the matcher and the bridge's helper thread) and the
 * database backend serving it — without HTTP or the bulk runner around it.
 *
 *   npx node bench/pg-match.ts --data DIR [--queries 2000] [--snapshot query|batch] [--rounds 1]
 *                              [--store postgres|sqlite] [--answers FILE] [--batch-reads N]
 *
 * DIR holds a graph in its embedded store (bench/import.ts --keep); it is copied into a fresh
 * PostgreSQL database (bench/support/store.ts). `--snapshot query` opens one read snapshot per
 * query (the HTTP enhance threads), `batch` one per 256 queries (the bulk workers). Prints, per
 * round, matches/s, CPU per match of this process and of the backend, and the load average.
 * `--answers FILE` writes the first run's answers (JSON lines) to compare builds or stores.
 * `--batch-reads N`: N queries per read snapshot, their reads made together first (`BatchReads`,
 * as an enhance thread answers the requests it finds queued together).
 */
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { BatchReads, Enhancer, openThreadEnhancer, parseEnhanceQuery } from '../src/enhance/index.ts';
import type { StoreLocator } from '../src/storage/index.ts';
import { sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { sampleQueries } from './support/queries.ts';
import { openBenchStore, parseStoreKind } from './support/store.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    queries: { type: 'string', default: '2000' },
    snapshot: { type: 'string', default: 'query' },
    rounds: { type: 'string', default: '1' },
    store: { type: 'string', default: 'postgres' },
    answers: { type: 'string' },
    'batch-reads': { type: 'string' },
  },
});
if (!values.data) throw new Error('--data DIR is required');
const count = Number(values.queries);
const batchReads = values['batch-reads'] === undefined ? 0 : Number(values['batch-reads']);
const perSnapshot = batchReads > 0 ? batchReads : values.snapshot === 'batch' ? 256 : 1;
const mode = batchReads > 0 ? `batch reads of ${batchReads}` : values.snapshot;

const kind = parseStoreKind(values.store);
const store = await openBenchStore(kind, values.data);
try {
  const locator: StoreLocator =
    kind === 'postgres'
      ? { adapter: 'postgres', url: store.env.QUARRY_DATABASE_URL }
      : { adapter: 'sqlite', file: sqliteFileFor(values.data) };
  const opened = openThreadEnhancer({ store: locator, cacheMiB: 16 });
  const { storage } = opened;
  const reads = batchReads > 0 ? new BatchReads(opened.matcher, storage.entities) : undefined;
  const enhancer = reads ? new Enhancer(reads.deps) : opened.enhancer;
  const requests = sampleQueries(sqliteFileFor(values.data), count).map((query) =>
    parseEnhanceQuery(query, 'get'),
  );
  const answers: string[] = [];
  const run = () => {
    for (let i = 0; i < requests.length; i += perSnapshot) {
      storage.readSnapshot(() => {
        const batch = requests.slice(i, i + perSnapshot);
        reads?.prepare(batch);
        for (const request of batch) answers.push(JSON.stringify(enhancer.enhance(request, {})));
        reads?.clear();
      });
    }
  };
  // Warm-up: vocabularies, the JIT, the backend's caches.
  run();
  // The answers of the first run, to compare two builds' answers byte for byte.
  if (values.answers) fs.writeFileSync(values.answers, `${answers.join('\n')}\n`);
  for (let round = 0; round < Number(values.rounds); round++) {
    await store.sample();
    const db = store.databaseCpuSeconds();
    const cpu = process.cpuUsage();
    const started = performance.now();
    run();
    const seconds = (performance.now() - started) / 1000;
    answers.length = 0;
    const used = process.cpuUsage(cpu);
    await store.sample();
    const dbUs = ((store.databaseCpuSeconds() - db) * 1e6) / count;
    const ownUs = (used.user + used.system) / count;
    console.log(
      `pg-match (${kind}, ${mode}): ${count} matches, ${(count / seconds).toFixed(0)} matches/s, ` +
        `CPU/match ${ownUs.toFixed(0)} µs here + ${dbUs.toFixed(0)} µs backend = ${(ownUs + dbUs).toFixed(0)} µs, ` +
        `load ${os.loadavg()[0].toFixed(1)}`,
    );
  }
  await storage.close();
} finally {
  await store.drop();
}

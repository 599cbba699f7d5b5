/**
 * Import benchmark: generates the demo graph (default 1M organizations + 1M persons) as JSON
 * Lines, then imports it into a fresh SQLite store and prints entities/s and peak RSS. Also
 * measures the cost of the matcher's `indexEntity` alone (the match area's share of the import).
 *
 *   npx node bench/import.ts [--organizations N] [--persons N] [--seed S] [--batch N] [--keep]
 *
 * With --keep, the files go to .bench-out/import/ and stay: the graph the enhance, HTTP and bulk
 * benchmarks run against (`npm run bench` passes it). Without, they go to a directory of their own
 * under .bench-out/ that is removed at the end, so a small run never replaces the kept graph.
 * Never fails on timing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { importEntities } from '../src/import/index.ts';
import { cleanEntity, DEFAULT_DEMO_SEED, demoRecords, writeDemoGraph } from '../src/kg/index.ts';
import { indexEntity } from '../src/match/index.ts';
import { openSqliteStorage } from '../src/storage/sqlite/index.ts';
import { printTarget } from './support/targets.ts';

const { values } = parseArgs({
  options: {
    organizations: { type: 'string', default: '1000000' },
    persons: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: String(DEFAULT_DEMO_SEED) },
    batch: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const sizes = {
  organizations: Number(values.organizations),
  persons: Number(values.persons),
  seed: Number(values.seed),
};
const dir = path.join(
  import.meta.dirname,
  '..',
  '.bench-out',
  values.keep ? 'import' : `import-${process.pid}`,
);
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const file = path.join(dir, 'demo.jsonl');
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

console.log(
  `bench import: npx node bench/import.ts --organizations ${sizes.organizations} --persons ${sizes.persons} --seed ${sizes.seed}` +
    (values.batch !== undefined ? ` --batch ${values.batch}` : ''),
);

let started = performance.now();
const out = fs.createWriteStream(file);
const lines = await writeDemoGraph(out, sizes);
await new Promise<void>((resolve) => out.end(resolve));
const generateS = (performance.now() - started) / 1000;
// The generated file's pages on their way to the disk would be written back during the import,
// competing with its own writes: flushed first, so the import is timed on its own work.
const generated = fs.openSync(file, 'r');
fs.fsyncSync(generated);
fs.closeSync(generated);
console.log(`generate: ${lines} lines, ${mib(fs.statSync(file).size)} in ${generateS.toFixed(1)} s`);

// The matcher's share: indexEntity alone over a sample of the same records.
const sample: ReturnType<typeof cleanEntity>[] = [];
for (const record of demoRecords({
  ...sizes,
  organizations: Math.min(sizes.organizations, 25_000),
  persons: Math.min(sizes.persons, 25_000),
})) {
  sample.push(cleanEntity(record));
}
started = performance.now();
for (const entity of sample) indexEntity(entity);
const indexUs = ((performance.now() - started) * 1000) / sample.length;
console.log(`indexEntity (match/): ${indexUs.toFixed(1)} µs per entity over ${sample.length} entities`);
sample.length = 0;

const storage = openSqliteStorage(path.join(dir, 'quarry.sqlite'));
const rssBefore = process.memoryUsage().rss;
let peakRss = rssBefore;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 200);
const cpuBefore = process.cpuUsage();
const mainBefore = process.threadCpuUsage();
const loadBefore = os.loadavg()[0];
// CPU of all threads when the key pass begins: how busy the cores were in each phase tells a
// pipeline stall (threads waiting on one another or on the disk) from work that fills them.
let atIndexing: { cpu: NodeJS.CpuUsage; wallMs: number } | undefined;
const wallBefore = performance.now();
const summary = await importEntities(
  storage.entities,
  fs.createReadStream(file, { highWaterMark: 1 << 20 }),
  {
    fileName: 'demo.jsonl',
    onIndexing: () => {
      atIndexing = { cpu: process.cpuUsage(cpuBefore), wallMs: performance.now() - wallBefore };
    },
    ...(values.batch !== undefined ? { batchSize: Number(values.batch) } : {}),
  },
);
clearInterval(sampler);
const cpu = process.cpuUsage(cpuBefore);
const cpuS = (cpu.user + cpu.system) / 1e6;
const main = process.threadCpuUsage(mainBefore);
const mainS = (main.user + main.system) / 1e6;
peakRss = Math.max(peakRss, process.memoryUsage().rss);
const counts = storage.entities.counts();
storage.close();
const dbSize = fs.statSync(path.join(dir, 'quarry.sqlite')).size;

console.log(
  `import: ${summary.linesRead} lines, ${summary.created} created, ${summary.updated} updated, ${summary.rejected} rejected in ${(summary.elapsedMs / 1000).toFixed(1)} s`,
);
console.log(`import entities/s: ${Math.round(summary.entitiesPerSecond)} (target ≥ 50000)`);
printTarget({
  name: 'import entities/s (issue 2)',
  value: summary.entitiesPerSecond,
  bound: 'min',
  limit: 50_000,
  unit: 'entities/s',
});
const busy = (cpu: NodeJS.CpuUsage, wallMs: number) =>
  `${((cpu.user + cpu.system) / 1000 / wallMs).toFixed(2)} of ${os.availableParallelism()} cores busy`;
const phaseOne = atIndexing ?? { cpu, wallMs: performance.now() - wallBefore };
const keyPass = {
  cpu: { user: cpu.user - phaseOne.cpu.user, system: cpu.system - phaseOne.cpu.system },
  wallMs: Math.max(1, summary.keyIndexMs),
};
console.log(
  `import phases: read, prepare and write ${((summary.elapsedMs - summary.keyIndexMs) / 1000).toFixed(1)} s ` +
    `(${busy(phaseOne.cpu, phaseOne.wallMs)}), then index retrieval keys ${(summary.keyIndexMs / 1000).toFixed(1)} s ` +
    `(${busy(keyPass.cpu, keyPass.wallMs)})`,
);
console.log(
  `import CPU: ${cpuS.toFixed(1)} s user+system in all threads, ${mainS.toFixed(1)} s of it in the main (store) thread; ` +
    `${((cpuS * 1e6) / summary.linesRead).toFixed(1)} µs per line; load average ${loadBefore.toFixed(1)} → ` +
    `${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
);
console.log(
  `store: ${counts.organizations} organizations, ${counts.persons} persons, ${mib(dbSize)} on disk`,
);
console.log(
  `peak RSS during import: ${mib(peakRss)} (process maxRSS ${mib(process.resourceUsage().maxRSS * 1024)})`,
);
if (!values.keep) fs.rmSync(dir, { recursive: true, force: true });

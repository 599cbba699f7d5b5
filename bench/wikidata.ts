/**
 * Wikidata import benchmark: generates synthetic dumps of real-shaped entity lines with a fixed
 * seed (test/support/wikidata-dump.ts: a realistic mix, most lines skipped) at two sizes, imports
 * each into a fresh SQLite store, and prints for each pass its lines/s, MB/s and peak RSS, then
 * the import pass's entities/s beside the JSON Lines import of the very same statements (the
 * existing import's rate). A smaller dump is also read gzip- and bzip2-compressed.
 *
 *   npx node bench/wikidata.ts [--entities 200000,800000] [--compressed 50000] [--seed 1] [--keep]
 *
 * Each size runs in a process of its own (fresh memory). Dumps are kept in .bench-out/wikidata/
 * with --keep (generating is slower than importing), removed otherwise. Never fails on timing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { importEntities, importWikidataDump, type WikidataPhase } from '../src/import/index.ts';
import { classesOf, DumpLineReader, looksLikeObject } from '../src/import/wikidata/dump-lines.ts';
import { openDump } from '../src/import/wikidata/dump-input.ts';
import { EntitySelector, shippedOrganizationClasses } from '../src/import/wikidata/selection.ts';
import { openSqliteStorage } from '../src/storage/sqlite/index.ts';
import { SYNTHETIC_MIX, writeSyntheticDump } from '../test/support/wikidata-dump.ts';
import { printTarget } from './support/targets.ts';

const { values } = parseArgs({
  options: {
    entities: { type: 'string', default: '200000,800000' },
    compressed: { type: 'string', default: '50000' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    child: { type: 'string' },
    compression: { type: 'string', default: 'plain' },
  },
});
const seed = Number(values.seed);
const dir = path.join(import.meta.dirname, '..', '.bench-out', 'wikidata');
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** The dump of `entities` entity lines (generated once), compressed as asked. */
async function dumpFile(entities: number, compression: string): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  const plain = path.join(dir, `dump-${entities}-${seed}.json`);
  if (!fs.existsSync(plain)) {
    const started = performance.now();
    const partial = `${plain}.partial`;
    const out = fs.createWriteStream(partial, { highWaterMark: 1 << 20 });
    const lines = await writeSyntheticDump(out, entities, seed);
    await new Promise<void>((resolve) => out.end(resolve));
    fs.renameSync(partial, plain);
    console.log(
      `generate: ${int(lines)} lines, ${mib(fs.statSync(plain).size)} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  if (compression === 'plain') return plain;
  const file = `${plain}.${compression === 'gzip' ? 'gz' : 'bz2'}`;
  if (!fs.existsSync(file)) {
    if (compression === 'gzip') {
      // Default level, as the dumps are written.
      await new Promise<void>((resolve, reject) => {
        fs.createReadStream(plain)
          .pipe(zlib.createGzip())
          .pipe(fs.createWriteStream(file))
          .on('finish', resolve)
          .on('error', reject);
      });
    } else {
      const run = spawnSync('bash', ['-c', `bzip2 -c "${plain}" > "${file}"`]);
      if (run.status !== 0) throw new Error(`bzip2 failed: ${run.stderr}`);
    }
  }
  // The dump's pages on their way to the disk would be written back during the import.
  const fd = fs.openSync(file, 'r');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  return file;
}

/**
 * Reading and selection alone (what the selection pass does before it maps the selected lines):
 * the dump's lines read and their P31 classes looked at. Returns lines/s of wall time and of the
 * main thread's CPU.
 */
async function readAndSelect(
  file: string,
): Promise<{ lines: number; selected: number; wallS: number; cpuS: number }> {
  const selector = new EntitySelector(shippedOrganizationClasses());
  let selected = 0;
  const reader = new DumpLineReader((line) => {
    if (!looksLikeObject(line)) return;
    const read = classesOf(line);
    if (read.kind === 'classes' && selector.typeOf(read.classes) !== undefined) selected++;
  });
  const input = openDump(file);
  const started = performance.now();
  const cpu = process.threadCpuUsage();
  for await (const chunk of input.chunks) reader.push(chunk);
  reader.end();
  const used = process.threadCpuUsage(cpu);
  input.close();
  return {
    lines: reader.lines,
    selected,
    wallS: (performance.now() - started) / 1000,
    cpuS: (used.user + used.system) / 1e6,
  };
}

/** One size, in this process: the three passes, their rates and memory. */
async function child(entities: number, compression: string): Promise<void> {
  const file = await dumpFile(entities, compression);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-wikidata-'));
  const storage = openSqliteStorage(path.join(work, 'quarry.sqlite'));
  const peak: Partial<Record<WikidataPhase, number>> = {};
  let phase: WikidataPhase = 'select';
  const sample = () => {
    peak[phase] = Math.max(peak[phase] ?? 0, process.memoryUsage().rss);
  };
  // CPU used in each pass, by the main thread and by all the process's threads: on a shared
  // machine the wall-clock rates move with the load, the CPU seconds much less.
  const cpuOf = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1e6;
  const used: Partial<Record<WikidataPhase, { main: number; all: number }>> = {};
  let mark = { main: process.threadCpuUsage(), all: process.cpuUsage() };
  const closePhase = () => {
    const previous = used[phase] ?? { main: 0, all: 0 };
    used[phase] = {
      main: previous.main + cpuOf(process.threadCpuUsage(mark.main)),
      all: previous.all + cpuOf(process.cpuUsage(mark.all)),
    };
    mark = { main: process.threadCpuUsage(), all: process.cpuUsage() };
  };
  const sampler = setInterval(sample, 100);
  const load = os.loadavg()[0];
  const cpu = process.cpuUsage();
  const summary = await importWikidataDump(storage.entities, file, {
    workDir: work,
    onProgress: (progress) => {
      sample();
      if (progress.phase !== phase) {
        closePhase();
        phase = progress.phase;
      }
    },
  });
  closePhase();
  clearInterval(sampler);
  const total = process.cpuUsage(cpu);
  const size = fs.statSync(file).size;
  const decompressed = fs.statSync(path.join(dir, `dump-${entities}-${seed}.json`)).size;
  const selectS = summary.selectMs / 1000;
  console.log(
    `${path.basename(file)} (${compression}, ${mib(size)}; ${mib(decompressed)} and ${int(summary.linesRead)} lines decompressed, ` +
      `${(decompressed / summary.linesRead / 1024).toFixed(1)} KiB a line): ${int(summary.selectedPersons)} persons + ` +
      `${int(summary.selectedOrganizations)} organizations selected (${((100 * (summary.selectedPersons + summary.selectedOrganizations)) / summary.linesRead).toFixed(1)}% of lines), ` +
      `${int(summary.referenced)} linked items, ${summary.rejected} rejected`,
  );
  const select = used.select ?? { main: 0, all: 0 };
  // On an idle machine of this size the pass is bound by its busiest thread (the main one) or by
  // the CPU of all its threads over the cores, whichever is longer.
  const boundS = Math.max(select.main, select.all / os.availableParallelism());
  console.log(
    `  selection: ${selectS.toFixed(1)} s, ${int(summary.linesPerSecond)} lines/s, ${(decompressed / 2 ** 20 / selectS).toFixed(0)} MiB/s of JSON, ` +
      `peak RSS ${mib(peak.select ?? 0)}; CPU ${select.main.toFixed(1)} s main thread, ${select.all.toFixed(1)} s all threads` +
      (compression === 'bzip2' ? ' (bzip2 runs in a process of its own, not counted)' : ''),
  );
  const labels = used.labels ?? { main: 0, all: 0 };
  console.log(
    `  labels:    ${(summary.labelsMs / 1000).toFixed(1)} s, ${int(summary.linesRead / (summary.labelsMs / 1000))} lines/s, ` +
      `peak RSS ${mib(peak.labels ?? 0)}; CPU ${labels.main.toFixed(1)} s main thread, ${labels.all.toFixed(1)} s all threads`,
  );
  console.log(
    `  import:    ${(summary.importMs / 1000).toFixed(1)} s (keys ${(summary.keyIndexMs / 1000).toFixed(1)} s of it), ` +
      `${int(summary.entitiesPerSecond)} entities/s, peak RSS ${mib(Math.max(peak.import ?? 0, peak.index ?? 0))}`,
  );
  console.log(
    `  CPU ${cpuOf(total).toFixed(1)} s in all threads over ${(summary.elapsedMs / 1000).toFixed(1)} s; ` +
      `load average ${load.toFixed(1)} → ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
  );
  const scan = await readAndSelect(file);
  console.log(
    `  reading and selection alone: ${scan.wallS.toFixed(1)} s, ${int(scan.lines / scan.wallS)} lines/s ` +
      `(${int(scan.selected)} selected; main thread CPU ${scan.cpuS.toFixed(1)} s: ${int(scan.lines / scan.cpuS)} lines per CPU second)`,
  );
  printTarget({
    name: `wikidata reading and selection lines/s, ${compression} ${int(entities)}-entity dump (issue 29)`,
    value: scan.lines / scan.wallS,
    bound: 'min',
    limit: 50_000,
    unit: 'lines/s',
  });
  if (compression === 'plain') {
    console.log(
      `  selection bound by CPU: ${int(summary.linesRead / boundS)} lines/s (its rate on this machine when idle)`,
    );
    printTarget({
      name: `wikidata selection pass (with mapping) lines/s, ${int(entities)}-entity dump (issue 29)`,
      value: summary.linesPerSecond,
      bound: 'min',
      limit: 50_000,
      unit: 'lines/s',
    });
    // The same statements through the JSON Lines import, into a fresh store: the existing rate.
    const jsonl = path.join(work, 'statements.jsonl');
    const out = fs.createWriteStream(jsonl);
    const count = storage.entities.counts();
    const total = count.organizations + count.persons;
    for (let ref = 1; ref <= total; ref += 5000) {
      const refs = Array.from({ length: Math.min(5000, total - ref + 1) }, (_, i) => ref + i);
      const lines = storage.entities.getByRefs(refs).map((stored) => JSON.stringify(stored.doc));
      if (!out.write(`${lines.join('\n')}\n`))
        await new Promise<void>((resolve) => out.once('drain', resolve));
    }
    await new Promise<void>((resolve) => out.end(resolve));
    const other = openSqliteStorage(path.join(work, 'jsonl.sqlite'));
    const plainImport = await importEntities(
      other.entities,
      Readable.from(fs.createReadStream(jsonl, { highWaterMark: 1 << 20 })),
      { fileName: 'statements.jsonl', statedNonCanonicalFacts: true },
    );
    other.close();
    const ratio = summary.entitiesPerSecond / plainImport.entitiesPerSecond;
    console.log(
      `  the same ${int(plainImport.created)} statements as JSON Lines: ${int(plainImport.entitiesPerSecond)} entities/s; ` +
        `the Wikidata import pass at ${ratio.toFixed(2)}× that rate`,
    );
  }
  storage.close();
  fs.rmSync(work, { recursive: true, force: true });
}

if (values.child !== undefined) {
  await child(Number(values.child), values.compression);
} else {
  const sizes = values.entities.split(',').map(Number);
  const compressedSize = Number(values.compressed);
  console.log(
    `bench wikidata: npx node bench/wikidata.ts --entities ${sizes.join(',')} --compressed ${compressedSize} --seed ${seed}; ` +
      `mix: ${SYNTHETIC_MIX.map(([kind, share]) => `${kind} ${(share * 100).toFixed(1)}%`).join(', ')}`,
  );
  const runs: [number, string][] = [
    ...sizes.map((n): [number, string] => [n, 'plain']),
    ...(compressedSize > 0
      ? [
          [compressedSize, 'plain'],
          [compressedSize, 'gzip'],
          [compressedSize, 'bzip2'],
        ]
      : []),
  ] as [number, string][];
  for (const [entities, compression] of runs) {
    const run = spawnSync(
      process.execPath,
      [
        import.meta.filename,
        '--child',
        String(entities),
        '--compression',
        compression,
        '--seed',
        String(seed),
      ],
      { stdio: 'inherit' },
    );
    if (run.status !== 0) console.log(`${entities} ${compression}: exited with ${run.status}`);
  }
  if (!values.keep) fs.rmSync(dir, { recursive: true, force: true });
}

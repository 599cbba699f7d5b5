/**
 * `npm run bench`: every benchmark, one after another, each in its own process (fresh memory),
 * printing its figures. Figures only: nothing here fails on timing.
 *
 *   npm run bench                 # the issues' sizes: a 1M + 1M graph, a 1M-record bulk job, …
 *   npm run bench -- --quick      # small sizes, a few minutes: checks that everything runs
 *   npm run bench -- --only http,bulk   # a subset (names below); reuses .bench-out/import
 *
 * The graph that enhance, HTTP and bulk run against is the one the import benchmark builds and
 * keeps in .bench-out/import (the seeded demo graph, 1M organizations + 1M people).
 *
 * The report starts and ends with the machine: its CPU and the time of a fixed reference workload
 * (bench/support/machine.ts). Same-size machines differed by 1.2-1.9x in these figures, so
 * compare runs of different machines through that time, and distrust a run whose reference time
 * changed much between the start and the end. Last come the issues' targets, each met or short
 * on this machine (the `target:` lines the benchmarks print, bench/support/targets.ts).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { cpuDescription, describeReference } from './support/machine.ts';
import { TARGET_PREFIX } from './support/targets.ts';

const ROOT = path.join(import.meta.dirname, '..');
const GRAPH = path.join(ROOT, '.bench-out', 'import');

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } },
});
const quick = values.quick;
const size = quick ? 20_000 : 1_000_000;

/** Each benchmark: its file and arguments. Order matters: `import` builds the graph. */
const BENCHES: ReadonlyArray<{ name: string; file: string; args: string[] }> = [
  {
    name: 'import',
    file: 'import.ts',
    args: ['--organizations', String(size), '--persons', String(size), '--keep'],
  },
  {
    name: 'enhance',
    file: 'enhance-inprocess.ts',
    args: ['--data', GRAPH, '--queries', quick ? '2000' : '20000'],
  },
  { name: 'http', file: 'http.ts', args: ['--data', GRAPH, '--seconds', quick ? '3' : '15'] },
  {
    name: 'bulk',
    file: 'bulk.ts',
    args: [
      '--data',
      GRAPH,
      '--records',
      quick ? '20000' : '1000000',
      '--xlsx-rows',
      quick ? '20000' : '200000',
    ],
  },
  // The same HTTP and bulk benchmarks on the embedded store and on PostgreSQL (a copy of the
  // graph in a fresh database), side by side; bulk also with 1, 2 and 3 processes (issue 26).
  {
    name: 'stores-http',
    file: 'http.ts',
    args: ['--data', GRAPH, '--seconds', quick ? '3' : '15', '--store', 'sqlite,postgres'],
  },
  {
    name: 'stores-bulk',
    file: 'bulk.ts',
    args: [
      '--data',
      GRAPH,
      '--records',
      quick ? '5000' : '100000',
      '--xlsx-rows',
      '1000',
      '--store',
      'sqlite,postgres',
      '--processes',
      '1,2,3',
    ],
  },
  {
    name: 'wikidata',
    file: 'wikidata.ts',
    args: quick
      ? ['--entities', '10000,40000', '--compressed', '5000']
      : ['--entities', '150000,600000', '--compressed', '50000'],
  },
  { name: 'export', file: 'export.ts', args: quick ? ['--quick'] : [] },
  { name: 'extract', file: 'extract.ts', args: quick ? ['--pages', '10', '--seconds', '1'] : [] },
  { name: 'extract-accuracy', file: 'extract-accuracy.ts', args: [] },
  {
    name: 'extract-isolation',
    file: 'extract-isolation.ts',
    args: quick ? ['--seconds', '5', '--kb', '300'] : [],
  },
  // /healthz p99 during the fuzz and during the ReDoS corpus (issue 28), against a real server.
  {
    name: 'healthz-fuzz',
    file: 'healthz-fuzz.ts',
    args: quick ? ['--requests', '2000', '--idle-seconds', '5'] : [],
  },
  { name: 'crawl', file: 'crawl.ts', args: quick ? ['--pages', '1000'] : [] },
  {
    name: 'refresh',
    file: 'refresh.ts',
    args: quick ? ['--records', '1000', '--queries', '40', '--iterations', '10'] : [],
  },
  // Half an hour: enhance load, bulk jobs and extraction at once, RSS every minute (issue 28).
  {
    name: 'soak',
    file: 'soak.ts',
    args: quick ? ['--minutes', '3', '--idle', '1', '--cool', '1', '--records', '2000'] : [],
  },
];

const only = values.only?.split(',').map((s) => s.trim());
const selected = BENCHES.filter((b) => !only || only.includes(b.name));
console.log(
  `quarry benchmarks (${quick ? 'quick' : 'full'}): ${selected.map((b) => b.name).join(', ')}; ` +
    `${os.availableParallelism()} cores, load average ${os.loadavg()[0].toFixed(1)}, node ${process.version}`,
);
// Figures of runs on different machines compare only through the machine's own speed.
console.log(`machine: ${cpuDescription()}; ${describeReference()}`);
/** The `target:` lines the benchmarks printed, with the benchmark that printed each. */
const targets: { bench: string; line: string }[] = [];
for (const bench of selected) {
  if (bench.args.includes(GRAPH) && !fs.existsSync(path.join(GRAPH, 'quarry.sqlite'))) {
    console.log(`\n== ${bench.name}: skipped, no graph in ${GRAPH} (run the import benchmark first)`);
    continue;
  }
  console.log(`\n== ${bench.name}: npx node bench/${bench.file} ${bench.args.join(' ')}`);
  const started = performance.now();
  const status = await runBench(bench.file, bench.args, (line) => {
    if (line.startsWith(TARGET_PREFIX))
      targets.push({ bench: bench.name, line: line.slice(TARGET_PREFIX.length) });
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  console.log(`== ${bench.name}: ${status === 0 ? 'done' : `exited with ${status}`} in ${seconds} s`);
}
const reference = describeReference();
console.log(`\nmachine after the run: ${reference}`);
const short = targets.filter((target) => target.line.endsWith(' short')).length;
console.log(
  `\n== targets: ${targets.length - short} met, ${short} short, on this machine (${cpuDescription()}; ${reference})` +
    (quick ? '; quick sizes, not the sizes the targets are stated for' : ''),
);
for (const { bench, line } of targets) console.log(`  ${bench.padEnd(8)} ${line}`);

/**
 * Runs one benchmark in a process of its own, passing its output through as it comes and each
 * line of its standard output to `onLine`. Resolves with its exit status.
 */
async function runBench(
  file: string,
  args: string[],
  onLine: (line: string) => void,
): Promise<number | null> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, file), ...args], {
    stdio: ['inherit', 'pipe', 'inherit'],
    cwd: ROOT,
  });
  const exited = once(child, 'exit');
  for await (const line of readline.createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    console.log(line);
    onLine(line);
  }
  const [code] = (await exited) as [number | null];
  return code;
}

/**
 * Bulk enhance, end to end, against a real server process (issue 3 targets):
 *
 *   npx node bench/bulk.ts --data DIR [--records 1000000] [--mix sampled|id] [--xlsx-rows 200000] [--probe-ms 50] [--keep-job]
 *   npx node bench/bulk.ts --generate 1000000 [--records …]   (builds a N + N demo graph first)
 *
 * DIR is a data directory holding a graph (`npm run bench` builds the 1M + 1M one). The bench
 * submits `--records` queries drawn from the graph (streamed, as a client would), waits for
 * COMPLETE, then downloads the whole job as CSV. Meanwhile it samples the server's RSS every
 * 250 ms and sends single enhance requests one at a time (every `--probe-ms`) to measure their
 * latency while the job runs. Then an xlsx of the first `--xlsx-rows` records. Figures only:
 * it never fails on timing. The job is deleted at the end (kept with `--keep-job`).
 *
 * `--store sqlite,postgres` runs it on each store (bench/support/store.ts: on PostgreSQL a fresh
 * database with a copy of DIR's graph), `--processes 1,2,3` with that many processes working on
 * the job (the server and `quarry worker`s; PostgreSQL only), then prints them side by side:
 * records/s and CPU per record — the server's, the workers' and the database backends' (issue 26:
 * PostgreSQL ≤ 1.5× SQLite's CPU per record). On 2 cores more processes show the overhead of
 * spreading the work, not scaling.
 *
 * The single enhances sent while the job runs (`--probe-ms`, 0: none) cost CPU that is not the
 * records': before the job the bench measures the CPU of the idle processes and of probes of
 * their own (distinct queries, one at a time), and prints CPU per record both with the probes
 * and without their estimated share (probes during the job × that cost); the issue's ratio is
 * taken without them, both are printed.
 *
 * `--mix sampled` (default) draws name/url/e-mail/employer queries from the graph, so the rate is
 * bound by the matcher; `--mix id` submits id records (`{"id": ...}`, answered by one lookup),
 * which measures the bulk machinery itself: upload, storage, threads, commits, export.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { DatabaseSync } from 'node:sqlite';
import { type BenchQuery, sampleQueries, seededRandom, toQueryString } from './support/queries.ts';
import { warmPageCache } from './support/page-cache.ts';
import { describeTimings, timeMatcher } from './support/paired-matcher.ts';
import {
  type BenchServer,
  mib,
  quarryCli,
  sampleRssSplit,
  startServer,
  startWorker,
} from './support/server.ts';
import { type BenchStore, openBenchStore, parseStoreKind } from './support/store.ts';
import { matcherRatio, printTarget } from './support/targets.ts';
import { cpuGrowth, readCallsPer, threadCpu, threadReadCalls } from './support/thread-cpu.ts';

interface Options {
  readonly records: number;
  readonly mix: 'sampled' | 'id';
  readonly xlsxRows: number;
  readonly probeMs: number;
  /** Leave the job in the store at the end (`--keep-job`). */
  readonly keepJob: boolean;
}

/** `count` id records of entities drawn at random (seeded) from the graph in `file`. */
function sampleIdRecords(file: string, count: number, seed = 11): BenchQuery[] {
  const db = new DatabaseSync(file, { readOnly: true });
  const maxRef = Number((db.prepare('SELECT max(ref) AS m FROM entities').get() as { m: number }).m);
  const byRef = db.prepare('SELECT id FROM entities WHERE ref = ?');
  const random = seededRandom(seed);
  const out: BenchQuery[] = [];
  while (out.length < count) {
    const row = byRef.get(1 + Math.floor(random() * maxRef)) as { id: string } | undefined;
    if (row) out.push({ id: row.id });
  }
  db.close();
  return out;
}

/** Where the job's CPU went, µs per record: the server's threads by name, other processes, backends. */
function cpuBreakdown(
  before: { threads: Map<string, number>; total: number; db: Map<string, number>; workers: number },
  after: { threads: Map<string, number>; total: number; db: Map<string, number>; workers: number },
  records: number,
): string {
  const us = (seconds: number) => ((1e6 * seconds) / records).toFixed(0);
  const parts: string[] = [];
  let named = 0;
  for (const [name, delta] of cpuGrowth(before.threads, after.threads)) {
    named += delta;
    if (delta * 1e6 >= records) parts.push(`${name} ${us(delta)}`);
  }
  parts.push(`threads that ended ${us(after.total - before.total - named)}`);
  if (after.workers > before.workers) parts.push(`worker processes ${us(after.workers - before.workers)}`);
  for (const [name, delta] of cpuGrowth(before.db, after.db)) parts.push(`backends ${name} ${us(delta)}`);
  return parts.join(', ');
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The submission body: `count` records cycling through `queries`, each with its own customId. */
function submission(queries: readonly BenchQuery[], count: number): Readable {
  return Readable.from(
    (function* () {
      let buffer = '[';
      for (let i = 0; i < count; i++) {
        buffer += `${i === 0 ? '' : ','}${JSON.stringify({ ...queries[i % queries.length], customId: `r${i}` })}`;
        if (buffer.length >= 1 << 20) {
          yield buffer;
          buffer = '';
        }
      }
      yield `${buffer}]`;
    })(),
  );
}

/** Downloads into a counter of bytes and CSV lines; resolves with the totals and seconds. */
async function download(
  url: string,
): Promise<{ status: number; bytes: number; lines: number; seconds: number }> {
  const started = performance.now();
  const response = await fetch(url);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 0x0a) lines++;
  }
  return { status: response.status, bytes, lines, seconds: (performance.now() - started) / 1000 };
}

async function status(server: BenchServer, token: string, id: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}/kg/v3/enhance/bulk/${id}/status?token=${token}`);
  return ((await res.json()) as { content: Record<string, unknown> }).content;
}

/**
 * Where a job's end-to-end time goes (diagnostics, issue 30), seconds from the submission's
 * first byte: the 202 (upload and store), the first batch claimed (`start_time_ms`, the
 * server's clock on this host), the first results seen stored, COMPLETE in the store
 * (`completed_time_ms`) and as the polls saw it, the CSV downloaded. "Start-up" is what the
 * first 15 s of processing fell short of the job's middle rate (20% → 80% done), in seconds of
 * that rate: the threads' start and warm-up; "tail" the same for the last 5% of the records.
 */
function timeline(
  t0: number,
  epoch0: number,
  tSubmitted: number,
  tComplete: number,
  tDownloaded: number,
  job: Record<string, unknown>,
  progress: readonly [number, number][],
): string {
  const s = (t: number) => ((t - t0) / 1000).toFixed(1);
  const server = (ms: unknown) => (typeof ms === 'number' ? ((ms - epoch0) / 1000).toFixed(1) : '?');
  const total = Number(job.jobs_completed ?? 0);
  const at = (fraction: number) => progress.find(([, done]) => done >= fraction * total);
  const firstResults = progress.find(([, done]) => done > 0);
  const [t20, d20] = at(0.2) ?? [0, 0];
  const [t80, d80] = at(0.8) ?? [0, 0];
  const rate = t80 > t20 ? (d80 - d20) / ((t80 - t20) / 1000) : Number.NaN;
  const early = progress.find(([t]) => t - tSubmitted >= 15_000);
  const startup = early ? (early[0] - tSubmitted) / 1000 - early[1] / rate : Number.NaN;
  const [t95, d95] = at(0.95) ?? [0, 0];
  const tail = t95 > 0 ? (tComplete - t95) / 1000 - (total - d95) / rate : Number.NaN;
  return (
    `202 at ${s(tSubmitted)} s, first batch claimed ${server(job.start_time_ms)}, first results seen ${firstResults ? s(firstResults[0]) : '?'}, ` +
    `COMPLETE stored ${server(job.completed_time_ms)} / seen ${s(tComplete)}, CSV downloaded ${s(tDownloaded)}; ` +
    `middle rate ${rate.toFixed(0)} records/s, start-up short by ${startup.toFixed(1)} s, tail ${tail.toFixed(1)} s beyond that rate`
  );
}

/** Jobs of earlier runs that the server would resume and run beside the measured one. */
function unfinishedJobs(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db
      .prepare("SELECT id FROM bulk_jobs WHERE state IN ('NOT_STARTED', 'IN_PROCESS', 'SUBMITTING')")
      .all() as { id: string }[];
    return rows.map((row) => row.id);
  } catch {
    return []; // A store without bulk tables yet.
  } finally {
    db.close();
  }
}

/** What one run measured (for the side-by-side table). */
interface BulkFigures {
  readonly label: string;
  readonly recordsPerSecond: number;
  /** Every process's CPU and the database's over the job, probes included, per record. */
  readonly cpuPerRecordUs: number;
  /** The same less the probes' estimated CPU (their count × their cost measured before the job). */
  readonly recordCpuPerRecordUs: number;
  readonly load: number;
}

/** Probes timed before the job to price one (after the warm-up's), distinct from the job's. */
const PRICED_PROBES = 200;
/** Window over which the idle processes' CPU is measured before the job, ms. */
const IDLE_WINDOW_MS = 2_000;

export async function benchBulk(
  dataDir: string,
  options: Options,
  store: BenchStore,
  processes = 1,
): Promise<BulkFigures> {
  const leftovers = store.kind === 'sqlite' ? unfinishedJobs(sqliteFileFor(dataDir)) : [];
  if (leftovers.length > 0) {
    // An interrupted earlier run leaves its job behind; the server resumes it and the figures
    // would measure two jobs sharing the cores.
    console.error(
      `bulk: warning: ${leftovers.length} unfinished job(s) in ${dataDir} (${leftovers.join(', ')}) will run ` +
        'beside the measured one; delete them (quarry bulk delete) or use a fresh graph for clean figures',
    );
  }
  const token = quarryCli(['token', 'create', '--unlimited'], dataDir, store.env).trim();
  const queries =
    options.mix === 'id'
      ? sampleIdRecords(sqliteFileFor(dataDir), 50_000)
      : sampleQueries(sqliteFileFor(dataDir), 50_000);
  const probes = sampleQueries(sqliteFileFor(dataDir), 2_000, 99).map(
    (q) => `/kg/v3/enhance?${toQueryString(q)}&token=${token}`,
  );
  if (store.kind === 'sqlite') console.log(warmPageCache(sqliteFileFor(dataDir)));
  const server = await startServer(dataDir, {
    env: store.env,
    logFile: path.join(os.tmpdir(), 'quarry-bench-bulk.log'),
  });
  // More processes working on the job: workers of their own data directories, one database.
  const workers = await Promise.all(
    Array.from({ length: processes - 1 }, () =>
      startWorker(fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-worker-')), store.env),
    ),
  );
  const allCpu = () =>
    server.cpuSeconds() + workers.reduce((sum, w) => sum + w.cpuSeconds(), 0) + store.databaseCpuSeconds();
  const storeSampler = setInterval(() => void store.sample(), 250);
  let rssPeak = 0;
  const rssSamples: number[] = [];
  // The peak of each phase too: the whole run's peak alone does not say which phase to look at.
  const phasePeaks: [string, number][] = [['warm-up', 0]];
  const sampler = setInterval(() => {
    const rss = server.rss();
    rssSamples.push(rss);
    rssPeak = Math.max(rssPeak, rss);
    const phase = phasePeaks[phasePeaks.length - 1];
    phase[1] = Math.max(phase[1], rss);
  }, 250);
  const phase = (name: string) => phasePeaks.push([name, server.rss()]);
  const rssSplit = sampleRssSplit(server);
  try {
    // Warm the server (JIT, page cache) as a client's first requests would.
    for (const probe of probes.slice(0, 200)) await (await fetch(`${server.url}${probe}`)).arrayBuffer();
    // What the processes cost idle, and what a probe costs beyond that (queries not yet asked:
    // the job's probes are new queries too), to say how much of the job's CPU is the probes'.
    await store.sample();
    const cpuIdle = allCpu();
    const tIdle = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
    await store.sample();
    const idleCpuPerSecond = (allCpu() - cpuIdle) / ((performance.now() - tIdle) / 1000);
    const cpuPricing = allCpu();
    const tPricing = performance.now();
    for (const probe of probes.slice(200, 200 + PRICED_PROBES))
      await (await fetch(`${server.url}${probe}`)).arrayBuffer();
    await store.sample();
    const probeCpuUs =
      (1e6 * (allCpu() - cpuPricing - (idleCpuPerSecond * (performance.now() - tPricing)) / 1000)) /
      PRICED_PROBES;

    // Issue 30's ratio's other side, on the job's own queries, before the job and after its
    // downloads (bench/support/paired-matcher.ts); the server idles meanwhile.
    const paired = store.kind === 'sqlite' && processes === 1 && options.mix !== 'id';
    const matcherBefore = paired ? timeMatcher(dataDir, queries, 'bulk-record') : undefined;

    phase('submit');
    const t0 = performance.now();
    // From the upload's first byte too: the processing window below starts at the 202, after
    // the upload was parsed, validated and stored.
    const cpuUploadStart = allCpu();
    const epoch0 = Date.now();
    const submitted = await fetch(`${server.url}/kg/v3/enhance/bulk?token=${token}&name=bench`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Readable.toWeb(submission(queries, options.records)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    if (submitted.status !== 202)
      throw new Error(`submit answered ${submitted.status}: ${await submitted.text()}`);
    const { job_id: id } = (await submitted.json()) as { job_id: string };
    const tSubmitted = performance.now();
    await store.sample();
    const cpuSubmitted = allCpu();
    const workersCpu = () => workers.reduce((sum, w) => sum + w.cpuSeconds(), 0);
    const breakdownSubmitted = {
      threads: threadCpu(server.pid),
      total: server.cpuSeconds(),
      db: store.databaseCpuByApplication(),
      workers: workersCpu(),
    };
    const readsSubmitted = threadReadCalls(server.pid);
    phase('processing');

    // Single enhance requests, one at a time, while the job runs.
    const latencies: number[] = [];
    let probing = true;
    let errors = 0;
    const jobProbes = probes.slice(200 + PRICED_PROBES);
    const prober = (async () => {
      let next = 0;
      while (probing && options.probeMs > 0) {
        const started = performance.now();
        const res = await fetch(`${server.url}${jobProbes[next++ % jobProbes.length]}`);
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, options.probeMs));
      }
    })();

    let last: Record<string, unknown>;
    let lastPrint = 0;
    // Records stored over time (each poll), for the timeline: the job's start-up and its tail.
    const progress: [number, number][] = [];
    for (;;) {
      last = await status(server, token, id);
      progress.push([performance.now(), Number(last.jobs_completed ?? 0)]);
      if (last.status !== 'IN_PROCESS' && last.status !== 'NOT_STARTED') break;
      if (performance.now() - lastPrint > 15_000) {
        lastPrint = performance.now();
        console.error(
          `  … ${last.jobs_completed}/${last.jobs_total} done, ETA ${last.estimate_remaining_time} s, RSS ${mib(server.rss())}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const tComplete = performance.now();
    await store.sample();
    const cpuComplete = allCpu();
    const breakdownComplete = {
      threads: threadCpu(server.pid),
      total: server.cpuSeconds(),
      db: store.databaseCpuByApplication(),
      workers: workersCpu(),
    };
    const readsComplete = threadReadCalls(server.pid);
    probing = false;
    await prober;

    phase('CSV download');
    const cpuCsv = server.cpuSeconds();
    const breakdownCsv = {
      threads: threadCpu(server.pid),
      total: cpuCsv,
      db: new Map<string, number>(),
      workers: 0,
    };
    const csv = await download(`${server.url}/kg/v3/enhance/bulk/${id}?token=${token}&format=csv&wait=600`);
    const tDownloaded = performance.now();
    const csvCpuSeconds = server.cpuSeconds() - cpuCsv;
    // The export threads end before this: their CPU is in "threads that ended".
    const breakdownDownloaded = {
      threads: threadCpu(server.pid),
      total: cpuCsv + csvCpuSeconds,
      db: new Map<string, number>(),
      workers: 0,
    };
    phase('xlsx download');
    const xlsx = await download(
      `${server.url}/kg/v3/enhance/bulk/${id}?token=${token}&format=xlsx&head=${options.xlsxRows}&wait=600`,
    );
    clearInterval(sampler);
    const matcherAfter = matcherBefore && timeMatcher(dataDir, queries, 'bulk-record');

    const seconds = (a: number, b: number) => (b - a) / 1000;
    const sorted = [...latencies].sort((a, b) => a - b);
    const processing = seconds(tSubmitted, tComplete);
    const cpuPerRecordUs = (1e6 * (cpuComplete - cpuSubmitted)) / options.records;
    const recordCpuPerRecordUs = cpuPerRecordUs - (latencies.length * probeCpuUs) / options.records;
    console.log(
      `bulk: ${options.records.toLocaleString('en')} records (cycling ${queries.length.toLocaleString('en')} ${options.mix === 'id' ? 'id records' : 'sampled queries'}), data ${dataDir}`,
    );
    console.log(
      `  status                 ${last.status}, ${last.jobs_completed} done, ${last.total_results} matches`,
    );
    console.log(`  submit (upload+store)  ${seconds(t0, tSubmitted).toFixed(1)} s`);
    console.log(
      `  processing             ${processing.toFixed(1)} s = ${(options.records / processing).toFixed(0)} records/s` +
        `, CPU ${cpuPerRecordUs.toFixed(0)} µs/record (all threads of ${processes} process(es)${store.kind === 'postgres' ? ' and the PostgreSQL backends' : ''}, probes included; ${store.kind}, load average ${os.loadavg()[0].toFixed(1)})`,
    );
    console.log(
      `  CPU by thread, µs/record: ${cpuBreakdown(breakdownSubmitted, breakdownComplete, options.records)}`,
    );
    console.log(
      `  read system calls per record (load-independent; the server's threads): ${readCallsPer(readsSubmitted, readsComplete, options.records)}`,
    );
    console.log(
      `  CPU from the upload's first byte to COMPLETE ${((1e6 * (cpuComplete - cpuUploadStart)) / options.records).toFixed(0)} µs/record (the upload's own work included; probes included)`,
    );
    if (matcherBefore && matcherAfter) console.log(`  ${describeTimings(matcherBefore, matcherAfter)}`);
    console.log(
      `  CPU without the probes ${recordCpuPerRecordUs.toFixed(0)} µs/record (${latencies.length} probes during the job × ${probeCpuUs.toFixed(0)} µs each, priced before the job over ${PRICED_PROBES} others beyond the idle processes' ${(1000 * idleCpuPerSecond).toFixed(0)} ms CPU/s)`,
    );
    console.log(
      `  timeline               ${timeline(t0, epoch0, tSubmitted, tComplete, tDownloaded, last, progress)}`,
    );
    console.log(
      `  CSV download           ${csv.seconds.toFixed(1)} s, ${mib(csv.bytes)}, ${csv.lines - 1} rows = ${((csv.lines - 1) / csv.seconds).toFixed(0)} rows/s (target ≥ 100,000), server CPU ${((1e6 * csvCpuSeconds) / Math.max(1, csv.lines - 1)).toFixed(1)} µs/row  [HTTP ${csv.status}]`,
    );
    console.log(
      `  CSV CPU by thread, µs/row: ${cpuBreakdown(breakdownCsv, breakdownDownloaded, Math.max(1, csv.lines - 1))}`,
    );
    const endToEnd = seconds(t0, tDownloaded);
    console.log(
      `  end to end             ${endToEnd.toFixed(1)} s = ${(options.records / endToEnd).toFixed(0)} records/s (submit → COMPLETE → CSV; target ≥ 5,000)`,
    );
    console.log(
      `  xlsx, ${options.xlsxRows.toLocaleString('en')} records   ${xlsx.seconds.toFixed(1)} s, ${mib(xlsx.bytes)} (target ≤ 5 s)  [HTTP ${xlsx.status}]`,
    );
    console.log(
      `  single enhance during the job: ${latencies.length} requests, p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms, errors ${errors} (target p99 ≤ 50 ms)`,
    );
    console.log(
      `  server RSS: peak ${mib(rssPeak)} over ${rssSamples.length} samples (VmHWM ${mib(server.peakRss())}; target ≤ 2 GiB); ${rssSplit.peaks()}`,
    );
    console.log(
      `  server RSS peak per phase: ${phasePeaks.map(([name, peak]) => `${name} ${mib(peak)}`).join(', ')}`,
    );
    printTarget({
      name: 'bulk CSV download rows/s (issue 3)',
      value: (csv.lines - 1) / csv.seconds,
      bound: 'min',
      limit: 100_000,
      unit: 'rows/s',
    });
    printTarget({
      name: 'bulk end to end records/s (issue 3)',
      value: options.records / endToEnd,
      bound: 'min',
      limit: 5000,
      unit: 'records/s',
    });
    printTarget({
      name: `bulk xlsx of ${options.xlsxRows.toLocaleString('en')} records (issue 3)`,
      value: xlsx.seconds,
      bound: 'max',
      limit: 5,
      unit: 's',
    });
    if (sorted.length > 0)
      printTarget({
        name: 'single enhance p99 during a bulk job (issue 3)',
        value: percentile(sorted, 99),
        bound: 'max',
        limit: 50,
        unit: 'ms',
      });
    printTarget({
      name: 'server peak RSS during a bulk job (issue 3)',
      value: Math.max(rssPeak, server.peakRss()) / 2 ** 20,
      bound: 'max',
      limit: 2048,
      unit: 'MiB',
    });
    if (store.kind === 'sqlite' && processes === 1) {
      printTarget({
        name: 'bulk end to end records/s (issue 30)',
        value: options.records / endToEnd,
        bound: 'min',
        limit: 6000,
        unit: 'records/s',
      });
      printTarget({
        name: 'bulk CSV download rows/s (issue 30)',
        value: (csv.lines - 1) / csv.seconds,
        bound: 'min',
        limit: 150_000,
        unit: 'rows/s',
      });
      // Probes included, as in the processing line: the single enhances sent during the job.
      if (matcherBefore && matcherAfter)
        printTarget(matcherRatio('bulk', cpuPerRecordUs, [matcherBefore.process, matcherAfter.process]));
    }
    // Kept for bench/csv-download.ts with --keep-job.
    if (!options.keepJob) await fetch(`${server.url}/kg/v3/enhance/bulk/${id}/delete?token=${token}`);
    return {
      label: `${store.kind}, ${processes} process${processes > 1 ? 'es' : ''}`,
      recordsPerSecond: options.records / processing,
      cpuPerRecordUs,
      recordCpuPerRecordUs,
      load: os.loadavg()[0],
    };
  } finally {
    clearInterval(sampler);
    clearInterval(storeSampler);
    await Promise.all(workers.map((worker) => worker.stop()));
    await server.stop();
  }
}

/** Every run side by side, and the issue's CPU ratio. */
function compareRuns(runs: readonly BulkFigures[]): void {
  if (runs.length < 2) return;
  console.log('bulk, side by side:');
  for (const run of runs) {
    console.log(
      `  ${run.label.padEnd(24)} ${run.recordsPerSecond.toFixed(0).padStart(7)} records/s  ${run.cpuPerRecordUs.toFixed(0).padStart(6)} µs CPU/record, ${run.recordCpuPerRecordUs.toFixed(0).padStart(6)} without the probes  load ${run.load.toFixed(1)}`,
    );
  }
  const sqlite = runs.find((run) => run.label === 'sqlite, 1 process');
  const postgres = runs.find((run) => run.label === 'postgres, 1 process');
  if (sqlite && postgres) {
    console.log(
      `  PostgreSQL / SQLite CPU per record: ${(postgres.cpuPerRecordUs / sqlite.cpuPerRecordUs).toFixed(2)}× with the probes, ${(postgres.recordCpuPerRecordUs / sqlite.recordCpuPerRecordUs).toFixed(2)}× without`,
    );
    printTarget({
      name: 'bulk CPU per record without the probes, PostgreSQL / SQLite (issue 26)',
      value: postgres.recordCpuPerRecordUs / sqlite.recordCpuPerRecordUs,
      bound: 'max',
      limit: 1.5,
      unit: '×',
    });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      generate: { type: 'string' },
      records: { type: 'string', default: '1000000' },
      mix: { type: 'string', default: 'sampled' },
      'xlsx-rows': { type: 'string', default: '200000' },
      'probe-ms': { type: 'string', default: '50' },
      'keep-job': { type: 'boolean', default: false },
      store: { type: 'string', default: 'sqlite' },
      processes: { type: 'string', default: '1' },
    },
  });
  let dataDir = values.data;
  if (!dataDir) {
    if (!values.generate) throw new Error('--data DIR or --generate N is required');
    const n = values.generate;
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-bulk-'));
    console.error(`generating a ${n} + ${n} demo graph in ${dataDir} …`);
    quarryCli(['demo-data', '--organizations', n, '--persons', n, '--import'], dataDir);
  }
  const options: Options = {
    records: Number(values.records),
    mix: values.mix === 'id' ? 'id' : 'sampled',
    xlsxRows: Number(values['xlsx-rows']),
    probeMs: Number(values['probe-ms']),
    keepJob: values['keep-job'],
  };
  const runs: BulkFigures[] = [];
  for (const kind of values.store.split(',').map((k) => parseStoreKind(k.trim()))) {
    // Several processes on one store only where a store is shared.
    const counts = kind === 'sqlite' ? [1] : values.processes.split(',').map(Number);
    for (const processes of counts) {
      const store = await openBenchStore(kind, dataDir);
      try {
        runs.push(await benchBulk(dataDir, options, store, processes));
      } finally {
        await store.drop();
      }
    }
  }
  compareRuns(runs);
}

/**
 * HTTP throughput of enhance against the same server's /healthz, measured in one run.
 *
 *   npx node bench/http.ts --data DIR [--seconds 15] [--connections 32] [--store sqlite,postgres]
 *
 * DIR is a data directory holding a graph (`npm run bench` builds the 1M + 1M one). The server
 * runs as its own process; autocannon drives it from this process over loopback, so the load
 * generator shares the 2 cores with the server: the healthz figure is the ceiling on this
 * machine, the ratio is what matters.
 *
 * `--store` runs the same measurement on each store in turn (bench/support/store.ts: on
 * PostgreSQL a fresh database holding a copy of DIR's graph) and prints them side by side with
 * the server's event-loop delay under the enhance load (issue 26: PostgreSQL ≥ 50% of SQLite's
 * req/s, p99 delay ≤ 20 ms). The database server's CPU is counted in the CPU per request.
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { warmPageCache } from './support/page-cache.ts';
import { describeTimings, type MatcherTiming, timeMatcher } from './support/paired-matcher.ts';
import { mib, quarryCli, sampleRssSplit, startServer } from './support/server.ts';
import { sampleQueries, toQueryString } from './support/queries.ts';
import { type BenchStore, openBenchStore, parseStoreKind } from './support/store.ts';
import { matcherRatio, printTarget } from './support/targets.ts';
import { cpuGrowth, readCallsPer, threadCpu, threadReadCalls } from './support/thread-cpu.ts';

interface LoadResult {
  rps: number;
  /** Requests answered in all. */
  requests: number;
  /** Latency, ms. */
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** CPU of this process (autocannon, on the server's cores) per request, µs. */
  clientCpuUs: number;
  /**
   * This process's event-loop delay during the load, ms: autocannon measures a response's latency
   * when its loop reads it, so a late client adds to the latencies it reports.
   */
  clientLoop: { p99: number; max: number };
  errors: number;
  non2xx: number;
}

async function load(url: string, paths: string[], seconds: number, connections: number): Promise<LoadResult> {
  let next = 0;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpu = process.cpuUsage();
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => {
          request.path = paths[next++ % paths.length];
          return request;
        },
      },
    ],
  });
  const client = process.cpuUsage(cpu);
  loop.disable();
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    mean: result.latency.mean,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    clientCpuUs: (client.user + client.system) / Math.max(1, result.requests.total),
    clientLoop: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** Where the enhance load's CPU went, µs per request: the server's threads by name, then the backends. */
function cpuBreakdown(
  before: { threads: Map<string, number>; db: Map<string, number> },
  after: { threads: Map<string, number>; db: Map<string, number> },
  requests: number,
): string {
  const us = (seconds: number) => ((1e6 * seconds) / Math.max(1, requests)).toFixed(0);
  const parts: string[] = [];
  for (const [name, delta] of cpuGrowth(before.threads, after.threads))
    if (delta * 1e6 >= requests) parts.push(`${name} ${us(delta)}`);
  for (const [name, delta] of cpuGrowth(before.db, after.db))
    if (delta * 1e6 >= requests) parts.push(`backends ${name} ${us(delta)}`);
  return parts.join(', ');
}

/** What one store's run measured. */
interface HttpFigures {
  readonly store: string;
  readonly enhance: LoadResult;
  readonly health: LoadResult;
  readonly cpuPerRequestUs: number;
  readonly loop: { p50: number; p99: number; max: number } | undefined;
  readonly load: number;
}

export async function benchHttp(
  dataDir: string,
  seconds: number,
  connections: number,
  store: BenchStore,
): Promise<HttpFigures> {
  // A token with a balance, as clients have: each answer's charge is written (an unlimited
  // token's is only read).
  const token = quarryCli(['token', 'create', '--credits', '1000000000'], dataDir, store.env).trim();
  const queries = sampleQueries(sqliteFileFor(dataDir), 20_000);
  const paths = queries.map((q) => `/kg/v3/enhance?${toQueryString(q)}&token=${token}`);
  const server = await startServer(dataDir, { env: store.env, measureLoop: true });
  const rssSplit = sampleRssSplit(server);
  const sampler = setInterval(() => void store.sample(), 250);
  try {
    if (store.kind === 'sqlite') console.log(warmPageCache(sqliteFileFor(dataDir)));
    // Warm the page cache and the JIT before measuring (a 10 s warm-up over all the queries was
    // tried: no lower CPU per request, a higher peak RSS; bench/NOTES.md, 2026-11-29).
    await load(server.url, paths.slice(0, 2000), 3, connections);
    // Server CPU per request too: on a shared machine req/s depend on what else runs, CPU per
    // request much less.
    let cpu = server.cpuSeconds();
    const health = await load(server.url, ['/healthz'], seconds, connections);
    const healthCpu = server.cpuSeconds() - cpu;
    // The ratio's other side, on these queries, right before and right after the enhance load
    // (bench/support/paired-matcher.ts); the server idles meanwhile, outside its CPU window.
    const matcherBefore: MatcherTiming | undefined =
      store.kind === 'sqlite' ? timeMatcher(dataDir, queries, 'post') : undefined;
    await store.sample();
    cpu = server.cpuSeconds() + store.databaseCpuSeconds();
    const cpuBefore = { threads: threadCpu(server.pid), db: store.databaseCpuByApplication() };
    const readsBefore = threadReadCalls(server.pid);
    await server.loopDelay();
    const enhance = await load(server.url, paths, seconds, connections);
    const loop = await server.loopDelay();
    await store.sample();
    const cpuAfter = { threads: threadCpu(server.pid), db: store.databaseCpuByApplication() };
    const readsAfter = threadReadCalls(server.pid);
    const enhanceCpu = server.cpuSeconds() + store.databaseCpuSeconds() - cpu;
    const matcherAfter = matcherBefore && timeMatcher(dataDir, queries, 'post');
    const perRequest = (cpuSeconds: number, result: LoadResult) =>
      `${((cpuSeconds * 1e6) / Math.max(1, result.requests)).toFixed(0)} µs server CPU/request`;
    console.log(
      `http (${store.kind}): ${connections} connections, ${seconds} s each, ${paths.length} distinct enhance queries, load average ${os.loadavg()[0].toFixed(1)}`,
    );
    console.log(
      `  /healthz          ${health.rps.toFixed(0).padStart(7)} req/s   p50 ${health.p50} ms   p99 ${health.p99} ms   ${perRequest(healthCpu, health)}`,
    );
    console.log(
      `  /kg/v3/enhance    ${enhance.rps.toFixed(0).padStart(7)} req/s   p50 ${enhance.p50} ms   p99 ${enhance.p99} ms   ${perRequest(enhanceCpu, enhance)}${store.kind === 'postgres' ? ' (PostgreSQL backends included)' : ''}   (target ≥ 2,000 req/s)`,
    );
    console.log(`  CPU by thread, µs/request: ${cpuBreakdown(cpuBefore, cpuAfter, enhance.requests)}`);
    if (matcherBefore && matcherAfter) console.log(`  ${describeTimings(matcherBefore, matcherAfter)}`);
    // Autocannon keeps every connection busy (a closed loop): requests wait somewhere in the
    // server, so the mean latency is connections ÷ req/s whatever the server does with them
    // (Little's law); the p99 is that floor times how unevenly the waits fall.
    console.log(
      `  enhance latency: mean ${enhance.mean.toFixed(1)} ms (connections ÷ req/s: ${((1000 * connections) / Math.max(1, enhance.rps)).toFixed(1)} ms), p50 ${enhance.p50}, p90 ${enhance.p90}, p99 ${enhance.p99} (${(enhance.p99 / Math.max(0.001, enhance.mean)).toFixed(2)}× the mean), max ${enhance.max} ms`,
    );
    console.log(
      `  client (autocannon, same cores) CPU, µs/request: /healthz ${health.clientCpuUs.toFixed(0)}, enhance ${enhance.clientCpuUs.toFixed(0)}; its event-loop delay under enhance load p99 ${enhance.clientLoop.p99.toFixed(1)} ms, max ${enhance.clientLoop.max.toFixed(1)} ms`,
    );
    console.log(
      `  read system calls per request (load-independent): ${readCallsPer(readsBefore, readsAfter, enhance.requests)}`,
    );
    console.log(`  enhance/healthz   ${((enhance.rps / health.rps) * 100).toFixed(1)} %`);
    if (loop)
      console.log(
        `  event-loop delay under enhance load: p50 ${loop.p50} ms, p99 ${loop.p99} ms, max ${loop.max} ms`,
      );
    console.log(`  errors ${enhance.errors + health.errors}, non-2xx ${enhance.non2xx + health.non2xx}`);
    console.log(
      `  server RSS now ${mib(server.rss())}, peak ${mib(server.peakRss())} (target ≤ 2 GiB); ${rssSplit.peaks()}`,
    );
    if (store.kind === 'sqlite') {
      printTarget({
        name: 'HTTP enhance req/s (issue 2)',
        value: enhance.rps,
        bound: 'min',
        limit: 2000,
        unit: 'req/s',
      });
      printTarget({
        name: 'server peak RSS under HTTP load (issue 2)',
        value: server.peakRss() / 2 ** 20,
        bound: 'max',
        limit: 2048,
        unit: 'MiB',
      });
      printTarget({
        name: 'HTTP enhance req/s, % of /healthz req/s in the same run (issue 30)',
        value: (100 * enhance.rps) / health.rps,
        bound: 'min',
        limit: 20,
        unit: '%',
      });
      printTarget({
        name: `HTTP enhance p99 at ${connections} connections (issue 30)`,
        value: enhance.p99,
        bound: 'max',
        limit: 15,
        unit: 'ms',
      });
      if (matcherBefore && matcherAfter)
        printTarget(
          matcherRatio('http', (enhanceCpu * 1e6) / Math.max(1, enhance.requests), [
            matcherBefore.process,
            matcherAfter.process,
          ]),
        );
    }
    if (loop) {
      printTarget({
        name: `event-loop delay p99 under HTTP enhance load, ${store.kind} (issue 26)`,
        value: loop.p99,
        bound: 'max',
        limit: 20,
        unit: 'ms',
      });
    }
    return {
      store: store.kind,
      enhance,
      health,
      cpuPerRequestUs: (enhanceCpu * 1e6) / Math.max(1, enhance.requests),
      loop,
      load: os.loadavg()[0],
    };
  } finally {
    clearInterval(sampler);
    await server.stop();
  }
}

/** Both stores' figures side by side, and the issue's ratio. */
function compareStores(figures: readonly HttpFigures[]): void {
  const sqlite = figures.find((f) => f.store === 'sqlite');
  const postgres = figures.find((f) => f.store === 'postgres');
  if (!sqlite || !postgres) return;
  console.log('http, side by side:        sqlite      postgres');
  const row = (label: string, a: string, b: string) =>
    console.log(`  ${label.padEnd(24)}${a.padStart(8)}  ${b.padStart(12)}`);
  row('enhance req/s', sqlite.enhance.rps.toFixed(0), postgres.enhance.rps.toFixed(0));
  row('enhance p99 ms', String(sqlite.enhance.p99), String(postgres.enhance.p99));
  row('CPU µs/request', sqlite.cpuPerRequestUs.toFixed(0), postgres.cpuPerRequestUs.toFixed(0));
  row('loop delay p99 ms', String(sqlite.loop?.p99), String(postgres.loop?.p99));
  row('load average', sqlite.load.toFixed(1), postgres.load.toFixed(1));
  printTarget({
    name: 'HTTP enhance req/s on PostgreSQL, % of SQLite (issue 26)',
    value: (100 * postgres.enhance.rps) / sqlite.enhance.rps,
    bound: 'min',
    limit: 50,
    unit: '%',
  });
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      seconds: { type: 'string', default: '15' },
      connections: { type: 'string', default: '32' },
      store: { type: 'string', default: 'sqlite' },
    },
  });
  if (!values.data) throw new Error('--data DIR is required');
  const figures: HttpFigures[] = [];
  for (const kind of values.store.split(',').map((k) => parseStoreKind(k.trim()))) {
    const store = await openBenchStore(kind, values.data);
    try {
      figures.push(await benchHttp(values.data, Number(values.seconds), Number(values.connections), store));
    } finally {
      await store.drop();
    }
  }
  compareStores(figures);
}

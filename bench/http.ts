/**
 * HTTP throughput of enhance against the same server's /healthz, measured in one run.
 *
 *   npx node bench/http.ts --data DIR [--seconds 15] [--connections 32]
 *
 * DIR is a data directory holding a graph (`npm run bench` builds the 1M + 1M one). The server
 * runs as its own process; autocannon drives it from this process over loopback, so the load
 * generator shares the 2 cores with the server: the healthz figure is the ceiling on this
 * machine, the ratio is what matters.
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { warmPageCache } from './support/page-cache.ts';
import { mib, quarryCli, startServer } from './support/server.ts';
import { sampleQueries, toQueryString } from './support/queries.ts';
import { printTarget } from './support/targets.ts';

interface LoadResult {
  rps: number;
  /** Requests answered in all. */
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function load(url: string, paths: string[], seconds: number, connections: number): Promise<LoadResult> {
  let next = 0;
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
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export async function benchHttp(dataDir: string, seconds: number, connections: number): Promise<void> {
  const token = quarryCli(['token', 'create', '--unlimited'], dataDir).trim();
  const queries = sampleQueries(sqliteFileFor(dataDir), 20_000);
  const paths = queries.map((q) => `/kg/v3/enhance?${toQueryString(q)}&token=${token}`);
  const server = await startServer(dataDir);
  try {
    console.log(warmPageCache(sqliteFileFor(dataDir)));
    // Warm the page cache and the JIT before measuring.
    await load(server.url, paths.slice(0, 2000), 3, connections);
    // Server CPU per request too: on a shared machine req/s depend on what else runs, CPU per
    // request much less.
    let cpu = server.cpuSeconds();
    const health = await load(server.url, ['/healthz'], seconds, connections);
    const healthCpu = server.cpuSeconds() - cpu;
    cpu = server.cpuSeconds();
    const enhance = await load(server.url, paths, seconds, connections);
    const enhanceCpu = server.cpuSeconds() - cpu;
    const perRequest = (cpuSeconds: number, result: LoadResult) =>
      `${((cpuSeconds * 1e6) / Math.max(1, result.requests)).toFixed(0)} µs server CPU/request`;
    console.log(
      `http: ${connections} connections, ${seconds} s each, ${paths.length} distinct enhance queries`,
    );
    console.log(
      `  /healthz          ${health.rps.toFixed(0).padStart(7)} req/s   p50 ${health.p50} ms   p99 ${health.p99} ms   ${perRequest(healthCpu, health)}`,
    );
    console.log(
      `  /kg/v3/enhance    ${enhance.rps.toFixed(0).padStart(7)} req/s   p50 ${enhance.p50} ms   p99 ${enhance.p99} ms   ${perRequest(enhanceCpu, enhance)}   (target ≥ 2,000 req/s)`,
    );
    console.log(`  enhance/healthz   ${((enhance.rps / health.rps) * 100).toFixed(1)} %`);
    console.log(`  errors ${enhance.errors + health.errors}, non-2xx ${enhance.non2xx + health.non2xx}`);
    console.log(`  server RSS now ${mib(server.rss())}, peak ${mib(server.peakRss())} (target ≤ 2 GiB)`);
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
  } finally {
    await server.stop();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      seconds: { type: 'string', default: '15' },
      connections: { type: 'string', default: '32' },
    },
  });
  if (!values.data) throw new Error('--data DIR is required');
  await benchHttp(values.data, Number(values.seconds), Number(values.connections));
}

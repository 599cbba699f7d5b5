/**
 * `/healthz` during the fuzz and during the ReDoS corpus (issue 28: p99 ≤ 50 ms), against a real
 * server process (`quarry serve`), the load generator in this process. Three phases, each
 * printing `/healthz` p50, p99 and max with the load average beside them:
 * 1. idle: `/healthz` alone (the host's own floor);
 * 2. fuzz: `--requests` generated requests over every endpoint (test/support/fuzz.ts);
 * 3. ReDoS: every pattern of the corpus in every place a user pattern goes.
 *
 *   npx node bench/healthz-fuzz.ts [--requests 10000] [--seed 1] [--idle-seconds 10]
 *
 * Figures only: nothing fails on them (the fuzz test asserts no 5xx and no hang).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Client } from 'undici';
import {
  API_VALUES,
  type FuzzReport,
  JOB_INDEX_VALUES,
  redosRequests,
  runFuzz,
  sendAll,
} from '../test/support/fuzz.ts';
import { quarryCli, startServer } from './support/server.ts';
import { printTarget } from './support/targets.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '1' },
    'idle-seconds': { type: 'string', default: '10' },
  },
});

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-healthz-'));
quarryCli(['demo-data', '--organizations', '300', '--persons', '300', '--import'], dataDir);
const tokens = [1, 2].map(() => quarryCli(['token', 'create', '--unlimited'], dataDir).trim());
tokens.push(quarryCli(['token', 'create', '--credits', '1000'], dataDir).trim());
const server = await startServer(dataDir, { logFile: path.join(dataDir, 'server.log') });
const load = () => os.loadavg()[0].toFixed(1);

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function print(phase: string, healthz: FuzzReport['healthz'], extra: string, loadBefore: string): void {
  console.log(
    `${phase.padEnd(6)} /healthz ${healthz.samples} probes  p50 ${healthz.p50.toFixed(1)} ms  p99 ${healthz.p99.toFixed(1)} ms  ` +
      `max ${healthz.max.toFixed(1)} ms  load ${loadBefore} → ${load()}  ${extra}`,
  );
}

async function idle(seconds: number): Promise<FuzzReport['healthz']> {
  const client = new Client(server.url);
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const started = performance.now();
    const res = await client.request({ method: 'GET', path: '/healthz' });
    await res.body.text();
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await client.close();
  times.sort((a, b) => a - b);
  return {
    samples: times.length,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: times.at(-1)!,
  };
}

async function api(suffix: string, init?: RequestInit): Promise<Response> {
  return fetch(`${server.url}${suffix}`, init);
}

async function finishedJob(): Promise<string> {
  const records = Array.from({ length: 30 }, (_, i) => ({ type: 'Organization', name: `Company ${i}` }));
  const res = await api(`/kg/v3/enhance/bulk?token=${tokens[0]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(records),
  });
  const jobId = ((await res.json()) as { job_id: string }).job_id;
  for (;;) {
    const status = (await (await api(`/kg/v3/enhance/bulk/${jobId}/status?token=${tokens[0]}`)).json()) as {
      content: { status: string };
    };
    if (!['NOT_STARTED', 'IN_PROCESS'].includes(status.content.status)) return jobId;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function statuses(report: FuzzReport): string {
  const fives = Object.entries(report.byStatus).filter(([s]) => s.startsWith('5'));
  return `${report.sent} requests, 5xx ${fives.reduce((n, [, c]) => n + c, 0)}, hangs ${report.hangs.length}, ${(report.wallMs / 1000).toFixed(1)} s`;
}

try {
  console.log(
    `host: ${os.cpus()[0]?.model ?? '?'} × ${os.cpus().length}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  let before = load();
  print('idle', await idle(Number(values['idle-seconds'])), '', before);

  const jobId = await finishedJob();
  const keptJobId = await finishedJob();
  await api(`/v3/custom?token=${tokens[0]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      api: '/api/fuzzy',
      urlPattern: 'example',
      rules: [{ name: 'title', selector: 'h1' }],
    }),
  });
  const openapi = (await (await api('/openapi.json')).json()) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  before = load();
  const fuzz = await runFuzz(
    {
      origin: server.url,
      openapi,
      tokens,
      pathValues: {
        bulkjobId: [jobId, 'bj-0000000000000000', 'none'],
        jobIdx: JOB_INDEX_VALUES,
        api: API_VALUES,
      },
      safeUrls: [
        'http://127.0.0.1:9/',
        'http://localhost:9/page',
        'http://[::1]:9/',
        'file:///etc/passwd',
        'not a url',
      ],
    },
    { requests: Number(values.requests), seed: Number(values.seed), concurrency: 6 },
  );
  print('fuzz', fuzz.healthz, statuses(fuzz), before);
  printTarget({
    name: '/healthz p99 during the fuzz (issue 28)',
    value: fuzz.healthz.p99,
    bound: 'max',
    limit: 50,
    unit: 'ms',
  });

  before = load();
  const redos = await sendAll({ origin: server.url }, redosRequests(tokens[0], keptJobId), {
    concurrency: 6,
  });
  print('redos', redos.healthz, statuses(redos), before);
  printTarget({
    name: '/healthz p99 during the ReDoS corpus (issue 28)',
    value: redos.healthz.p99,
    bound: 'max',
    limit: 50,
    unit: 'ms',
  });
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

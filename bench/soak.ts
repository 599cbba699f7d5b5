/**
 * Soak (issue 28): enhance load, bulk jobs (submitted, run, downloaded) and extraction at once
 * for most of half an hour against one server process, printing its RSS every minute. The
 * target: RSS after the load (once the server is idle again) within 300 MB of its level before.
 *
 *   npx node bench/soak.ts [--data DIR] [--minutes 30] [--idle 3] [--cool 5] [--records 20000]
 *
 * Without --data, a fresh directory gets the seeded demo graph (50,000 + 50,000 entities). The
 * first `--idle` minutes are the "before" level (after a short warm-up), the last `--cool`
 * minutes the "after" level; load runs in between. Figures only: nothing fails on them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { sampleQueries, toQueryString } from './support/queries.ts';
import { mib, quarryCli, startServer } from './support/server.ts';
import { printTarget } from './support/targets.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    minutes: { type: 'string', default: '30' },
    idle: { type: 'string', default: '3' },
    cool: { type: 'string', default: '5' },
    records: { type: 'string', default: '20000' },
    connections: { type: 'string', default: '16' },
  },
});
const MINUTE = 60_000;
const minutes = Number(values.minutes);
const idleMinutes = Number(values.idle);
const coolMinutes = Number(values.cool);
const loadMinutes = minutes - idleMinutes - coolMinutes;
if (!(loadMinutes > 0)) throw new Error('--minutes must exceed --idle + --cool');

const dataDir = values.data ?? fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-soak-'));
if (!values.data) {
  quarryCli(['demo-data', '--organizations', '50000', '--persons', '50000', '--import'], dataDir);
}
const token = quarryCli(['token', 'create', '--unlimited'], dataDir).trim();
const queries = sampleQueries(sqliteFileFor(dataDir), 20_000);
const paths = queries.map((q) => `/kg/v3/enhance?${toQueryString(q)}&token=${token}`);
const records = Array.from({ length: Number(values.records) }, (_, i) => ({
  ...queries[i % queries.length],
  customId: `r${i}`,
}));
const bulkBody = JSON.stringify(records);
const page = `<!DOCTYPE html><html><head><title>Soak article</title></head><body><article><h1>Soak</h1>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit. </p>'.repeat(80)}</article></body></html>`;

const server = await startServer(dataDir, { logFile: path.join(dataDir, 'soak-server.log') });
const counts = { enhance: 0, enhanceNon2xx: 0, bulkJobs: 0, downloads: 0, extractions: 0, failures: 0 };
const samples: { minute: number; phase: string; rss: number }[] = [];
let phase = 'idle';
const started = Date.now();

function sample(): void {
  const minute = Math.round((Date.now() - started) / MINUTE);
  const rss = server.rss();
  samples.push({ minute, phase, rss });
  console.log(
    `minute ${String(minute).padStart(2)}  ${phase.padEnd(5)}  RSS ${mib(rss).padStart(11)}  peak ${mib(server.peakRss()).padStart(11)}  ` +
      `enhance ${counts.enhance} (non-2xx ${counts.enhanceNon2xx})  bulk jobs ${counts.bulkJobs}, downloads ${counts.downloads}  ` +
      `extractions ${counts.extractions}  failures ${counts.failures}  load ${os.loadavg()[0].toFixed(1)}`,
  );
}

const api = (suffix: string, init?: RequestInit) => fetch(`${server.url}${suffix}`, init);

async function bulkLoop(until: number): Promise<void> {
  while (Date.now() < until) {
    const submitted = await api(`/kg/v3/enhance/bulk?token=${token}&size=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bulkBody,
    });
    if (submitted.status !== 202) {
      counts.failures++;
      continue;
    }
    const { job_id: jobId } = (await submitted.json()) as { job_id: string };
    for (;;) {
      const status = await api(`/kg/v3/enhance/bulk/${jobId}/status?token=${token}`);
      const body = (await status.json()) as { content: { status: string } };
      if (!['NOT_STARTED', 'IN_PROCESS'].includes(body.content.status)) break;
      if (Date.now() > until + 5 * MINUTE) return;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    counts.bulkJobs++;
    for (const format of ['csv', 'jsonl']) {
      const download = await api(`/kg/v3/enhance/bulk/${jobId}?token=${token}&format=${format}&wait=600`);
      await download.arrayBuffer();
      if (download.status === 200) counts.downloads++;
      else counts.failures++;
    }
    await (await api(`/kg/v3/enhance/bulk/${jobId}/delete?token=${token}`)).arrayBuffer();
  }
}

async function extractLoop(until: number): Promise<void> {
  let i = 0;
  while (Date.now() < until) {
    const res = await api(
      `/v3/analyze?token=${token}&url=${encodeURIComponent(`https://soak.example/a/${i++}`)}`,
      {
        method: 'POST',
        headers: { 'content-type': 'text/html' },
        body: page,
      },
    );
    await res.arrayBuffer();
    if (res.status === 200) counts.extractions++;
    else counts.failures++;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function enhanceLoop(until: number): Promise<void> {
  let next = 0;
  while (Date.now() < until) {
    const seconds = Math.max(1, Math.min(60, Math.round((until - Date.now()) / 1000)));
    const result = await autocannon({
      url: server.url,
      connections: Number(values.connections),
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
    counts.enhance += result.requests.total;
    counts.enhanceNon2xx += result.non2xx;
  }
}

const timer = setInterval(sample, MINUTE);
try {
  console.log(
    `soak: ${minutes} min (${idleMinutes} idle, ${loadMinutes} load, ${coolMinutes} cool), data ${dataDir}, ` +
      `bulk jobs of ${records.length} records, ${values.connections} enhance connections, ${os.cpus().length} cores`,
  );
  // Warm-up: a little of each load, so "before" is a server that has answered everything once.
  await enhanceLoop(Date.now() + 10_000);
  await extractLoop(Date.now() + 5_000);
  sample();
  await new Promise((resolve) => setTimeout(resolve, idleMinutes * MINUTE - 15_000));
  const before = server.rss();
  phase = 'load';
  const until = Date.now() + loadMinutes * MINUTE;
  await Promise.all([enhanceLoop(until), bulkLoop(until), extractLoop(until)]);
  phase = 'cool';
  await new Promise((resolve) => setTimeout(resolve, coolMinutes * MINUTE));
  const after = server.rss();
  clearInterval(timer);
  sample();
  const peak = server.peakRss();
  console.log(
    `soak: RSS before load ${mib(before)}, peak ${mib(peak)}, after load ${mib(after)} ` +
      `(after − before ${((after - before) / 2 ** 20).toFixed(1)} MiB); enhance ${counts.enhance}, ` +
      `bulk jobs ${counts.bulkJobs}, downloads ${counts.downloads}, extractions ${counts.extractions}, failures ${counts.failures}`,
  );
  printTarget({
    name: 'soak: RSS after load minus before (issue 28)',
    value: (after - before) / 1e6,
    bound: 'max',
    limit: 300,
    unit: 'MB',
  });
} finally {
  clearInterval(timer);
  await server.stop();
  if (!values.data) fs.rmSync(dataDir, { recursive: true, force: true });
}

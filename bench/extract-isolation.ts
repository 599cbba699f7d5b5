/**
 * `/healthz` while heavy extractions run (issue 24 §8, issue 28): a real server (`quarry serve`)
 * gets `--heavy` concurrent Custom API previews whose selector (`*:has(*:contains(zzz))`) tests
 * every element against every descendant of a large page, plus the ReDoS corpus as rule set
 * patterns (one every 50 ms), while a client asks `/healthz` every 20 ms and records each latency. Prints p50,
 * p99 and max of `/healthz`, and how the previews ended (422 at their time budget).
 *
 *   npx node bench/extract-isolation.ts [--heavy 8] [--seconds 20] [--kb 1000]
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REDOS_CORPUS } from '../src/user-pattern/index.ts';
import { quarryCli, startServer } from './support/server.ts';
import { printTarget } from './support/targets.ts';

const { values: args } = parseArgs({
  options: {
    heavy: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '20' },
    kb: { type: 'string', default: '1000' },
  },
});
const HEAVY = Number(args.heavy);
const SECONDS = Number(args.seconds);

// Chains of 400 nested <div>s: every element's subtree is deep, so the selector computes the text
// of thousands of descendants for each of thousands of elements.
const chain = `${'<div><p>lorem ipsum dolor sit amet</p>'.repeat(400)}${'</div>'.repeat(400)}`;
const page = `<html><body><article><h1>Heavy</h1>${chain.repeat(Math.max(1, Math.ceil((Number(args.kb) * 1024) / chain.length)))}</article></body></html>`;
const site = http.createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html' });
  response.end(page);
});
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
const pageUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/heavy`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-isolation-'));
const token = quarryCli(['token', 'create', '--unlimited'], dir).trim();
const server = await startServer(dir, { env: { QUARRY_ALLOW_PRIVATE_NETWORK: '1' } });
console.log(
  `heavy previews: ${HEAVY} at a time on a ${(page.length / 1024).toFixed(0)} KB page; ReDoS corpus: ${REDOS_CORPUS.length} patterns; ${SECONDS} s; load ${os.loadavg()[0].toFixed(1)}`,
);

const statuses = new Map<number, number>();
let stop = false;
async function heavyLoop(): Promise<void> {
  while (!stop) {
    const res = await fetch(`${server.url}/v3/custom/preview?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api: '/api/heavy',
        urlPattern: 'heavy',
        url: pageUrl,
        rules: [
          { name: 'hit', selector: '*:has(*:contains(zzz))' },
          { name: 'text', selector: '*:contains(zzz)' },
        ],
      }),
    }).catch(() => undefined);
    if (res) statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    await res?.arrayBuffer();
  }
}
async function redosLoop(): Promise<void> {
  for (let i = 0; !stop; i++) {
    const { pattern, input } = REDOS_CORPUS[i % REDOS_CORPUS.length];
    const res = await fetch(`${server.url}/v3/custom/preview?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api: '/api/redos',
        urlPattern: pattern,
        url: `https://example.test/${encodeURIComponent(input)}`,
        html: `<html><body><p>${input}</p></body></html>`,
        rules: [
          { name: 'm', selector: `p:matches(${pattern})` },
          { name: 'r', selector: 'p', filters: [{ type: 'replace', args: [pattern, 'x'] }] },
        ],
      }),
    }).catch(() => undefined);
    if (res) statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    await res?.arrayBuffer();
    // One hostile pattern every 50 ms: the corpus runs beside the heavy previews, not a flood.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const latencies: number[] = [];
const loops = [...Array.from({ length: HEAVY }, heavyLoop), redosLoop()];
const deadline = performance.now() + SECONDS * 1000;
while (performance.now() < deadline) {
  const started = performance.now();
  const res = await fetch(`${server.url}/healthz`);
  await res.arrayBuffer();
  latencies.push(performance.now() - started);
  await new Promise((resolve) => setTimeout(resolve, 20));
}
stop = true;
await Promise.allSettled(loops);
await server.stop();
site.close();
fs.rmSync(dir, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
console.log(
  `healthz: ${latencies.length} requests, p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`,
);
console.log(`previews answered: ${[...statuses].map(([status, n]) => `${n} × ${status}`).join(', ')}`);
printTarget({
  name: '/healthz p99 while 8 heavy extractions run (issue 24)',
  value: at(0.99),
  bound: 'max',
  limit: 50,
  unit: 'ms',
});

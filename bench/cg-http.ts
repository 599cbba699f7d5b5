/**
 * Instruction counts of the server's threads for N enhance requests against N /healthz: CPU
 * figures that the load of a shared machine does not move (issue 30).
 *
 *   npx node bench/cg-http.ts --data DIR --out OUTDIR [--main other/src/main.ts] [--requests 1000]
 *     [--warm 2500] [--concurrency 8]
 *
 * DIR is written to (a token is created): give a copy. Runs `quarry serve` under
 * `valgrind --tool=callgrind --separate-threads=yes` with one enhance thread and
 * `--perf-basic-prof` (JIT code is named in /tmp/perf-PID.map), sends `--warm` enhance and 2,000
 * /healthz requests, then zeroes the counters, sends `--requests` /healthz requests and dumps
 * (OUTDIR/cg.out.1-NN, one file per thread: 01 is the main thread), zeroes, sends as many
 * enhance requests (the HTTP bench's queries) and dumps (cg.out.2-NN). Read a file's `summary:`
 * line for its total, `callgrind_annotate --inclusive=yes` for where it went (JIT addresses can
 * be looked up in the perf map). Valgrind runs the server ~30-50× slower: a 20k + 20k graph and
 * the defaults take ~15 minutes on a quiet host.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, setGlobalDispatcher } from 'undici';
import { sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { freePort, MAIN, quarryCli, waitForHealthz } from './support/server.ts';
import { sampleQueries, toQueryString } from './support/queries.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    out: { type: 'string' },
    main: { type: 'string' },
    requests: { type: 'string', default: '1000' },
    warm: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '8' },
  },
});
const dataDir = values.data!;
const out = path.resolve(values.out!);
fs.mkdirSync(out, { recursive: true });
const n = Number(values.requests);
const token = quarryCli(['token', 'create', '--credits', '1000000000'], dataDir).trim();
const queries = sampleQueries(sqliteFileFor(dataDir), 20_000);
const paths = queries.map((q) => `/kg/v3/enhance?${toQueryString(q)}&token=${token}`);
// No headers or body timeout: under valgrind on a loaded host the first answers (the thread's
// vocabularies, compiles) can take longer than undici's 300 s (two runs died of it at load 15-20).
// The requests fetch sends are the same.
setGlobalDispatcher(new Agent({ headersTimeout: 0, bodyTimeout: 0 }));
const port = await freePort();
const child = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    '--separate-threads=yes',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${out}/cg.out`,
    process.execPath,
    '--expose-gc',
    '--perf-basic-prof',
    '--interpreted-frames-native-stack',
    values.main ?? MAIN,
    'serve',
    '--port',
    String(port),
    '--data',
    dataDir,
  ],
  {
    env: { ...process.env, LOG_LEVEL: 'info', QUARRY_ENHANCE_THREADS: '1' },
    stdio: ['ignore', fs.openSync(`${out}/server.log`, 'a'), fs.openSync(`${out}/valgrind.log`, 'a')],
  },
);
const url = `http://127.0.0.1:${port}`;
await waitForHealthz(child, url, { timeoutMs: Infinity, pollMs: 500 });
console.log('up');
async function drive(list: string[], count: number, offset: number): Promise<void> {
  let next = 0;
  const one = async () => {
    while (next < count) {
      const p = list[(offset + next++) % list.length];
      const res = await fetch(url + p);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${res.status} ${p}`);
    }
  };
  await Promise.all(Array.from({ length: Number(values.concurrency) }, one));
}
const ctl = (...args: string[]) => {
  const r = spawnSync('callgrind_control', [...args, String(child.pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr + r.stdout);
};
let t = Date.now();
await drive(paths, Number(values.warm), 0);
await drive(['/healthz'], 2000, 0);
console.log('warm', Date.now() - t);
ctl('-z');
t = Date.now();
await drive(['/healthz'], n, 0);
ctl('-d', 'healthz');
console.log('healthz', Date.now() - t);
ctl('-z');
t = Date.now();
await drive(paths, n, 5000);
ctl('-d', 'enhance');
console.log('enhance', Date.now() - t);
child.kill('SIGINT');
await new Promise((r) => child.once('exit', r));

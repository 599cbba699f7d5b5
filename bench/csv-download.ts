/**
 * The CSV download of a completed bulk job, alone, as `bench/bulk.ts` times it (request → last
 * byte), split into waiting for the export (request → response headers: the export threads,
 * joining their parts, the coverage report) and sending it (headers → last byte). Each round asks
 * for a new `exportspec` equal to the default columns (the default columns written out, and a
 * different number of empty `;`), so each generates its export and its coverage report in one pass, as the
 * first download after a job completes does.
 *
 *   npx node bench/csv-download.ts --data DIR [--rounds 3] [--main src/main.ts,/tmp/base/src/main.ts]
 *
 * DIR holds a completed bulk job (the newest one is used; e.g. what `bench/bulk.ts --data DIR`
 * left with `--keep-job`; it is given to a new token). With several `--main`, servers of those checkouts take turns over DIR, one at a time
 * (A B A B …), each round a new server. Prints wall seconds, rows/s and the server's CPU per row
 * by thread. Figures only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { QUERY_FIELDS } from '../src/kg/query-fields.ts';
import { accountsFileFor, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { MAIN, quarryCli, startServer } from './support/server.ts';
import { cpuGrowth, threadCpu } from './support/thread-cpu.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    main: { type: 'string', default: MAIN },
  },
});
if (!values.data) throw new Error('--data DIR is required');
const dataDir = values.data;
const mains = values.main.split(',').map((m) => path.resolve(m));

function newestJob(): { id: string; total: number } {
  const db = new DatabaseSync(sqliteFileFor(dataDir), { readOnly: true });
  try {
    const row = db
      .prepare("SELECT id, total FROM bulk_jobs WHERE state = 'COMPLETE' ORDER BY rowid DESC LIMIT 1")
      .get() as { id: string; total: number } | undefined;
    if (!row) throw new Error(`no completed bulk job in ${dataDir}`);
    return row;
  } finally {
    db.close();
  }
}

/** The default columns (src/export/export-spec.ts), as an `exportspec`. */
const DEFAULT_COLUMNS = [
  'id',
  'name',
  'type',
  'score',
  ...QUERY_FIELDS.map((f) => `query.${f}`),
  'customId',
].join(';');
const job = newestJob();
const token = quarryCli(['token', 'create', '--unlimited'], dataDir).trim();
{
  // The job belongs to the token of the run that submitted it: give it to the new one.
  // The tokens are in the store's accounts file (src/storage/sqlite/accounts-file.ts).
  const db = new DatabaseSync(sqliteFileFor(dataDir));
  db.prepare('ATTACH DATABASE ? AS accounts').run(accountsFileFor(sqliteFileFor(dataDir)));
  db.prepare(
    'UPDATE bulk_jobs SET token_id = (SELECT id FROM accounts.tokens ORDER BY created_at DESC, rowid DESC LIMIT 1) WHERE id = ?',
  ).run(job.id);
  db.close();
}
const log = path.join(os.tmpdir(), 'quarry-csv-download.log');
// A round number of `;` never asked before in this store: a fresh export and report each time.
let spec = Date.now() % 1000;
console.log(`job ${job.id}: ${job.total.toLocaleString('en')} records; server log ${log}`);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const main of mains) {
    const server = await startServer(dataDir, { main, logFile: log });
    await new Promise((r) => setTimeout(r, 1000));
    const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    const before = threadCpu(server.pid);
    const cpu0 = server.cpuSeconds();
    const exportspec = `${DEFAULT_COLUMNS}${';'.repeat(1 + (spec++ % 5000))}`;
    const started = performance.now();
    const response = await fetch(
      `${server.url}/kg/v3/enhance/bulk/${job.id}?token=${token}&format=csv&wait=600&exportspec=${encodeURIComponent(exportspec)}`,
    );
    const headers = performance.now();
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 0x0a) lines++;
    }
    const ended = performance.now();
    const rows = lines - 1;
    const cpu = server.cpuSeconds() - cpu0;
    const byThread = [...cpuGrowth(before, threadCpu(server.pid))]
      .filter(([, s]) => s * 1e6 >= rows / 10)
      .map(([name, s]) => `${name} ${((1e6 * s) / rows).toFixed(1)}`)
      .join(', ');
    const report = response.headers.get('x-diffbot-reportid');
    const reportStatus = (
      await fetch(`${server.url}/kg/v3/enhance/bulk/report/${job.id}/${report}?token=${token}`)
    ).status;
    console.log(
      `${path.relative(process.cwd(), main).padEnd(28)} load ${load}  ${((ended - started) / 1000).toFixed(2)} s ` +
        `= ${(rows / ((ended - started) / 1000)).toFixed(0)} rows/s (wait ${((headers - started) / 1000).toFixed(2)} s, ` +
        `send ${((ended - headers) / 1000).toFixed(2)} s), ${(bytes / 2 ** 20).toFixed(0)} MiB, ` +
        `server CPU ${((1e6 * cpu) / rows).toFixed(1)} µs/row (${byThread}) [HTTP ${response.status}, report ${reportStatus}]`,
    );
    await server.stop();
  }
}

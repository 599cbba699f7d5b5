/**
 * One export thread (`src/bulk/export-worker.ts`) over a stored bulk job, alone: its CPU per row
 * for a CSV export with its coverage report, from copies of the store whose results keep their
 * summaries in the compact form, as JSON (results stored before the compact form), and none
 * (every summary NULL: what results stored before migration 103 read; `--skip-bare` leaves it out).
 *
 *   npx node bench/export-thread.ts --data DIR [--records 200000] [--rounds 2] [--format csv] [--skip-bare]
 *
 * DIR holds a graph (e.g. `quarry demo-data --organizations 50000 --persons 50000 --import`).
 * The first run submits a job of `--records` id records (`{"id": …}` of entities drawn at random,
 * seeded) to a server over DIR and waits until it is complete; later runs reuse it. Then, for
 * `--rounds` rounds, alternating, the thread writes the export and report of the whole job from
 * each store; the CPU of this process (all its threads) per row is printed, and the files of
 * all are compared byte for byte. Figures only.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import type { ExportTask, ExportTaskResult } from '../src/bulk/export-task.ts';
import { compactSummary, jsonSummary, parseSummary } from '../src/export/index.ts';
import { sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { seededRandom } from './support/queries.ts';
import { quarryCli, startServer } from './support/server.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    records: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '2' },
    format: { type: 'string', default: 'csv' },
    'skip-bare': { type: 'boolean', default: false },
  },
});
if (!values.data) throw new Error('--data DIR is required');
const dataDir = values.data;
const records = Number(values.records);
const JOB_NAME = `export-thread-${records}`;

function jobId(file: string): string | undefined {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const row = db.prepare("SELECT id FROM bulk_jobs WHERE name = ? AND state = 'COMPLETE'").get(JOB_NAME) as
      | { id: string }
      | undefined;
    return row?.id;
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

async function submitJob(): Promise<string> {
  const file = sqliteFileFor(dataDir);
  const db = new DatabaseSync(file, { readOnly: true });
  const maxRef = Number((db.prepare('SELECT max(ref) AS m FROM entities').get() as { m: number }).m);
  const byRef = db.prepare('SELECT id FROM entities WHERE ref = ?');
  const random = seededRandom(11);
  const ids: string[] = [];
  while (ids.length < 50_000) {
    const row = byRef.get(1 + Math.floor(random() * maxRef)) as { id: string } | undefined;
    if (row) ids.push(row.id);
  }
  db.close();
  const token = quarryCli(['token', 'create', '--unlimited'], dataDir).trim();
  const server = await startServer(dataDir);
  try {
    const body = `[${Array.from({ length: records }, (_, i) => JSON.stringify({ id: ids[i % ids.length], customId: `r${i}` })).join(',')}]`;
    const res = await fetch(`${server.url}/kg/v3/enhance/bulk?token=${token}&name=${JOB_NAME}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
    const { job_id: id } = (await res.json()) as { job_id: string };
    for (;;) {
      const status = await fetch(`${server.url}/kg/v3/enhance/bulk/${id}/status?token=${token}`);
      const content = ((await status.json()) as { content: { status: string } }).content;
      if (content.status === 'COMPLETE') return id;
      if (content.status !== 'IN_PROCESS' && content.status !== 'NOT_STARTED')
        throw new Error(`job ended ${content.status}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } finally {
    await server.stop();
  }
}

function runThread(task: ExportTask): Promise<ExportTaskResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('../src/bulk/export-worker.ts', import.meta.url), { workerData: task });
    worker.on('message', (message: { ok: boolean; result?: ExportTaskResult; error?: string }) =>
      message.ok ? resolve(message.result!) : reject(new Error(message.error)),
    );
    worker.on('error', reject);
  });
}

function md5(file: string): string {
  return createHash('md5').update(fs.readFileSync(file)).digest('hex');
}

const file = sqliteFileFor(dataDir);
const id = jobId(file) ?? (await submitJob());
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-export-thread-'));
/** A copy of the store with every result's summary replaced by `summary(stored)`, or NULL. */
function storeCopy(name: string, summary: ((stored: string) => string) | null): string {
  const copy = path.join(work, `${name}.sqlite`);
  const source = new DatabaseSync(file, { readOnly: true });
  source.exec(`VACUUM INTO '${copy}'`);
  source.close();
  const db = new DatabaseSync(copy);
  if (summary === null) {
    db.exec('UPDATE bulk_results SET summary = NULL');
  } else {
    const rows = db.prepare('SELECT key, summary FROM bulk_results WHERE summary IS NOT NULL').all() as {
      key: number;
      summary: string;
    }[];
    const update = db.prepare('UPDATE bulk_results SET summary = ? WHERE key = ?');
    db.exec('BEGIN');
    for (const row of rows) update.run(summary(row.summary), row.key);
    db.exec('COMMIT');
  }
  db.close();
  return copy;
}
// The same results three ways: summaries in the compact form (as stored now, where it can
// represent them), as JSON (as stored before the compact form), and none (before migration 103).
const stores: Record<string, string> = {
  compact: storeCopy('compact', (stored) => {
    const parsed = parseSummary(stored);
    return compactSummary(parsed) ?? jsonSummary(parsed);
  }),
  'JSON summaries': storeCopy('json', (stored) => JSON.stringify(parseSummary(stored))),
};
if (!values['skip-bare']) stores['no summaries'] = storeCopy('bare', null);
const digests = new Map<string, string>();
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const [label, storeFile] of Object.entries(stores)) {
    const out = path.join(work, label.replaceAll(' ', '-'));
    const task: ExportTask = {
      store: { adapter: 'sqlite', file: storeFile },
      jobId: id,
      options: { format: values.format },
      offset: 0,
      limit: null,
      exportPath: `${out}.${values.format}`,
      reportCsvPath: `${out}.coverage.csv`,
      reportJsonPath: `${out}.coverage.json`,
      tempDir: work,
      niceness: 0,
    };
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await runThread(task);
    const wall = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const us = (used.user + used.system) / result.rows;
    const digest = [task.exportPath!, task.reportCsvPath!, task.reportJsonPath!].map(md5).join(' ');
    digests.set(label, digest);
    console.log(
      `round ${round} ${label.padEnd(14)} ${result.rows} rows, ${wall.toFixed(2)} s, CPU ${us.toFixed(2)} µs/row (load ${os.loadavg()[0].toFixed(1)}) md5 ${digest}`,
    );
  }
}
console.log(new Set(digests.values()).size === 1 ? 'files byte-identical' : 'FILES DIFFER');
fs.rmSync(work, { recursive: true, force: true });

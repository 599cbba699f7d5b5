/**
 * The store a benchmark's server runs on (`--store sqlite|postgres`), so that one benchmark
 * measures both stores side by side (issue 26):
 * - `sqlite`: the embedded store of the data directory, as always;
 * - `postgres`: a fresh database on the PostgreSQL server of `QUARRY_BENCH_DATABASE_URL`
 *   (default postgres://postgres@127.0.0.1:5432/test, only used to create and drop others),
 *   holding a copy of the data directory's graph; dropped by `drop()`.
 *
 * The database server's CPU counts: a PostgreSQL deployment spends CPU in its backends that the
 * embedded store spends in the Quarry process. `databaseCpuSeconds()` sums the CPU of the
 * backends serving this database (sampled while they live: `sample()` every few hundred ms).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { openStorage, type SerializedEntityWrite } from '../../src/storage/index.ts';
import { sqliteFileFor } from '../../src/storage/sqlite/index.ts';

const ADMIN_URL = process.env.QUARRY_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type StoreKind = 'sqlite' | 'postgres';

export interface BenchStore {
  readonly kind: StoreKind;
  /** Environment of every Quarry process of the benchmark (the database URL on PostgreSQL). */
  readonly env: Record<string, string>;
  /** Samples the CPU of the database's backends (call every few hundred ms while measuring). */
  sample(): Promise<void>;
  /** CPU seconds the database server spent for this database so far (0 on the embedded store). */
  databaseCpuSeconds(): number;
  /**
   * The same by the backends' `application_name` (`quarry-bridge`: the matcher's reads over the
   * blocking bridge; `quarry`: the pool's statements — commits, results, charges, queue items;
   * `quarry-queue`: pg-boss's own pool).
   */
  databaseCpuByApplication(): Map<string, number>;
  drop(): Promise<void>;
}

export function parseStoreKind(value: string | undefined): StoreKind {
  if (value === undefined || value === 'sqlite') return 'sqlite';
  if (value === 'postgres') return 'postgres';
  throw new Error(`--store must be sqlite or postgres, not ${value}`);
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** CPU seconds (user + system) of process `pid`, or undefined when it is gone. */
function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Copies the graph of the embedded store `file` into the PostgreSQL database at `url`. */
async function copyGraph(file: string, url: string): Promise<number> {
  const source = new DatabaseSync(file, { readOnly: true });
  const target = openStorage({ adapter: 'postgres', url });
  let copied = 0;
  try {
    const rows = source
      .prepare(`SELECT e.id, e.type, e.doc, e.ledger, p.profile, e.keys
        FROM entities AS e JOIN entity_profiles AS p ON p.ref = e.ref ORDER BY e.ref`)
      .iterate() as Iterable<{
      id: string;
      type: 'Organization' | 'Person';
      doc: string;
      ledger: string | null;
      profile: string;
      keys: string;
    }>;
    let batch: SerializedEntityWrite[] = [];
    const flush = () => {
      target.entities.writeBatch(batch, { deferKeys: true });
      copied += batch.length;
      batch = [];
    };
    for (const row of rows) {
      batch.push({
        id: row.id,
        type: row.type,
        json: { doc: row.doc, ledger: row.ledger, profile: row.profile, keys: row.keys },
      });
      if (batch.length === 5_000) flush();
    }
    if (batch.length > 0) flush();
    target.entities.indexPendingKeys();
    return copied;
  } finally {
    source.close();
    await target.close();
  }
}

/** Opens the store a benchmark runs on, with the graph of `dataDir` (copied on PostgreSQL). */
export async function openBenchStore(kind: StoreKind, dataDir: string): Promise<BenchStore> {
  if (kind === 'sqlite') {
    return {
      kind,
      env: {},
      sample: async () => {},
      databaseCpuSeconds: () => 0,
      databaseCpuByApplication: () => new Map(),
      drop: async () => {},
    };
  }
  const name = `quarry_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const started = performance.now();
  const copied = await copyGraph(sqliteFileFor(dataDir), url.toString());
  console.error(
    `store: ${copied.toLocaleString('en')} entities copied to PostgreSQL database ${name} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  // CPU per backend: the first sample is the baseline, the last the figure; a backend that ends
  // between samples loses at most one sampling interval of CPU.
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const application = new Map<number, string>();
  const watcher = new pg.Client({ connectionString: ADMIN_URL });
  await watcher.connect();
  const sample = async () => {
    const { rows } = await watcher.query<{ pid: number; application_name: string }>(
      'SELECT pid, application_name FROM pg_stat_activity WHERE datname = $1',
      [name],
    );
    for (const { pid, application_name } of rows) {
      application.set(pid, application_name || '(unnamed)');
      const cpu = processCpuSeconds(pid);
      if (cpu === undefined) continue;
      if (!first.has(pid)) first.set(pid, cpu);
      last.set(pid, cpu);
    }
  };
  return {
    kind,
    env: { QUARRY_DATABASE_URL: url.toString() },
    sample,
    databaseCpuSeconds: () => {
      let total = 0;
      for (const [pid, cpu] of last) total += cpu - (first.get(pid) ?? cpu);
      return total;
    },
    databaseCpuByApplication: () => {
      const byName = new Map<string, number>();
      for (const [pid, cpu] of last) {
        const key = application.get(pid) ?? '(unnamed)';
        byName.set(key, (byName.get(key) ?? 0) + cpu - (first.get(pid) ?? cpu));
      }
      return byName;
    },
    drop: async () => {
      await watcher.end();
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * Why the storage ports that the event loop calls are asynchronous (docs/storage.md "Port
 * shape"): the same credit charges, issued by 200 concurrent simulated requests on one thread,
 * through (a) the embedded SQLite store (synchronous, today's default), (b) PostgreSQL through
 * a synchronous bridge (a helper thread owns the connection, the caller blocks on
 * `Atomics.wait` per call: the sketch the project's notes once proposed) and (c) PostgreSQL
 * through `pg`'s asynchronous pool. Prints charges/s and the event-loop delay (p50/p99/max)
 * that a request arriving meanwhile would have waited.
 *
 *   npx node bench/port-shape.ts [--charges 4000] [--concurrency 200] [--url postgres://…]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { SyncPostgres } from '../src/storage/postgres/sync-bridge.ts';

const { values } = parseArgs({
  options: {
    charges: { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '200' },
    url: {
      type: 'string',
      default: process.env.QUARRY_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    },
  },
});
const CHARGES = Number(values.charges);
const CONCURRENCY = Number(values.concurrency);
const schema = `bench_port_shape_${process.pid}`;

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
}

/** Runs `CHARGES` charges from `CONCURRENCY` request loops, each yielding to the loop first. */
async function drive(charge: () => unknown): Promise<Figures> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let left = CHARGES;
  const loop = async () => {
    while (left > 0) {
      left--;
      // A request arrives: its handler starts in a later turn of the loop, as HTTP's would.
      await new Promise((resolve) => setImmediate(resolve));
      await charge();
    }
  };
  delay.enable();
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  const ms = (ns: number) => ns / 1e6;
  return {
    perSecond: CHARGES / seconds,
    p50: ms(delay.percentile(50)),
    p99: ms(delay.percentile(99)),
    max: ms(delay.max),
  };
}

function show(name: string, f: Figures): void {
  console.log(
    `${name.padEnd(34)} ${f.perSecond.toFixed(0).padStart(7)} charges/s   event-loop delay p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms, max ${f.max.toFixed(1)} ms`,
  );
}

const CHARGE_SQL = 'UPDATE tokens SET credits = credits - $1 WHERE id = $2 AND credits >= $1';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-port-shape-'));
const sqlite = new DatabaseSync(path.join(dir, 'q.sqlite'));
sqlite.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
sqlite.exec('CREATE TABLE tokens (id TEXT PRIMARY KEY, credits INTEGER)');
sqlite.prepare('INSERT INTO tokens VALUES (?, ?)').run('t', 1e12);
const sqliteCharge = sqlite.prepare('UPDATE tokens SET credits = credits - ? WHERE id = ? AND credits >= ?');

const admin = new pg.Client({ connectionString: values.url });
await admin.connect();
await admin.query(`CREATE SCHEMA ${schema}`);
try {
  await admin.query(`CREATE TABLE ${schema}.tokens (id TEXT PRIMARY KEY, credits BIGINT)`);
  await admin.query(`INSERT INTO ${schema}.tokens VALUES ('t', 1000000000000)`);
  const bridge = new SyncPostgres(
    `${values.url}${values.url.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`,
  );
  const pool = new pg.Pool({ connectionString: values.url, max: 8, options: `-c search_path=${schema}` });

  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, ${os.cpus().length} cores`,
  );
  console.log(`${CHARGES} charges from ${CONCURRENCY} concurrent requests on one thread`);
  // Twice each, alternating, so that a burst of load on a shared machine shows as disagreement.
  for (let round = 1; round <= 2; round++) {
    show(`sqlite (synchronous)`, await drive(() => sqliteCharge.run(1, 't', 1)));
    show(`postgres, synchronous bridge`, await drive(() => bridge.query(CHARGE_SQL, [1, 't'])));
    show(`postgres, asynchronous pool (8)`, await drive(() => pool.query(CHARGE_SQL, [1, 't'])));
  }
  // One caller, one call at a time: what a worker thread's synchronous read costs per call.
  const client = new pg.Client({ connectionString: values.url, options: `-c search_path=${schema}` });
  await client.connect();
  const READ = 'SELECT credits FROM tokens WHERE id = $1';
  for (let round = 1; round <= 2; round++) {
    let t = performance.now();
    for (let i = 0; i < 2000; i++) sqlite.prepare('SELECT credits FROM tokens WHERE id = ?').get('t');
    const sqliteUs = ((performance.now() - t) * 1000) / 2000;
    t = performance.now();
    for (let i = 0; i < 2000; i++) bridge.query(READ, ['t']);
    const bridgeUs = ((performance.now() - t) * 1000) / 2000;
    t = performance.now();
    for (let i = 0; i < 2000; i++) await client.query(READ, ['t']);
    const asyncUs = ((performance.now() - t) * 1000) / 2000;
    console.log(
      `one read at a time: sqlite ${sqliteUs.toFixed(0)} µs, postgres bridge ${bridgeUs.toFixed(0)} µs, postgres await ${asyncUs.toFixed(0)} µs per call`,
    );
  }
  await client.end();
  bridge.close();
  await pool.end();
} finally {
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
  sqlite.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Which job queue spreads bulk work over the processes of a deployment (issue 26): pg-boss in the
 * PostgreSQL database, worked on the way `storage/postgres/pg-work-queue.ts` does (each item
 * taken and completed in the transaction that writes its results), or BullMQ on Redis
 * (`QUARRY_REDIS_URL`, default redis://127.0.0.1:6379), whose workers write results to
 * PostgreSQL beside it.
 *
 *   npx node bench/queue-choice.ts [--items 2000] [--concurrency 6]
 *
 * Two figures each: items per second through the queue with a result row written per item, and
 * how long an item taken by a process that is then SIGKILLed waits before another process works
 * on it (a child process takes one item and is killed). Library defaults throughout.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Queue, Worker } from 'bullmq';
import pg from 'pg';
import { openStorage } from '../src/storage/index.ts';

const ADMIN_URL = process.env.QUARRY_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = new URL(process.env.QUARRY_REDIS_URL ?? 'redis://127.0.0.1:6379');
const connection = { host: REDIS.hostname, port: Number(REDIS.port || 6379) };
const QUEUE = 'queue-choice';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `quarry_queue_${process.pid}_${randomBytes(3).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A result row, as a bulk batch writes its results: one origin-fetch record per item. */
function resultRow(n: number) {
  return [
    {
      url: `https://example.com/${n}`,
      fetchedAt: Date.now(),
      hasResult: true,
      httpStatus: 200,
      message: 'ok',
    },
  ];
}

/** pg-boss: items queued in one transaction, each worked on and completed with its result row. */
async function pgBossThroughput(url: string, items: number, concurrency: number): Promise<number> {
  const storage = openStorage({ adapter: 'postgres', url });
  const queue = storage.workQueue!;
  await storage.transaction((tx) =>
    queue.send(
      tx,
      QUEUE,
      Array.from({ length: items }, (_, n) => ({ n })),
    ),
  );
  const started = performance.now();
  let done = 0;
  // The result row commits in the transaction that completes the item (pg-work-queue.ts).
  await queue.work(QUEUE, { concurrency }, async (item, tx) => {
    await tx.originFetches.record(resultRow(item.n as number));
    done++;
  });
  while (done < items) await sleep(20);
  const seconds = (performance.now() - started) / 1000;
  await storage.close();
  return items / seconds;
}

/** BullMQ: items added in bulk; each worker writes its result row to PostgreSQL. */
async function bullThroughput(url: string, items: number, concurrency: number): Promise<number> {
  const name = `${QUEUE}-${process.pid}`;
  const queue = new Queue(name, { connection });
  await queue.obliterate({ force: true }).catch(() => {});
  const storage = openStorage({ adapter: 'postgres', url });
  await queue.addBulk(Array.from({ length: items }, (_, n) => ({ name: 'item', data: { n } })));
  let done = 0;
  const started = performance.now();
  const worker = new Worker(
    name,
    async (job) => {
      // Beside the queue: the result commits on its own, before the item completes in Redis.
      await storage.originFetches.record(resultRow(items + (job.data.n as number)));
      done++;
    },
    { connection, concurrency },
  );
  while (done < items) await sleep(20);
  const seconds = (performance.now() - started) / 1000;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await storage.close();
  return items / seconds;
}

/**
 * A child process takes one item and is killed while working on it; returns how long after the
 * kill a worker here gets the item.
 */
async function crashRecovery(kind: 'pgboss' | 'bullmq', url: string): Promise<number> {
  const child = spawn(process.execPath, [import.meta.filename, '--child', kind, '--url', url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('taken')) resolve();
    });
  });
  child.kill('SIGKILL');
  const killedAt = performance.now();
  let recoveredAt = 0;
  if (kind === 'pgboss') {
    const storage = openStorage({ adapter: 'postgres', url });
    await storage.workQueue!.work(`${QUEUE}-crash`, { concurrency: 1 }, async () => {
      recoveredAt ||= performance.now();
    });
    while (!recoveredAt) await sleep(10);
    await storage.close();
  } else {
    const worker = new Worker(
      `${QUEUE}-crash-${process.pid}`,
      async () => {
        recoveredAt ||= performance.now();
      },
      { connection },
    );
    while (!recoveredAt) await sleep(10);
    await worker.close();
    const queue = new Queue(`${QUEUE}-crash-${process.pid}`, { connection });
    await queue.obliterate({ force: true });
    await queue.close();
  }
  return (recoveredAt - killedAt) / 1000;
}

/** The child: queues one item, takes it, says so, and hangs until killed. */
async function child(kind: string, url: string, parent: number): Promise<void> {
  if (kind === 'pgboss') {
    const storage = openStorage({ adapter: 'postgres', url });
    const queue = storage.workQueue!;
    await storage.transaction((tx) => queue.send(tx, `${QUEUE}-crash`, [{ n: 1 }]));
    await queue.work(`${QUEUE}-crash`, { concurrency: 1 }, async () => {
      console.log('taken');
      await new Promise(() => {});
    });
  } else {
    const name = `${QUEUE}-crash-${parent}`;
    const queue = new Queue(name, { connection });
    await queue.add('item', { n: 1 });
    new Worker(
      name,
      async () => {
        console.log('taken');
        await new Promise(() => {});
      },
      { connection },
    );
  }
}

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '6' },
    child: { type: 'string' },
    url: { type: 'string' },
    parent: { type: 'string' },
  },
});
if (values.child) {
  await child(values.child, values.url!, Number(values.parent ?? process.ppid));
} else {
  const items = Number(values.items);
  const concurrency = Number(values.concurrency);
  const database = await createDatabase();
  try {
    console.log(
      `queue choice: ${items} items, ${concurrency} at once, load average ${os.loadavg()[0].toFixed(1)}`,
    );
    const boss = await pgBossThroughput(database.url, items, concurrency);
    const bull = await bullThroughput(database.url, items, concurrency);
    console.log(`  items/s with a result row each:   pg-boss ${boss.toFixed(0)}, BullMQ ${bull.toFixed(0)}`);
    const bossCrash = await crashRecovery('pgboss', database.url);
    const bullCrash = await crashRecovery('bullmq', database.url);
    console.log(
      `  an item whose process was SIGKILLed is worked on again after: pg-boss ${bossCrash.toFixed(2)} s, BullMQ ${bullCrash.toFixed(2)} s`,
    );
  } finally {
    await database.drop();
  }
}

/**
 * The work queue of a PostgreSQL deployment: pg-boss, in the same database (schema `pgboss`).
 * Why pg-boss and not BullMQ on Redis: docs/storage.md "The job queue" (measured in
 * `bench/queue-choice.ts`).
 *
 * Items are queued in the caller's transaction. Each item is worked on in one transaction of
 * ours that takes it from the queue (pg-boss's `fetch` with our transaction as its `db`: `FOR
 * UPDATE SKIP LOCKED`, so no two processes take one item), runs the handler, and completes it:
 * the handler's writes and the item's completion commit together. A process that dies leaves no
 * trace: the database rolls its transaction back and the item is queued again at once, for any
 * process to take. Nothing of ours leases, beats or expires.
 *
 * Why not pg-boss's own `work()`: its workers claim an item outside the handler's transaction and
 * rely on heartbeats (10 s at least) to notice a dead process, and with NOTIFY on they fetch the
 * next item only every `notifyPollingIntervalSeconds` (30 s by default) — a 100,000-record job
 * drained at one batch per half minute per worker.
 */
import { PgBoss } from 'pg-boss';
import type { StorageTransaction, WorkItem, WorkQueue } from '../ports.ts';
import type { PgExecutor } from './pg-executor.ts';

/** How long an idle worker waits before looking at the queue again, ms. */
const IDLE_POLL_MS = 200;
/** Backoff of a worker whose handler failed (the store refused a write): 0.5 s, doubling to 60 s. */
const FAILURE_BACKOFF_MS = [500, 60_000] as const;

/** The pg-boss handle of one of our transactions, to enqueue in it. */
function databaseOf(executor: PgExecutor) {
  return {
    executeSql: async (text: string, values?: unknown[]) => {
      const result = await executor.query(text, values ?? []);
      return { rows: result.rows, rowCount: result.rowCount };
    },
  };
}

/** pg-boss over the database at `url`. */
export class PgWorkQueue implements WorkQueue {
  readonly #boss: PgBoss;
  /** Our transactions' executors, to hand pg-boss the transaction an item is sent in. */
  readonly #executors: WeakMap<StorageTransaction, PgExecutor>;
  readonly #ports: (db: PgExecutor) => StorageTransaction;
  readonly #transaction: <T>(fn: (db: PgExecutor) => Promise<T>) => Promise<T>;
  readonly #onError: (error: Error) => void;
  readonly #maxWorkers: number;
  readonly #queues = new Map<string, Promise<void>>();
  readonly #loops = new Set<Promise<void>>();
  #started: Promise<unknown> | undefined;
  #closed = false;

  constructor(options: {
    readonly url: string;
    readonly executors: WeakMap<StorageTransaction, PgExecutor>;
    readonly ports: (db: PgExecutor) => StorageTransaction;
    /** Runs `fn` in a transaction on a connection of the store's pool. */
    readonly transaction: <T>(fn: (db: PgExecutor) => Promise<T>) => Promise<T>;
    readonly onError?: (error: Error) => void;
    /**
     * Items worked on at once in this process at most, whatever `work()` asks: each holds a
     * connection of the store's pool for its whole transaction, and the rest of the process
     * (HTTP requests, the handlers' own statements outside their transaction) needs some too —
     * with every connection held by handlers waiting for those, nothing would move.
     */
    readonly maxWorkers: number;
  }) {
    this.#boss = new PgBoss({
      connectionString: options.url,
      schema: 'pgboss',
      application_name: 'quarry-queue',
      // pg-boss's pool serves queueing and its own upkeep; items are worked on over ours.
      max: 3,
    });
    this.#onError = options.onError ?? (() => {});
    this.#boss.on('error', (error: Error) => this.#onError(error));
    this.#executors = options.executors;
    this.#ports = options.ports;
    this.#transaction = options.transaction;
    this.#maxWorkers = Math.max(1, options.maxWorkers);
  }

  #start(): Promise<unknown> {
    this.#started ??= this.#boss.start();
    return this.#started;
  }

  #queue(name: string): Promise<void> {
    let created = this.#queues.get(name);
    if (!created) {
      created = this.#start().then(async () => {
        if (await this.#boss.getQueue(name)) return;
        // Items never expire or fail: a failed attempt rolls back whole, and the item waits.
        await this.#boss.createQueue(name, { retentionSeconds: 30 * 86_400 });
      });
      this.#queues.set(name, created);
    }
    return created;
  }

  async send(tx: StorageTransaction, queue: string, items: readonly WorkItem[]): Promise<void> {
    if (items.length === 0) return;
    const executor = this.#executors.get(tx);
    if (!executor) throw new Error('work can only be queued in a transaction of this store');
    await this.#queue(queue);
    await this.#boss.insert(
      queue,
      items.map((data) => ({ data: { ...data } })),
      { db: databaseOf(executor) },
    );
  }

  async work(
    queue: string,
    options: Parameters<WorkQueue['work']>[1],
    handler: (item: WorkItem, tx: StorageTransaction) => Promise<void>,
  ): Promise<void> {
    await this.#queue(queue);
    for (let i = 0; i < Math.min(options.concurrency, this.#maxWorkers); i++) {
      const loop = this.#workLoop(queue, handler, options.onFailure).finally(() => this.#loops.delete(loop));
      this.#loops.add(loop);
    }
  }

  /** One worker: takes an item, works on it, commits; waits when there is none or it failed. */
  async #workLoop(
    queue: string,
    handler: (item: WorkItem, tx: StorageTransaction) => Promise<void>,
    onFailure: Parameters<WorkQueue['work']>[1]['onFailure'],
  ): Promise<void> {
    let failures = 0;
    while (!this.#closed) {
      let worked = false;
      let item: WorkItem | undefined;
      try {
        worked = await this.#transaction(async (db) => {
          const [job] = await this.#boss.fetch<WorkItem>(queue, { batchSize: 1, db: databaseOf(db) });
          if (!job) return false;
          item = job.data;
          await handler(job.data, this.#ports(db));
          await this.#boss.complete(queue, job.id, null, { db: databaseOf(db) });
          return true;
        });
        failures = 0;
      } catch (error) {
        // Rolled back: the item is queued again as it was. This worker waits before the next
        // one, longer after each failure in a row (a store that refuses writes, a full disk).
        failures++;
        this.#onError(error as Error);
        const wait = Math.min(FAILURE_BACKOFF_MS[1], FAILURE_BACKOFF_MS[0] * 2 ** (failures - 1));
        if (item) onFailure?.(item, error as Error, wait);
        await this.#pause(wait);
        continue;
      }
      if (!worked) await this.#pause(IDLE_POLL_MS);
    }
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
    });
  }

  async pending(queue: string): Promise<number> {
    await this.#queue(queue);
    const stats = await this.#boss.getQueue(queue);
    return stats ? stats.queuedCount + stats.activeCount : 0;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Workers finish the item in hand (or roll it back when its handler gives up).
    await Promise.allSettled([...this.#loops]);
    if (!this.#started) return;
    await this.#started.catch(() => {});
    await this.#boss.stop({ graceful: true, timeout: 10_000 });
  }
}

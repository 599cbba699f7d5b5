/**
 * The PostgreSQL store: every port over one database shared by any number of Quarry processes.
 * Asynchronous ports go through a connection pool; the synchronous graph through a blocking
 * bridge of its own (`sync-bridge.ts`), created on first use.
 */
import { randomInt } from 'node:crypto';
import pg from 'pg';
import type { Storage, StorageTransaction, WorkQueue } from '../ports.ts';
import { type BulkSeqCache, PgBulkJobStore } from './pg-bulk-job-store.ts';
import { OWNER_LOCK_CLASS, PgCrawlJobStore } from './pg-crawl-job-store.ts';
import { PgCustomApiStore } from './pg-custom-api-store.ts';
import { PgEntityStore } from './pg-entity-store.ts';
import { groupedPgCharges } from './pg-grouped-charges.ts';
import { BridgeExecutor, PG_TYPES, type PgExecutor, PoolExecutor } from './pg-executor.ts';
import { PgHostTurnStore } from './pg-host-turn-store.ts';
import { PgOriginFetchStore } from './pg-origin-fetch-store.ts';
import { PgTokenStore } from './pg-token-store.ts';
import { PgWorkQueue } from './pg-work-queue.ts';
import { checkSchemaNotNewer, migratePostgres } from './postgres-schema.ts';
import { SyncPostgres } from './sync-bridge.ts';

export { LATEST_POSTGRES_VERSION } from './migrations.ts';
export { appliedVersions, migratePostgres, SchemaTooNewError } from './postgres-schema.ts';
export { SyncPostgres } from './sync-bridge.ts';

function createPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    types: PG_TYPES,
    application_name: 'quarry',
    // Idle connections go: a process that is quiet holds few of the server's connections.
    idleTimeoutMillis: 10_000,
  });
  // An idle connection the server dropped is not fatal: the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

/**
 * The owner number of a store's crawl claims: a number whose session advisory lock it takes on
 * `db` (the bridge connection), so the lock ends with the store, or the process however it ends.
 */
function takeOwnerNumber(db: SyncPostgres): number {
  for (;;) {
    const owner = randomInt(1, 2 ** 31 - 1);
    const got = db.query('SELECT pg_try_advisory_lock($1, $2) AS got', [OWNER_LOCK_CLASS, owner]).rows[0];
    if (got?.got) return owner;
  }
}

/** A read snapshot, opened with the graph version it sees (`PgEntityStore.version`). */
const SNAPSHOT_BEGIN =
  "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT value FROM meta WHERE key = 'kg_version'";

/**
 * How long a ping the database answered stands for the next ones, ms. `/healthz` may be probed
 * many times a second (load balancers, `bench/http.ts`): one query a second says as much.
 */
const PING_FRESH_MS = 1_000;

/**
 * `Storage.ping` over the pool, never the blocking bridge: the event loop calls it. Pings at
 * once share one query; one answered within PING_FRESH_MS stands for the database. `executor`
 * answers undefined once the store is closed.
 */
function sharedPing(executor: () => PgExecutor | undefined): () => Promise<void> {
  let answeredAt = Number.NEGATIVE_INFINITY;
  let pinging: Promise<void> | undefined;
  return async () => {
    const db = executor();
    if (!db) throw new Error('the PostgreSQL store is closed');
    if (performance.now() - answeredAt < PING_FRESH_MS) return;
    pinging ??= db
      .query('SELECT 1')
      .then(() => {
        answeredAt = performance.now();
      })
      .finally(() => {
        pinging = undefined;
      });
    return pinging;
  };
}

/** Connections of the pool that the work queue's items never hold (the API's, the handlers'). */
const POOL_RESERVE = 4;

/** How a thread opens its PostgreSQL store. */
export interface PostgresOpenOptions {
  /** Never writes and applies no migrations (reading threads). */
  readonly readOnly?: boolean;
  /**
   * Transactions run on the bridge connection the synchronous graph uses, so graph writes made
   * while a transaction runs join it (the crawl writer thread). Blocks the thread per statement.
   */
  readonly synchronous?: boolean;
  /**
   * Connections of the pool at most (default 10). Each queue worker holds one while it works,
   * so at most this less 4 items are worked on at once.
   */
  readonly poolSize?: number;
  /** Told of the work queue's errors it recovers from (a lost connection). */
  readonly onQueueError?: (error: Error) => void;
}

/**
 * Opens the PostgreSQL database at `url` with every port. A writer (not `readOnly`) applies the
 * migrations the database lacks (refusing a schema newer than this build) and holds the claim
 * owner lock of its crawl claims (`OWNER_LOCK_CLASS`) for as long as it is open.
 */
export function openPostgresStorage(url: string, options: PostgresOpenOptions = {}): Storage {
  let bridge: SyncPostgres | undefined;
  const sync = () => {
    bridge ??= new SyncPostgres(url);
    return bridge;
  };
  let pool: pg.Pool | undefined;
  const poolSize = options.poolSize ?? 10;
  const poolExecutor = () => {
    pool ??= createPool(url, poolSize);
    return new PoolExecutor(pool);
  };
  // A writer migrates and takes its owner number; a reader only checks the schema.
  if (options.readOnly) checkSchemaNotNewer(sync());
  else migratePostgres(sync());
  const owner = options.readOnly ? 0 : takeOwnerNumber(sync());
  const executor: () => PgExecutor & { transaction<T>(fn: (ex: PgExecutor) => Promise<T>): Promise<T> } =
    options.synchronous ? () => new BridgeExecutor(sync()) : poolExecutor;
  const seqs: BulkSeqCache = new Map();
  // The executor of each transaction's ports: the work queue enqueues in that transaction.
  const executors = new WeakMap<StorageTransaction, PgExecutor>();
  const ports = (db: PgExecutor, groupCharges = false): StorageTransaction => {
    const tx: StorageTransaction = {
      tokens: groupCharges ? groupedPgCharges(new PgTokenStore(db)) : new PgTokenStore(db),
      bulkJobs: new PgBulkJobStore(db, seqs),
      customApis: new PgCustomApiStore(db),
      crawlJobs: new PgCrawlJobStore(db, owner),
      originFetches: new PgOriginFetchStore(db),
    };
    executors.set(tx, db);
    return tx;
  };
  let queue: PgWorkQueue | undefined;
  // The ports over a lazily made executor: a thread that never uses them opens no pool. Their
  // charges are grouped per token (pg-grouped-charges.ts), but not on the bridge (synchronous).
  let base: StorageTransaction | undefined;
  const outside = () => {
    base ??= ports(executor(), !options.synchronous);
    return base;
  };
  const entities = new PgEntityStore(sync, poolExecutor);
  let hostTurns: PgHostTurnStore | undefined;
  let closed = false;
  const ping = sharedPing(() => (closed ? undefined : poolExecutor()));
  return {
    get tokens() {
      return outside().tokens;
    },
    get bulkJobs() {
      return outside().bulkJobs;
    },
    get customApis() {
      return outside().customApis;
    },
    get crawlJobs() {
      return outside().crawlJobs;
    },
    get originFetches() {
      return outside().originFetches;
    },
    entities,
    get hostTurns() {
      hostTurns ??= new PgHostTurnStore(poolExecutor(), owner);
      return hostTurns;
    },
    get workQueue(): WorkQueue {
      queue ??= new PgWorkQueue({
        url,
        executors,
        ports,
        transaction: (fn) => poolExecutor().transaction(fn),
        onError: options.onQueueError,
        maxWorkers: poolSize - POOL_RESERVE,
      });
      return queue;
    },
    transaction<T>(fn: (tx: StorageTransaction) => Promise<T>): Promise<T> {
      return executor().transaction((db) => fn(ports(db)));
    },
    readSnapshot<T>(fn: () => T): T {
      const db = sync();
      if (db.inTransaction) return entities.pinnedVersion(fn);
      // The snapshot and the graph version every matcher asks first, in one round trip.
      return db.readTransaction(SNAPSHOT_BEGIN, (rows) =>
        entities.pinnedVersion(fn, (rows[0]?.value as string | undefined) ?? 'empty'),
      );
    },
    ping,
    async close() {
      closed = true;
      await queue?.close();
      const closing = pool?.end();
      pool = undefined;
      bridge?.close();
      bridge = undefined;
      await closing;
    },
  };
}

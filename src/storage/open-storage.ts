import { createRequire } from 'node:module';
import type { StoreLocator } from './locator.ts';
import type { Storage } from './ports.ts';
import type * as PostgresAdapter from './postgres/index.ts';
import { migrateSqlite, openSqliteStorage, startWalCheckpointer } from './sqlite/index.ts';

let postgresAdapter: typeof PostgresAdapter | undefined;

/**
 * The PostgreSQL adapter, loaded on first use. Every thread that opens a store (export threads,
 * bulk workers, enhance threads) would otherwise load `pg` and `pg-boss` on the embedded store
 * too (measured in bench/NOTES.md). `require` of an ES module is synchronous (Node ≥ 22.12), so
 * `openStorage` stays synchronous.
 */
function postgres(): typeof PostgresAdapter {
  postgresAdapter ??= createRequire(import.meta.url)('./postgres/index.ts') as typeof PostgresAdapter;
  return postgresAdapter;
}

/** How a thread opens its connection to a store. */
export interface OpenStorageOptions {
  /** Never writes and applies no migrations (reading threads, read-only tools). */
  readonly readOnly?: boolean;
  /** Page cache of this connection in MiB, where the adapter has one (default 64). */
  readonly cacheMiB?: number;
  /**
   * Transactions must take in the synchronous graph calls made while they run (the crawl writer
   * thread merges a page's entities with its outcome). The embedded store always does; a
   * PostgreSQL store then runs its transactions on the graph's blocking connection.
   */
  readonly synchronous?: boolean;
  /**
   * This process runs the service's jobs on the store (`serve`, `worker`). The embedded store
   * then takes its data directory's lock (one such process at a time; a second is refused with
   * `DataDirectoryLockedError`); a shared store (PostgreSQL) has no such limit.
   */
  readonly exclusive?: boolean;
}

/** Opens the store at `locator` with every port, over a connection of this thread's own. */
export function openStorage(locator: StoreLocator, options: OpenStorageOptions = {}): Storage {
  switch (locator.adapter) {
    case 'sqlite':
      return openSqliteStorage(locator.file, {
        readOnly: options.readOnly,
        cacheMiB: options.cacheMiB,
        mmapMiB: locator.mmapMiB,
        exclusive: options.exclusive,
      });
    case 'postgres':
      return postgres().openPostgresStorage(locator.url, {
        readOnly: options.readOnly,
        synchronous: options.synchronous,
      });
  }
}

/** Background upkeep of a store that a serving process runs beside it; `stop()` ends it. */
export interface StoreMaintenance {
  stop(): Promise<void>;
}

/**
 * Starts the background upkeep the adapter wants while a process writes a lot (the embedded
 * store: WAL checkpoints from a thread of their own). `onFailure` is told once if it stops by
 * itself; the store stays correct without it.
 */
export function startStoreMaintenance(
  locator: StoreLocator,
  options: { readonly onFailure?: (error: Error) => void } = {},
): StoreMaintenance {
  if (locator.adapter === 'sqlite' && locator.file !== ':memory:') {
    return startWalCheckpointer(locator.file, options);
  }
  return { stop: async () => {} };
}

/**
 * Creates or upgrades the schema of the store at `locator` (`quarry migrate`): applies every
 * migration it lacks, each once, and returns their versions (empty when it was up to date).
 * Throws, changing nothing, when the store has a migration this build does not know.
 */
export function migrateStore(locator: StoreLocator): number[] {
  if (locator.adapter === 'sqlite') return migrateSqlite(locator.file);
  const { SyncPostgres, migratePostgres } = postgres();
  const db = new SyncPostgres(locator.url);
  try {
    return migratePostgres(db);
  } finally {
    db.close();
  }
}

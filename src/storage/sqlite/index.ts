import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type {
  BulkJobStore,
  CrawlJobStore,
  CustomApiStore,
  OriginFetchStore,
  Storage,
  StorageTransaction,
  TokenStore,
} from '../ports.ts';
import { asynchronous, type Synchronous, TransactionGate } from './asynchronous.ts';
import { groupedCharges } from './grouped-charges.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { lockDataDirectory } from './process-lock.ts';
import {
  applyMigrations,
  createTransactionRunner,
  openSqliteDatabase,
  type SqliteOpenOptions,
} from './sqlite-database.ts';
import { SqliteBulkJobStore } from './sqlite-bulk-job-store.ts';
import { SqliteCrawlJobStore } from './sqlite-crawl-job-store.ts';
import { SqliteCustomApiStore } from './sqlite-custom-api-store.ts';
import { SqliteEntityStore } from './sqlite-entity-store.ts';
import { SqliteOriginFetchStore } from './sqlite-origin-fetch-store.ts';
import { SqliteTokenStore } from './sqlite-token-store.ts';
import { TokenJournal } from './token-journal.ts';

export { accountsFileFor } from './accounts-file.ts';
export { applyMigrations, openSqliteDatabase } from './sqlite-database.ts';
export type { SqliteOpenOptions } from './sqlite-database.ts';
export type { WalCheckpointer } from './wal-checkpointer.ts';
export { startWalCheckpointer } from './wal-checkpointer.ts';
export { DataDirectoryLockedError, LOCK_FILE_NAME } from './process-lock.ts';

/** File name of the embedded store inside the data directory. */
export const SQLITE_FILE_NAME = 'quarry.sqlite';

/**
 * Path of the embedded store for a data directory: the graph's file. Its tokens and credits are
 * in a second file beside it (`accountsFileFor`, `quarry-accounts.sqlite`); a copy or backup of
 * the store takes both (docs/storage.md).
 */
export function sqliteFileFor(dataDir: string): string {
  return path.join(dataDir, SQLITE_FILE_NAME);
}

/** Applies the migrations the embedded store at `file` lacks (creating it); their versions. */
export function migrateSqlite(file: string): number[] {
  const db = openSqliteDatabase(file, { readOnly: false, migrate: false });
  try {
    return applyMigrations(db, MIGRATIONS);
  } finally {
    db.close();
  }
}

/** Opens the embedded store at `file` (`:memory:` for a throwaway one) with every port. */
export function openSqliteStorage(
  file: string,
  options: SqliteOpenOptions & { readonly exclusive?: boolean } = {},
): Storage {
  // Taken before the store is opened (and migrated): a second server touches nothing.
  const lock = options.exclusive && file !== ':memory:' ? lockDataDirectory(path.dirname(file)) : undefined;
  let db: ReturnType<typeof openSqliteDatabase>;
  try {
    db = openSqliteDatabase(file, options);
  } catch (error) {
    lock?.release();
    throw error;
  }
  const runSync = createTransactionRunner(db);
  const entities = new SqliteEntityStore(db, runSync);
  const stores = {
    bulkJobs: new SqliteBulkJobStore(db, runSync),
    customApis: new SqliteCustomApiStore(db, runSync),
    crawlJobs: new SqliteCrawlJobStore(db, runSync),
    originFetches: new SqliteOriginFetchStore(db, runSync),
  };
  const gate = new TransactionGate();
  const tokens = tokenPorts(db, options.readOnly === true, gate);
  // Inside a transaction: the same adapters, not held by the gate; a token port of its own.
  const adapters = {
    bulkJobs: asynchronous<BulkJobStore>(stores.bulkJobs),
    customApis: asynchronous<CustomApiStore>(stores.customApis),
    crawlJobs: asynchronous<CrawlJobStore>(stores.crawlJobs),
    originFetches: asynchronous<OriginFetchStore>(stores.originFetches),
  };
  const inTransaction = (): StorageTransaction => ({ ...adapters, tokens: tokens.inTransaction() });
  return {
    entities,
    workQueue: undefined,
    // One process runs jobs on the embedded store: the politeness it keeps in memory is exact.
    hostTurns: undefined,
    tokens: tokens.outside,
    bulkJobs: asynchronous<BulkJobStore>(stores.bulkJobs, gate),
    customApis: asynchronous<CustomApiStore>(stores.customApis, gate),
    crawlJobs: asynchronous<CrawlJobStore>(stores.crawlJobs, gate),
    originFetches: asynchronous<OriginFetchStore>(stores.originFetches, gate),
    transaction<T>(fn: (tx: StorageTransaction) => Promise<T>): Promise<T> {
      return gate.hold(async () => {
        // Joining a read snapshot open on this connection, as the synchronous runner does.
        if (db.isTransaction) return fn(inTransaction());
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(inTransaction());
          db.exec('COMMIT');
          return result;
        } catch (error) {
          if (db.isTransaction) db.exec('ROLLBACK');
          throw error;
        }
      });
    },
    readSnapshot<T>(fn: () => T): T {
      if (db.isTransaction) return fn();
      db.exec('BEGIN');
      try {
        return entities.pinnedVersion(fn);
      } finally {
        if (db.isTransaction) db.exec('COMMIT');
      }
    },
    async ping() {
      // In-process and a few microseconds: read at every call.
      entities.version();
    },
    async close() {
      entities.stopBackgroundCheckpoints();
      db.close();
      lock?.release();
    },
  };
}

/**
 * The token ports of a connection: outside transactions (charges grouped per event-loop turn),
 * and a new one for each transaction, whose balance changes are journaled in both files of the
 * store (token-journal.ts: a transaction's parts commit file by file). A read-only connection (a
 * graph reader) has no accounts file attached, hence no tokens.
 */
function tokenPorts(
  db: DatabaseSync,
  readOnly: boolean,
  gate: TransactionGate,
): { readonly outside: TokenStore; inTransaction(): TokenStore } {
  if (readOnly) {
    const none = asynchronous<TokenStore>(new NoTokens(), gate);
    return { outside: none, inTransaction: () => none };
  }
  const store = new SqliteTokenStore(db);
  const journal = new TokenJournal(db);
  return {
    outside: groupedCharges(asynchronous<TokenStore>(store, gate), store, db, gate),
    inTransaction: () => asynchronous<TokenStore>(journal.tokensOf(store)),
  };
}

/** The token port of a read-only connection: every call fails, saying why. */
class NoTokens implements Synchronous<TokenStore> {
  create(): never {
    return noTokens();
  }
  findBySecretHash(): never {
    return noTokens();
  }
  findById(): never {
    return noTokens();
  }
  charge(): never {
    return noTokens();
  }
  refund(): never {
    return noTokens();
  }
  list(): never {
    return noTokens();
  }
}

function noTokens(): never {
  throw new Error(
    'a read-only connection to the embedded store has no tokens (they are in its accounts file)',
  );
}

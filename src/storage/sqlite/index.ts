import path from 'node:path';
import type { Storage } from '../ports.ts';
import { createTransactionRunner, openSqliteDatabase, type SqliteOpenOptions } from './sqlite-database.ts';
import { SqliteBulkJobStore } from './sqlite-bulk-job-store.ts';
import { SqliteCrawlJobStore } from './sqlite-crawl-job-store.ts';
import { SqliteCustomApiStore } from './sqlite-custom-api-store.ts';
import { SqliteEntityStore } from './sqlite-entity-store.ts';
import { SqliteOriginFetchStore } from './sqlite-origin-fetch-store.ts';
import { SqliteTokenStore } from './sqlite-token-store.ts';

export { applyMigrations, openSqliteDatabase } from './sqlite-database.ts';
export type { SqliteOpenOptions } from './sqlite-database.ts';
export type { WalCheckpointer } from './wal-checkpointer.ts';
export { startWalCheckpointer } from './wal-checkpointer.ts';

/** File name of the embedded store inside the data directory. */
export const SQLITE_FILE_NAME = 'quarry.sqlite';

/** Path of the embedded store for a data directory. */
export function sqliteFileFor(dataDir: string): string {
  return path.join(dataDir, SQLITE_FILE_NAME);
}

/** Opens the embedded store at `file` (`:memory:` for a throwaway one) with every port. */
export function openSqliteStorage(file: string, options: SqliteOpenOptions = {}): Storage {
  const db = openSqliteDatabase(file, options);
  const transaction = createTransactionRunner(db);
  const entities = new SqliteEntityStore(db, transaction);
  return {
    tokens: new SqliteTokenStore(db),
    entities,
    bulkJobs: new SqliteBulkJobStore(db, transaction),
    customApis: new SqliteCustomApiStore(db, transaction),
    crawlJobs: new SqliteCrawlJobStore(db, transaction),
    originFetches: new SqliteOriginFetchStore(db, transaction),
    transaction,
    readSnapshot<T>(fn: () => T): T {
      if (db.isTransaction) return fn();
      db.exec('BEGIN');
      try {
        return entities.pinnedVersion(fn);
      } finally {
        if (db.isTransaction) db.exec('COMMIT');
      }
    },
    close: () => {
      entities.stopBackgroundCheckpoints();
      db.close();
    },
  };
}

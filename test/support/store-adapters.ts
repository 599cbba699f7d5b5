/**
 * Every store adapter, each with a way to open a fresh, empty store: the contract suites run
 * over all of them (as Kysely runs its tests over every dialect).
 */
import type { Storage } from '../../src/storage/index.ts';
import { openStorage } from '../../src/storage/index.ts';
import { createTempDatabase, openTempPostgresStorage } from './temp-postgres.ts';
import { openTempSqliteStorage } from './temp-sqlite.ts';

/** Two processes' views of one fresh store. */
export interface StoragePair {
  readonly first: Storage;
  readonly second: Storage;
  cleanup(): Promise<void>;
}

export interface StoreAdapter {
  readonly name: string;
  open(): Promise<{ storage: Storage; cleanup(): Promise<void> }>;
  /**
   * One store as two processes see it: PostgreSQL opened twice (two pools, two owner numbers);
   * the embedded store, which one process writes, the same store twice.
   */
  openPair(): Promise<StoragePair>;
}

async function sqlitePair(): Promise<StoragePair> {
  const { storage, cleanup } = await openTempSqliteStorage();
  return { first: storage, second: storage, cleanup };
}

async function postgresPair(): Promise<StoragePair> {
  const database = await createTempDatabase();
  const first = openStorage({ adapter: 'postgres', url: database.url });
  const second = openStorage({ adapter: 'postgres', url: database.url });
  return {
    first,
    second,
    cleanup: async () => {
      await Promise.all([first.close(), second.close()]);
      await database.drop();
    },
  };
}

export const STORE_ADAPTERS: readonly StoreAdapter[] = [
  { name: 'sqlite', open: openTempSqliteStorage, openPair: sqlitePair },
  { name: 'postgres', open: openTempPostgresStorage, openPair: postgresPair },
];

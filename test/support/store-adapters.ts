/**
 * Every store adapter, each with a way to open a fresh, empty store: the contract suites run
 * over all of them (as Kysely runs its tests over every dialect).
 */
import type { Storage } from '../../src/storage/index.ts';
import { openTempPostgresStorage } from './temp-postgres.ts';
import { openTempSqliteStorage } from './temp-sqlite.ts';

export interface StoreAdapter {
  readonly name: string;
  open(): Promise<{ storage: Storage; cleanup(): Promise<void> }>;
}

export const STORE_ADAPTERS: readonly StoreAdapter[] = [
  { name: 'sqlite', open: openTempSqliteStorage },
  { name: 'postgres', open: openTempPostgresStorage },
];

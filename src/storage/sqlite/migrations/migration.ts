import type { DatabaseSync } from 'node:sqlite';

/** One versioned schema migration of the embedded store (see index.ts for the version ranges). */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /**
   * Work done before `sql`'s transaction, in transactions of its own (a move from one file of the
   * store to the other, which one transaction cannot make atomic: docs/storage.md). Run again if
   * a crash comes before `sql` commits, so it must be idempotent.
   */
  readonly prepare?: (db: DatabaseSync) => void;
}

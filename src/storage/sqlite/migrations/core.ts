import { copyTokensToAccounts } from '../accounts-file.ts';
import type { Migration } from './migration.ts';

export const CORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'meta and tokens',
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        secret_hash TEXT NOT NULL UNIQUE,
        label TEXT,
        credits INTEGER CHECK (credits IS NULL OR credits >= 0),
        created_at INTEGER NOT NULL
      );`,
  },
  {
    version: 2,
    name: 'knowledge graph entities and retrieval keys',
    sql: `
      CREATE TABLE entities (
        ref INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL CHECK (type IN ('Organization', 'Person')),
        doc TEXT NOT NULL,
        ledger TEXT,
        profile TEXT NOT NULL,
        keys TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE entity_keys (
        key TEXT NOT NULL,
        ref INTEGER NOT NULL,
        PRIMARY KEY (key, ref)
      ) WITHOUT ROWID;`,
  },
  {
    version: 3,
    name: 'candidate profiles in a table of their own',
    // The matcher reads candidates' (ref, id, type, profile) at random refs; beside each entity's
    // document, ledger and keys a 16 KiB page held ~10 of them, in this table ~50, so a query's
    // profile reads come from fewer pages and the page cache holds more of them (bench/NOTES.md).
    // The column leaves `entities` so that each profile is stored once. Dropping it rewrites every
    // entity row (one pass over the table: ~10 s on the 1M + 1M demo graph); the migration is
    // logged at start-up (applyMigrations). Rows deleted from `entities` take their profile along.
    sql: `
      CREATE TABLE entity_profiles (
        ref INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        type TEXT NOT NULL,
        profile TEXT NOT NULL
      );
      INSERT INTO entity_profiles (ref, id, type, profile)
        SELECT ref, id, type, profile FROM entities ORDER BY ref;
      ALTER TABLE entities DROP COLUMN profile;
      CREATE TRIGGER entity_profiles_delete AFTER DELETE ON entities BEGIN
        DELETE FROM entity_profiles WHERE ref = OLD.ref;
      END;`,
  },
  {
    version: 4,
    name: 'tokens and credits in a file of their own',
    // The tokens move to the accounts file (accounts-file.ts), so that the credit charged per
    // enhance request commits nothing to the graph's file and its readers keep their page
    // caches (bench/NOTES.md). Two steps, as no transaction is atomic across two WAL files:
    // `prepare` copies the rows into the accounts file and syncs it; then this transaction drops
    // the old table. A crash between them leaves the old table, and the restart drops it without
    // copying again (`tokens_moved`). `token_journal` (token-journal.ts) holds the balance changes
    // of the last transaction that wrote both files, so that a crash between their commits is
    // repaired at restart.
    prepare: copyTokensToAccounts,
    sql: `
      DROP TABLE main.tokens;
      CREATE TABLE main.token_journal (txn INTEGER NOT NULL, token_id TEXT NOT NULL, delta INTEGER NOT NULL);`,
  },
];

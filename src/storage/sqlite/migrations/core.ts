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
];

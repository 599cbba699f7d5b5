import type { Migration } from './migration.ts';

/** Extraction and Custom APIs: versions 200–299. */
export const EXTRACT_MIGRATIONS: readonly Migration[] = [
  {
    version: 200,
    name: 'custom api rule sets',
    sql: `
      CREATE TABLE custom_apis (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        hash TEXT NOT NULL UNIQUE,
        token_id TEXT NOT NULL REFERENCES tokens (id) ON DELETE CASCADE,
        api TEXT NOT NULL,
        url_pattern TEXT NOT NULL,
        ruleset TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (token_id, api, url_pattern)
      );
      CREATE INDEX custom_apis_by_api ON custom_apis (token_id, api, seq);`,
  },
  {
    version: 201,
    name: 'custom api rule sets without a foreign key to tokens',
    // The tokens moved to the accounts file (4), and a foreign key cannot name a table of another
    // file: the table is rebuilt without it (SQLite's procedure: applyMigrations runs with
    // foreign keys off, so that 4 dropping the old tokens deleted no rule set). Every row is
    // copied with its seq, and the AUTOINCREMENT counter is kept. Tokens are never deleted, and
    // a rule set is stored only for the token that sends it, so the key enforced nothing in use.
    sql: `
      CREATE TABLE custom_apis_unkeyed (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        hash TEXT NOT NULL UNIQUE,
        token_id TEXT NOT NULL,
        api TEXT NOT NULL,
        url_pattern TEXT NOT NULL,
        ruleset TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (token_id, api, url_pattern)
      );
      INSERT INTO custom_apis_unkeyed (seq, hash, token_id, api, url_pattern, ruleset, created_at, updated_at)
        SELECT seq, hash, token_id, api, url_pattern, ruleset, created_at, updated_at FROM custom_apis ORDER BY seq;
      DELETE FROM sqlite_sequence WHERE name = 'custom_apis_unkeyed';
      INSERT INTO sqlite_sequence (name, seq) SELECT 'custom_apis_unkeyed', seq FROM sqlite_sequence WHERE name = 'custom_apis';
      DROP TABLE custom_apis;
      ALTER TABLE custom_apis_unkeyed RENAME TO custom_apis;
      CREATE INDEX custom_apis_by_api ON custom_apis (token_id, api, seq);`,
  },
];

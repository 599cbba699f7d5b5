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
];

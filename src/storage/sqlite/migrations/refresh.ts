import type { Migration } from './migration.ts';

/** Refresh and search (docs/api.md#refresh-and-search): the last fetch of each origin URL. */
export const REFRESH_MIGRATIONS: readonly Migration[] = [
  {
    version: 40,
    name: 'origin fetches of refresh and search',
    sql: `
      CREATE TABLE origin_fetches (
        url TEXT PRIMARY KEY,
        fetched_at INTEGER NOT NULL,
        has_result INTEGER NOT NULL,
        http_status INTEGER,
        message TEXT NOT NULL
      ) WITHOUT ROWID;`,
  },
];

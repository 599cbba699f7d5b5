import type { Migration } from './migration.ts';

/**
 * Bulk enhance jobs (versions 100–199).
 *
 * Records and results are keyed by one integer, `job_seq * 2^24 + idx` (see
 * `sqlite-bulk-job-store.ts`): a rowid table keeps each row in a single B-tree with no second
 * index, and a job's rows are one contiguous key range, read and deleted in input order.
 */
export const BULK_MIGRATIONS: readonly Migration[] = [
  {
    version: 100,
    name: 'bulk enhance jobs, records, results and reports',
    sql: `
      CREATE TABLE bulk_jobs (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        token_id TEXT NOT NULL,
        name TEXT NOT NULL,
        options TEXT NOT NULL,
        webhook_url TEXT,
        state TEXT NOT NULL,
        message TEXT NOT NULL DEFAULT '',
        total INTEGER NOT NULL DEFAULT 0,
        completed INTEGER NOT NULL DEFAULT 0,
        failed INTEGER NOT NULL DEFAULT 0,
        hits INTEGER NOT NULL DEFAULT 0,
        result_bytes INTEGER NOT NULL DEFAULT 0,
        submit_time INTEGER NOT NULL,
        start_time INTEGER,
        completed_time INTEGER,
        estimate_sec INTEGER,
        webhook TEXT
      );
      CREATE INDEX bulk_jobs_by_token ON bulk_jobs (token_id, seq);
      CREATE INDEX bulk_jobs_by_state ON bulk_jobs (state, seq);
      CREATE TABLE bulk_records (key INTEGER PRIMARY KEY, query TEXT NOT NULL);
      CREATE TABLE bulk_results (
        key INTEGER PRIMARY KEY,
        hits INTEGER NOT NULL,
        failed INTEGER NOT NULL,
        response TEXT NOT NULL,
        search_info TEXT NOT NULL
      );
      CREATE TABLE bulk_reports (
        id TEXT PRIMARY KEY,
        job_seq INTEGER NOT NULL,
        key TEXT NOT NULL,
        format TEXT NOT NULL,
        spec TEXT NOT NULL,
        export_file TEXT NOT NULL,
        separator TEXT NOT NULL,
        filter TEXT NOT NULL,
        status TEXT NOT NULL,
        export_status TEXT NOT NULL,
        export_bytes INTEGER,
        error TEXT,
        created_at INTEGER NOT NULL,
        UNIQUE (job_seq, key)
      );`,
  },
  {
    version: 101,
    name: 'bulk results keep searchInfo in a table of its own',
    // Columnar exports never read searchInfo, yet with it in the same row (~1.5 of ~2.5 KB) a
    // page held about one result: a 200,000-row CSV export read 200,000 pages. Without it a page
    // holds three to four. The results table is rebuilt (not ALTER TABLE DROP COLUMN) so that its
    // rows are packed densely again, in key order. Nothing is lost: every search_info is copied.
    sql: `
      CREATE TABLE bulk_search_info (key INTEGER PRIMARY KEY, search_info TEXT NOT NULL);
      INSERT INTO bulk_search_info (key, search_info) SELECT key, search_info FROM bulk_results ORDER BY key;
      CREATE TABLE bulk_results_lean (
        key INTEGER PRIMARY KEY,
        hits INTEGER NOT NULL,
        failed INTEGER NOT NULL,
        response TEXT NOT NULL
      );
      INSERT INTO bulk_results_lean (key, hits, failed, response)
        SELECT key, hits, failed, response FROM bulk_results ORDER BY key;
      DROP TABLE bulk_results;
      ALTER TABLE bulk_results_lean RENAME TO bulk_results;`,
  },
  {
    version: 102,
    name: 'bulk jobs count the pages refresh and search fetched',
    // Added by saveResults in the transaction that stores the results: exact after a crash.
    sql: `
      ALTER TABLE bulk_jobs ADD COLUMN pages_fetched INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE bulk_jobs ADD COLUMN pages_failed INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE bulk_jobs ADD COLUMN pages_fresh INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    version: 103,
    name: 'bulk results keep a summary for columnar exports',
    // The query and, per match, the scores and the entity's id, name and type
    // (export/result-summary.ts): a CSV export of the default columns reads it instead of parsing
    // the whole response. NULL for results stored before: those exports parse the response.
    sql: 'ALTER TABLE bulk_results ADD COLUMN summary TEXT;',
  },
  {
    version: 104,
    name: 'bulk result summaries may be stored in the compact form',
    // No schema change: `summary` may now hold the compact form (export/result-summary.ts), which
    // a build before it would JSON.parse and fail on. Recorded so that such a build refuses the
    // store at start-up (applyMigrations) instead of failing its CSV exports.
    sql: 'SELECT 1;',
  },
];

import type { Migration } from './migration.ts';

/**
 * Bulk extract jobs (versions 300–399). The frontier lives in `crawl_urls`: one row per submitted
 * URL with its state (0 pending, 1 claimed by the running scheduler, 2 done), so that what is
 * left to do survives a crash. A claimed row carries the claim id of the fetch working on it;
 * an outcome is only applied while that claim still holds, which makes every page count once.
 */
export const CRAWL_MIGRATIONS: readonly Migration[] = [
  {
    version: 300,
    name: 'bulk extract jobs, frontier, objects, webhook outbox, operator switches',
    sql: `
      CREATE TABLE crawl_jobs (
        id INTEGER PRIMARY KEY,
        token_id TEXT NOT NULL,
        name TEXT NOT NULL,
        settings TEXT NOT NULL,
        status INTEGER NOT NULL,
        resume_status INTEGER,
        created_at INTEGER NOT NULL,
        completed_at INTEGER,
        round_started_at INTEGER,
        next_round_at INTEGER,
        url_count INTEGER NOT NULL,
        page_crawl_attempts INTEGER NOT NULL DEFAULT 0,
        page_crawl_successes INTEGER NOT NULL DEFAULT 0,
        page_crawl_successes_round INTEGER NOT NULL DEFAULT 0,
        page_process_attempts INTEGER NOT NULL DEFAULT 0,
        page_process_successes INTEGER NOT NULL DEFAULT 0,
        page_process_successes_round INTEGER NOT NULL DEFAULT 0,
        objects_found INTEGER NOT NULL DEFAULT 0,
        rounds_completed INTEGER NOT NULL DEFAULT 0,
        sent_done_notification INTEGER NOT NULL DEFAULT 0,
        UNIQUE (token_id, name)
      );
      CREATE TABLE crawl_hosts (
        job_id INTEGER NOT NULL,
        host_id INTEGER NOT NULL,
        host TEXT NOT NULL,
        PRIMARY KEY (job_id, host_id)
      ) WITHOUT ROWID;
      CREATE TABLE crawl_urls (
        job_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        host_id INTEGER NOT NULL,
        url TEXT NOT NULL,
        state INTEGER NOT NULL,
        claim INTEGER,
        not_before INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        outcome TEXT,
        http_status INTEGER,
        error TEXT,
        final_url TEXT,
        objects INTEGER NOT NULL DEFAULT 0,
        finished_at INTEGER,
        PRIMARY KEY (job_id, seq)
      ) WITHOUT ROWID;
      CREATE INDEX crawl_urls_frontier ON crawl_urls (job_id, host_id, state, seq);
      CREATE INDEX crawl_urls_claimed ON crawl_urls (state) WHERE state = 1;
      CREATE TABLE crawl_objects (
        id INTEGER PRIMARY KEY,
        job_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        doc TEXT NOT NULL
      );
      CREATE INDEX crawl_objects_job ON crawl_objects (job_id, id);
      CREATE TABLE crawl_webhooks (
        id INTEGER PRIMARY KEY,
        job_id INTEGER NOT NULL,
        url TEXT NOT NULL,
        payload TEXT NOT NULL,
        headers TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        last_error TEXT
      );
      CREATE INDEX crawl_webhooks_due ON crawl_webhooks (next_attempt_at);
      CREATE TABLE crawl_switches (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );`,
  },
];

import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { CrawlCounterDeltas } from '../crawl-counters.ts';
import type {
  ClaimedUrl,
  CrawlJobPatch,
  CrawlJobSettings,
  CrawlJobStore,
  CrawlPageOutcome,
  CrawlUrlReport,
  CrawlWebhook,
  NewCrawlUrl,
  StoredCrawlJob,
} from '../ports.ts';
import { CRAWL_WEBHOOK_LEASE_MS } from '../ports.ts';
import type { Synchronous } from './asynchronous.ts';
import { CLAIMED, DONE, INVALID_HOST, PENDING } from '../crawl-rows.ts';
import { JOB_COLUMNS, type JobRow, toJob, URL_COLUMNS, type UrlRow, toUrlReport } from '../crawl-rows.ts';
import { toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from '../crawl-rows.ts';

/** Bulk extract jobs in the embedded store (tables of migration 300). */
export class SqliteCrawlJobStore implements Synchronous<CrawlJobStore> {
  readonly #db: DatabaseSync;
  readonly #transaction: <T>(fn: () => T) => T;
  readonly #insertJob: StatementSync;
  readonly #insertHost: StatementSync;
  readonly #insertUrl: StatementSync;
  readonly #findJob: StatementSync;
  readonly #getJob: StatementSync;
  readonly #listJobs: StatementSync;
  readonly #claimSelect: StatementSync;
  readonly #claimUpdate: StatementSync;
  readonly #release: StatementSync;
  readonly #nextPending: StatementSync;
  readonly #unfinished: StatementSync;
  readonly #retryUrl: StatementSync;
  readonly #finishUrl: StatementSync;
  readonly #insertObject: StatementSync;
  readonly #addCounters: StatementSync;
  readonly #listObjects: StatementSync;
  readonly #listUrls: StatementSync;
  /**
   * Webhooks handed out by `dueWebhooks` and not yet reported on, by id: one process writes
   * this store, so its claims live in memory (a restart drops them, as a lease running out).
   */
  readonly #webhookClaims = new Map<number, { jobId: number; until: number }>();

  constructor(db: DatabaseSync, transaction: <T>(fn: () => T) => T) {
    this.#db = db;
    this.#transaction = transaction;
    this.#insertJob = db.prepare(`
      INSERT INTO crawl_jobs (token_id, name, settings, status, resume_status, created_at, round_started_at, url_count)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (token_id, name) DO NOTHING RETURNING id`);
    this.#insertHost = db.prepare('INSERT INTO crawl_hosts (job_id, host_id, host) VALUES (?, ?, ?)');
    this.#insertUrl = db.prepare(`
      INSERT INTO crawl_urls (job_id, seq, host_id, url, state, outcome, error, finished_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    this.#findJob = db.prepare(`SELECT ${JOB_COLUMNS} FROM crawl_jobs WHERE token_id = ? AND name = ?`);
    this.#getJob = db.prepare(`SELECT ${JOB_COLUMNS} FROM crawl_jobs WHERE id = ?`);
    this.#listJobs = db.prepare(`SELECT ${JOB_COLUMNS} FROM crawl_jobs WHERE token_id = ? ORDER BY id`);
    this.#claimSelect = db.prepare(`
      SELECT seq, url, attempts FROM crawl_urls
      WHERE job_id = ? AND host_id = ? AND state = ${PENDING} AND not_before <= ?
      ORDER BY seq LIMIT ?`);
    this.#claimUpdate = db.prepare(
      `UPDATE crawl_urls SET state = ${CLAIMED}, claim = ? WHERE job_id = ? AND seq = ? AND state = ${PENDING}`,
    );
    this.#release = db.prepare(`
      UPDATE crawl_urls SET state = ${PENDING}, claim = NULL
      WHERE job_id = ? AND seq = ? AND state = ${CLAIMED} AND claim = ?`);
    this.#nextPending = db.prepare(
      `SELECT min(not_before) AS at FROM crawl_urls WHERE job_id = ? AND host_id = ? AND state = ${PENDING}`,
    );
    this.#unfinished = db.prepare(
      `SELECT count(*) AS n FROM crawl_urls WHERE job_id = ? AND state <> ${DONE}`,
    );
    this.#retryUrl = db.prepare(`
      UPDATE crawl_urls SET state = ${PENDING}, claim = NULL, attempts = attempts + ?, not_before = ?,
        http_status = ?, error = ?
      WHERE job_id = ? AND seq = ? AND state = ${CLAIMED} AND claim = ?`);
    this.#finishUrl = db.prepare(`
      UPDATE crawl_urls SET state = ${DONE}, claim = NULL, attempts = attempts + ?, outcome = ?,
        http_status = ?, error = ?, final_url = ?, objects = ?, finished_at = ?
      WHERE job_id = ? AND seq = ? AND state = ${CLAIMED} AND claim = ?`);
    this.#insertObject = db.prepare('INSERT INTO crawl_objects (job_id, seq, doc) VALUES (?, ?, ?)');
    this.#addCounters = db.prepare(`
      UPDATE crawl_jobs SET
        page_crawl_attempts = page_crawl_attempts + ?1,
        page_crawl_successes = page_crawl_successes + ?2,
        page_crawl_successes_round = page_crawl_successes_round + ?2,
        page_process_attempts = page_process_attempts + ?3,
        page_process_successes = page_process_successes + ?4,
        page_process_successes_round = page_process_successes_round + ?4,
        objects_found = objects_found + ?5
      WHERE id = ?6`);
    this.#listObjects = db.prepare(
      'SELECT id, doc FROM crawl_objects WHERE job_id = ? AND id > ? ORDER BY id LIMIT ?',
    );
    this.#listUrls = db.prepare(`
      SELECT ${URL_COLUMNS}
      FROM crawl_urls WHERE job_id = ? AND seq > ? ORDER BY seq LIMIT ?`);
  }

  createJob(input: {
    tokenId: string;
    name: string;
    settings: CrawlJobSettings;
    status: number;
    resumeStatus: number | null;
    urls: readonly NewCrawlUrl[];
    now: number;
  }): StoredCrawlJob | undefined {
    return this.#transaction(() => {
      const validCount = input.urls.filter((entry) => entry.invalid === undefined).length;
      const inserted = this.#insertJob.get(
        input.tokenId,
        input.name,
        JSON.stringify(input.settings),
        input.status,
        input.resumeStatus,
        input.now,
        input.now,
        validCount,
      ) as { id: number } | undefined;
      if (!inserted) return undefined;
      const jobId = inserted.id;
      const hostIds = new Map<string, number>();
      input.urls.forEach((entry, seq) => {
        if (entry.invalid !== undefined) {
          this.#insertUrl.run(
            jobId,
            seq,
            INVALID_HOST,
            entry.url,
            DONE,
            'invalid_url',
            entry.invalid,
            input.now,
          );
          return;
        }
        let hostId = hostIds.get(entry.host);
        if (hostId === undefined) {
          hostId = hostIds.size;
          hostIds.set(entry.host, hostId);
          this.#insertHost.run(jobId, hostId, entry.host);
        }
        this.#insertUrl.run(jobId, seq, hostId, entry.url, PENDING, null, null, null);
      });
      return this.getJob(jobId);
    });
  }

  findJob(tokenId: string, name: string): StoredCrawlJob | undefined {
    const row = this.#findJob.get(tokenId, name) as JobRow | undefined;
    return row ? toJob(row) : undefined;
  }

  getJob(id: number): StoredCrawlJob | undefined {
    const row = this.#getJob.get(id) as JobRow | undefined;
    return row ? toJob(row) : undefined;
  }

  listJobs(tokenId: string): StoredCrawlJob[] {
    return (this.#listJobs.all(tokenId) as unknown as JobRow[]).map(toJob);
  }

  jobsWithStatus(statuses: readonly number[]): StoredCrawlJob[] {
    if (statuses.length === 0) return [];
    const placeholders = statuses.map(() => '?').join(', ');
    const rows = this.#db
      .prepare(`SELECT ${JOB_COLUMNS} FROM crawl_jobs WHERE status IN (${placeholders}) ORDER BY id`)
      .all(...statuses) as unknown as JobRow[];
    return rows.map(toJob);
  }

  updateJob(id: number, patch: CrawlJobPatch, ifStatus?: readonly number[]): boolean {
    const sets: string[] = [];
    const values: SQLInputValue[] = [];
    const set = (column: string, value: SQLInputValue) => {
      sets.push(`${column} = ?`);
      values.push(value);
    };
    if (patch.status !== undefined) set('status', patch.status);
    if (patch.resumeStatus !== undefined) set('resume_status', patch.resumeStatus);
    if (patch.completedAt !== undefined) set('completed_at', patch.completedAt);
    if (patch.nextRoundAt !== undefined) set('next_round_at', patch.nextRoundAt);
    if (patch.roundStartedAt !== undefined) set('round_started_at', patch.roundStartedAt);
    if (patch.sentDoneNotification !== undefined)
      set('sent_done_notification', patch.sentDoneNotification ? 1 : 0);
    if (patch.addRoundsCompleted !== undefined) {
      sets.push('rounds_completed = rounds_completed + ?');
      values.push(patch.addRoundsCompleted);
    }
    if (sets.length === 0) return this.getJob(id) !== undefined;
    let sql = `UPDATE crawl_jobs SET ${sets.join(', ')} WHERE id = ?`;
    values.push(id);
    if (ifStatus !== undefined) {
      if (ifStatus.length === 0) return false;
      sql += ` AND status IN (${ifStatus.map(() => '?').join(', ')})`;
      values.push(...ifStatus);
    }
    return Number(this.#db.prepare(sql).run(...values).changes) === 1;
  }

  startRound(id: number, now: number, status: number, ifStatus?: number): boolean {
    return this.#transaction(() => {
      const { changes } = this.#db
        .prepare(`
          UPDATE crawl_jobs SET status = ?, resume_status = NULL, round_started_at = ?, next_round_at = NULL,
            page_crawl_successes_round = 0, page_process_successes_round = 0, sent_done_notification = 0
          WHERE id = ? AND (? IS NULL OR status = ?)`)
        .run(status, now, id, ifStatus ?? null, ifStatus ?? null);
      if (changes === 0) return false;
      this.#resetUrls(id);
      return true;
    });
  }

  resetJob(id: number, now: number, status: number): void {
    this.#transaction(() => {
      this.#resetUrls(id);
      this.#db.prepare('DELETE FROM crawl_objects WHERE job_id = ?').run(id);
      this.#db.prepare('DELETE FROM crawl_webhooks WHERE job_id = ?').run(id);
      this.#db
        .prepare(`
          UPDATE crawl_jobs SET status = ?, resume_status = NULL, completed_at = NULL, round_started_at = ?,
            next_round_at = NULL, page_crawl_attempts = 0, page_crawl_successes = 0,
            page_crawl_successes_round = 0, page_process_attempts = 0, page_process_successes = 0,
            page_process_successes_round = 0, objects_found = 0, rounds_completed = 0,
            sent_done_notification = 0
          WHERE id = ?`)
        .run(status, now, id);
    });
  }

  #resetUrls(jobId: number): void {
    this.#db
      .prepare(`
        UPDATE crawl_urls SET state = ${PENDING}, claim = NULL, not_before = 0, attempts = 0, outcome = NULL,
          http_status = NULL, error = NULL, final_url = NULL, objects = 0, finished_at = NULL
        WHERE job_id = ? AND host_id <> ${INVALID_HOST}`)
      .run(jobId);
  }

  deleteJob(id: number): boolean {
    return this.#transaction(() => {
      for (const table of ['crawl_urls', 'crawl_hosts', 'crawl_objects', 'crawl_webhooks']) {
        this.#db.prepare(`DELETE FROM ${table} WHERE job_id = ?`).run(id);
      }
      return Number(this.#db.prepare('DELETE FROM crawl_jobs WHERE id = ?').run(id).changes) === 1;
    });
  }

  holdJobs(from: readonly number[], to: number): number[] {
    if (from.length === 0) return [];
    const rows = this.#db
      .prepare(`
        UPDATE crawl_jobs SET resume_status = status, status = ?
        WHERE status IN (${from.map(() => '?').join(', ')}) RETURNING id`)
      .all(to, ...from);
    return rows.map((row) => Number(row.id));
  }

  restoreHeldJobs(status: number): number[] {
    const rows = this.#db
      .prepare(`
        UPDATE crawl_jobs SET status = coalesce(resume_status, status), resume_status = NULL
        WHERE status = ? RETURNING id`)
      .all(status);
    return rows.map((row) => Number(row.id));
  }

  recoverLostClaims(): number {
    // One process writes the embedded store (it holds the data directory's lock): every claim
    // is its own.
    return 0;
  }

  recoverClaims(): number {
    return this.#transaction(() => {
      // The scheduler claims a URL when its fetch begins: each claim left over was a request
      // that may have reached the site, so it counts as a crawl attempt (issue 28).
      this.#db
        .prepare(`
          UPDATE crawl_jobs SET page_crawl_attempts = page_crawl_attempts + (
            SELECT count(*) FROM crawl_urls WHERE crawl_urls.job_id = crawl_jobs.id AND state = ${CLAIMED})
          WHERE id IN (SELECT job_id FROM crawl_urls WHERE state = ${CLAIMED})`)
        .run();
      const result = this.#db
        .prepare(
          `UPDATE crawl_urls SET state = ${PENDING}, claim = NULL, attempts = attempts + 1 WHERE state = ${CLAIMED}`,
        )
        .run();
      return Number(result.changes);
    });
  }

  hosts(jobId: number): Array<{ hostId: number; host: string }> {
    const rows = this.#db
      .prepare('SELECT host_id, host FROM crawl_hosts WHERE job_id = ? ORDER BY host_id')
      .all(jobId);
    return rows.map((row) => ({ hostId: Number(row.host_id), host: String(row.host) }));
  }

  claim(jobId: number, hostId: number, now: number, limit: number, claim: number): ClaimedUrl[] {
    return this.#transaction(() => {
      const rows = this.#claimSelect.all(jobId, hostId, now, limit) as Array<{
        seq: number;
        url: string;
        attempts: number;
      }>;
      const claimed: ClaimedUrl[] = [];
      for (const row of rows) {
        if (Number(this.#claimUpdate.run(claim, jobId, row.seq).changes) === 1) {
          claimed.push({ jobId, seq: row.seq, hostId, url: row.url, attempts: row.attempts, claim });
        }
      }
      return claimed;
    });
  }

  release(urls: readonly ClaimedUrl[]): void {
    if (urls.length === 0) return;
    this.#transaction(() => {
      for (const url of urls) this.#release.run(url.jobId, url.seq, url.claim);
    });
  }

  nextPendingAt(jobId: number, hostId: number): number | undefined {
    const row = this.#nextPending.get(jobId, hostId) as { at: number | null };
    return row.at ?? undefined;
  }

  unfinishedCount(jobId: number): number {
    return Number((this.#unfinished.get(jobId) as { n: number }).n);
  }

  recordOutcomes(outcomes: readonly CrawlPageOutcome[]): boolean[] {
    if (outcomes.length === 0) return [];
    return this.#transaction(() => {
      // The counting rule is `CrawlCounterDeltas`'; here, one UPDATE per job.
      const deltas = new CrawlCounterDeltas();
      const applied = outcomes.map((outcome) => {
        const changes =
          outcome.kind === 'retry'
            ? this.#retryUrl.run(
                outcome.crawlAttempts,
                outcome.notBefore ?? outcome.at,
                outcome.httpStatus ?? null,
                outcome.error ?? null,
                outcome.jobId,
                outcome.seq,
                outcome.claim,
              ).changes
            : this.#finishUrl.run(
                outcome.crawlAttempts,
                outcome.outcome ?? 'fetch_failed',
                outcome.httpStatus ?? null,
                outcome.error ?? null,
                outcome.finalUrl ?? null,
                outcome.objects.length,
                outcome.at,
                outcome.jobId,
                outcome.seq,
                outcome.claim,
              ).changes;
        if (Number(changes) !== 1) return false;
        for (const doc of outcome.objects) this.#insertObject.run(outcome.jobId, outcome.seq, doc);
        deltas.add(outcome);
        return true;
      });
      for (const [jobId, delta] of deltas.entries()) {
        this.#addCounters.run(
          delta.crawlAttempts,
          delta.crawlSuccesses,
          delta.processAttempts,
          delta.processSuccesses,
          delta.objects,
          jobId,
        );
      }
      return applied;
    });
  }

  listObjects(jobId: number, afterId: number, limit: number): Array<{ id: number; doc: string }> {
    return (this.#listObjects.all(jobId, afterId, limit) as Array<{ id: number; doc: string }>).map(
      (row) => ({
        id: row.id,
        doc: row.doc,
      }),
    );
  }

  listUrls(jobId: number, afterSeq: number, limit: number): CrawlUrlReport[] {
    return (this.#listUrls.all(jobId, afterSeq, limit) as unknown as UrlRow[]).map(toUrlReport);
  }

  enqueueWebhook(input: {
    jobId: number;
    url: string;
    payload: string;
    headers: Readonly<Record<string, string>>;
    at: number;
  }): void {
    this.#transaction(() => {
      const inserted = this.#db
        .prepare(
          'INSERT INTO crawl_webhooks (job_id, url, payload, headers, next_attempt_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(input.jobId, input.url, input.payload, JSON.stringify(input.headers), input.at);
      // A newer status supersedes the job's notifications not yet delivered. Deleted after the
      // insert, so the new row's id is above theirs and none of theirs is reused while one of
      // them may still be in flight (a rowid table hands out max(id) + 1).
      this.#db
        .prepare('DELETE FROM crawl_webhooks WHERE job_id = ? AND id < ?')
        .run(input.jobId, Number(inserted.lastInsertRowid));
    });
  }

  dueWebhooks(now: number, limit: number): CrawlWebhook[] {
    for (const [id, claim] of this.#webhookClaims) if (claim.until <= now) this.#webhookClaims.delete(id);
    const claimedJobs = new Set([...this.#webhookClaims.values()].map((claim) => claim.jobId));
    // A job has one row at most (a newer one deletes the older, in flight or not).
    const rows = (
      this.#db
        .prepare(`
        SELECT ${WEBHOOK_COLUMNS} FROM crawl_webhooks
        WHERE next_attempt_at <= ? ORDER BY next_attempt_at, id`)
        .all(now) as unknown as WebhookRow[]
    )
      .filter((row) => !claimedJobs.has(Number(row.job_id)))
      .slice(0, limit);
    for (const row of rows) {
      this.#webhookClaims.set(Number(row.id), {
        jobId: Number(row.job_id),
        until: now + CRAWL_WEBHOOK_LEASE_MS,
      });
    }
    return rows.map(toWebhook);
  }

  nextWebhookAt(): number | undefined {
    let next: number | undefined;
    for (const row of this.#db.prepare('SELECT id, next_attempt_at FROM crawl_webhooks').all()) {
      const at = Math.max(Number(row.next_attempt_at), this.#webhookClaims.get(Number(row.id))?.until ?? 0);
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  webhookDelivered(id: number): void {
    this.#webhookClaims.delete(id);
    this.#transaction(() => {
      const row = this.#db.prepare('DELETE FROM crawl_webhooks WHERE id = ? RETURNING job_id').get(id);
      if (row) {
        this.#db
          .prepare('UPDATE crawl_jobs SET sent_done_notification = 1 WHERE id = ?')
          .run(Number(row.job_id));
      }
    });
  }

  webhookFailed(id: number, error: string, nextAttemptAt: number | undefined): void {
    this.#webhookClaims.delete(id);
    if (nextAttemptAt === undefined) {
      this.#db.prepare('DELETE FROM crawl_webhooks WHERE id = ?').run(id);
      return;
    }
    this.#db
      .prepare(
        'UPDATE crawl_webhooks SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?',
      )
      .run(nextAttemptAt, error, id);
  }

  getSwitch(name: string): string | undefined {
    const row = this.#db.prepare('SELECT value FROM crawl_switches WHERE name = ?').get(name);
    return row ? String(row.value) : undefined;
  }

  setSwitch(name: string, value: string, now: number): void {
    this.#db
      .prepare(`
        INSERT INTO crawl_switches (name, value, updated_at) VALUES (?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`)
      .run(name, value, now);
  }
}

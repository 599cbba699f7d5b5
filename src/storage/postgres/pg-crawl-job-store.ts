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
import { CrawlCounterDeltas } from '../crawl-counters.ts';
import type { PgExecutor } from './pg-executor.ts';
import { CLAIMED, DONE, INVALID_HOST, PENDING } from '../crawl-rows.ts';
import { JOB_COLUMNS, type JobRow, toJob, URL_COLUMNS, type UrlRow, toUrlReport } from '../crawl-rows.ts';
import { toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from '../crawl-rows.ts';

/**
 * Advisory-lock namespace of the processes that claim URLs: a process holds the session lock
 * (`OWNER_LOCK_CLASS`, its owner number) on a connection of its own for as long as it runs, and
 * PostgreSQL lets go of it when that session ends, however the process ended. A claim whose
 * owner's lock nobody holds belongs to a process that is gone.
 */
export const OWNER_LOCK_CLASS = 72_013;

/**
 * A time for a BIGINT column: whole milliseconds. Callers may compute fractional ones (a retry
 * delay with jitter); the embedded store keeps them as they are, a millisecond apart at most.
 */
function ms(time: number | null | undefined): number | null {
  return time === null || time === undefined ? null : Math.round(time);
}

/** Bulk extract jobs in PostgreSQL. Claims carry the claiming process's owner number. */
export class PgCrawlJobStore implements CrawlJobStore {
  readonly #db: PgExecutor;
  readonly #owner: number;

  /** `owner`: the number whose session advisory lock this process holds (`OWNER_LOCK_CLASS`). */
  constructor(db: PgExecutor, owner: number) {
    this.#db = db;
    this.#owner = owner;
  }

  createJob(input: {
    tokenId: string;
    name: string;
    settings: CrawlJobSettings;
    status: number;
    resumeStatus: number | null;
    urls: readonly NewCrawlUrl[];
    now: number;
  }): Promise<StoredCrawlJob | undefined> {
    return this.#db.atomically(async (db) => {
      const validCount = input.urls.filter((entry) => entry.invalid === undefined).length;
      const { rows } = await db.query<{ id: number }>(
        `INSERT INTO crawl_jobs (token_id, name, settings, status, resume_status, created_at, round_started_at, url_count)
         VALUES ($1, $2, $3, $4, $5, $6, $6, $7) ON CONFLICT (token_id, name) DO NOTHING RETURNING id`,
        [
          input.tokenId,
          input.name,
          JSON.stringify(input.settings),
          input.status,
          input.resumeStatus,
          ms(input.now),
          validCount,
        ],
      );
      if (!rows[0]) return undefined;
      const jobId = rows[0].id;
      const hostIds = new Map<string, number>();
      const seqs: number[] = [];
      const hosts: number[] = [];
      const urls: string[] = [];
      const states: number[] = [];
      const outcomes: (string | null)[] = [];
      const errors: (string | null)[] = [];
      const finished: (number | null)[] = [];
      input.urls.forEach((entry, seq) => {
        seqs.push(seq);
        urls.push(entry.url);
        if (entry.invalid !== undefined) {
          hosts.push(INVALID_HOST);
          states.push(DONE);
          outcomes.push('invalid_url');
          errors.push(entry.invalid);
          finished.push(ms(input.now));
          return;
        }
        let hostId = hostIds.get(entry.host);
        if (hostId === undefined) {
          hostId = hostIds.size;
          hostIds.set(entry.host, hostId);
        }
        hosts.push(hostId);
        states.push(PENDING);
        outcomes.push(null);
        errors.push(null);
        finished.push(null);
      });
      if (hostIds.size > 0) {
        await db.query(
          `INSERT INTO crawl_hosts (job_id, host_id, host)
           SELECT $1::bigint, * FROM unnest($2::integer[], $3::text[])`,
          [jobId, [...hostIds.values()], [...hostIds.keys()]],
        );
      }
      if (seqs.length > 0) {
        await db.query(
          `INSERT INTO crawl_urls (job_id, seq, host_id, url, state, outcome, error, finished_at)
           SELECT $1::bigint, * FROM unnest($2::integer[], $3::integer[], $4::text[], $5::smallint[], $6::text[],
             $7::text[], $8::bigint[])`,
          [jobId, seqs, hosts, urls, states, outcomes, errors, finished],
        );
      }
      const { rows: created } = await db.query<JobRow>(
        `SELECT ${JOB_COLUMNS} FROM crawl_jobs WHERE id = $1`,
        [jobId],
      );
      return toJob(created[0]);
    });
  }

  async findJob(tokenId: string, name: string): Promise<StoredCrawlJob | undefined> {
    const { rows } = await this.#db.query<JobRow>(
      `SELECT ${JOB_COLUMNS} FROM crawl_jobs WHERE token_id = $1 AND name = $2`,
      [tokenId, name],
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  async getJob(id: number): Promise<StoredCrawlJob | undefined> {
    const { rows } = await this.#db.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM crawl_jobs WHERE id = $1`, [
      id,
    ]);
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  async listJobs(tokenId: string): Promise<StoredCrawlJob[]> {
    const { rows } = await this.#db.query<JobRow>(
      `SELECT ${JOB_COLUMNS} FROM crawl_jobs WHERE token_id = $1 ORDER BY id`,
      [tokenId],
    );
    return rows.map(toJob);
  }

  async jobsWithStatus(statuses: readonly number[]): Promise<StoredCrawlJob[]> {
    if (statuses.length === 0) return [];
    const { rows } = await this.#db.query<JobRow>(
      `SELECT ${JOB_COLUMNS} FROM crawl_jobs WHERE status = ANY($1::integer[]) ORDER BY id`,
      [statuses],
    );
    return rows.map(toJob);
  }

  async updateJob(id: number, patch: CrawlJobPatch, ifStatus?: readonly number[]): Promise<boolean> {
    const sets: string[] = [];
    const values: unknown[] = [];
    const set = (column: string, value: unknown) => {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    };
    if (patch.status !== undefined) set('status', patch.status);
    if (patch.resumeStatus !== undefined) set('resume_status', patch.resumeStatus);
    if (patch.completedAt !== undefined) set('completed_at', ms(patch.completedAt));
    if (patch.nextRoundAt !== undefined) set('next_round_at', ms(patch.nextRoundAt));
    if (patch.roundStartedAt !== undefined) set('round_started_at', ms(patch.roundStartedAt));
    if (patch.sentDoneNotification !== undefined) set('sent_done_notification', patch.sentDoneNotification);
    if (patch.addRoundsCompleted !== undefined) {
      values.push(patch.addRoundsCompleted);
      sets.push(`rounds_completed = rounds_completed + $${values.length}`);
    }
    if (sets.length === 0) return (await this.getJob(id)) !== undefined;
    values.push(id);
    let sql = `UPDATE crawl_jobs SET ${sets.join(', ')} WHERE id = $${values.length}`;
    if (ifStatus !== undefined) {
      if (ifStatus.length === 0) return false;
      values.push(ifStatus);
      sql += ` AND status = ANY($${values.length}::integer[])`;
    }
    return (await this.#db.query(sql, values)).rowCount === 1;
  }

  startRound(id: number, now: number, status: number, ifStatus?: number): Promise<boolean> {
    return this.#db.atomically(async (db) => {
      // The job's row first: its lock makes concurrent starts of one round take turns.
      const { rowCount } = await db.query(
        `UPDATE crawl_jobs SET status = $1, resume_status = NULL, round_started_at = $2, next_round_at = NULL,
           page_crawl_successes_round = 0, page_process_successes_round = 0, sent_done_notification = FALSE
         WHERE id = $3 AND ($4::integer IS NULL OR status = $4)`,
        [status, ms(now), id, ifStatus ?? null],
      );
      if (rowCount === 0) return false;
      await this.#resetUrls(db, id);
      return true;
    });
  }

  resetJob(id: number, now: number, status: number): Promise<void> {
    return this.#db.atomically(async (db) => {
      await this.#resetUrls(db, id);
      await db.query('DELETE FROM crawl_objects WHERE job_id = $1', [id]);
      await db.query('DELETE FROM crawl_webhooks WHERE job_id = $1', [id]);
      await db.query(
        `UPDATE crawl_jobs SET status = $1, resume_status = NULL, completed_at = NULL, round_started_at = $2,
           next_round_at = NULL, page_crawl_attempts = 0, page_crawl_successes = 0,
           page_crawl_successes_round = 0, page_process_attempts = 0, page_process_successes = 0,
           page_process_successes_round = 0, objects_found = 0, rounds_completed = 0,
           sent_done_notification = FALSE
         WHERE id = $3`,
        [status, ms(now), id],
      );
    });
  }

  async #resetUrls(db: PgExecutor, jobId: number): Promise<void> {
    await db.query(
      `UPDATE crawl_urls SET state = ${PENDING}, claim = NULL, owner = NULL, not_before = 0, attempts = 0,
         outcome = NULL, http_status = NULL, error = NULL, final_url = NULL, objects = 0, finished_at = NULL
       WHERE job_id = $1 AND host_id <> ${INVALID_HOST}`,
      [jobId],
    );
  }

  deleteJob(id: number): Promise<boolean> {
    return this.#db.atomically(async (db) => {
      for (const table of ['crawl_urls', 'crawl_hosts', 'crawl_objects', 'crawl_webhooks']) {
        await db.query(`DELETE FROM ${table} WHERE job_id = $1`, [id]);
      }
      return (await db.query('DELETE FROM crawl_jobs WHERE id = $1', [id])).rowCount === 1;
    });
  }

  async holdJobs(from: readonly number[], to: number): Promise<number[]> {
    if (from.length === 0) return [];
    const { rows } = await this.#db.query<{ id: number }>(
      `UPDATE crawl_jobs SET resume_status = status, status = $1 WHERE status = ANY($2::integer[]) RETURNING id`,
      [to, from],
    );
    return rows.map((row) => row.id).sort((a, b) => a - b);
  }

  async restoreHeldJobs(status: number): Promise<number[]> {
    const { rows } = await this.#db.query<{ id: number }>(
      `UPDATE crawl_jobs SET status = coalesce(resume_status, status), resume_status = NULL
       WHERE status = $1 RETURNING id`,
      [status],
    );
    return rows.map((row) => row.id).sort((a, b) => a - b);
  }

  async recoverClaims(): Promise<number> {
    return this.#recover(true);
  }

  async recoverLostClaims(): Promise<number> {
    return this.#recover(false);
  }

  /**
   * Claims of processes whose owner lock is free (those processes are gone), and with `own` this
   * store's own. A live process's claims (its lock is held) stay with it.
   */
  #recover(own: boolean): Promise<number> {
    // The scheduler claims a URL when its fetch begins: each claim left over was a request that
    // may have reached the site, so it counts as a crawl attempt of the URL and its job (issue 28).
    return this.#db.atomically(async (db) => {
      const { rows } = await db.query<{ job_id: number; n: number }>(
        `WITH lost AS (
           UPDATE crawl_urls u SET state = ${PENDING}, claim = NULL, owner = NULL, attempts = attempts + 1
           WHERE u.state = ${CLAIMED} AND (u.owner IS NULL OR ($2 AND u.owner = $3) OR NOT EXISTS (
             SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.database = (
               SELECT oid FROM pg_database WHERE datname = current_database())
               AND l.classid = $1 AND l.objid = u.owner AND l.objsubid = 2 AND l.granted))
           RETURNING u.job_id)
         SELECT job_id, count(*) AS n FROM lost GROUP BY job_id`,
        [OWNER_LOCK_CLASS, own, this.#owner],
      );
      let recovered = 0;
      for (const row of rows) {
        recovered += row.n;
        await db.query('UPDATE crawl_jobs SET page_crawl_attempts = page_crawl_attempts + $1 WHERE id = $2', [
          row.n,
          row.job_id,
        ]);
      }
      return recovered;
    });
  }

  async hosts(jobId: number): Promise<Array<{ hostId: number; host: string }>> {
    const { rows } = await this.#db.query<{ host_id: number; host: string }>(
      'SELECT host_id, host FROM crawl_hosts WHERE job_id = $1 ORDER BY host_id',
      [jobId],
    );
    return rows.map((row) => ({ hostId: row.host_id, host: row.host }));
  }

  async claim(
    jobId: number,
    hostId: number,
    now: number,
    limit: number,
    claim: number,
  ): Promise<ClaimedUrl[]> {
    // SKIP LOCKED: two processes claiming from one host at once take different URLs, never one twice.
    const { rows } = await this.#db.query<{ seq: number; url: string; attempts: number }>(
      `UPDATE crawl_urls u SET state = ${CLAIMED}, claim = $5, owner = $6
       FROM (SELECT seq FROM crawl_urls
             WHERE job_id = $1 AND host_id = $2 AND state = ${PENDING} AND not_before <= $3
             ORDER BY seq LIMIT $4 FOR UPDATE SKIP LOCKED) pick
       WHERE u.job_id = $1 AND u.seq = pick.seq
       RETURNING u.seq, u.url, u.attempts`,
      [jobId, hostId, ms(now), limit, claim, this.#owner],
    );
    return rows
      .sort((a, b) => a.seq - b.seq)
      .map((row) => ({ jobId, seq: row.seq, hostId, url: row.url, attempts: row.attempts, claim }));
  }

  async release(urls: readonly ClaimedUrl[]): Promise<void> {
    if (urls.length === 0) return;
    await this.#db.query(
      `UPDATE crawl_urls u SET state = ${PENDING}, claim = NULL, owner = NULL
       FROM unnest($1::bigint[], $2::integer[], $3::bigint[]) AS r(job_id, seq, claim)
       WHERE u.job_id = r.job_id AND u.seq = r.seq AND u.state = ${CLAIMED} AND u.claim = r.claim`,
      [urls.map((u) => u.jobId), urls.map((u) => u.seq), urls.map((u) => u.claim)],
    );
  }

  async nextPendingAt(jobId: number, hostId: number): Promise<number | undefined> {
    const { rows } = await this.#db.query<{ at: number | null }>(
      `SELECT min(not_before) AS at FROM crawl_urls WHERE job_id = $1 AND host_id = $2 AND state = ${PENDING}`,
      [jobId, hostId],
    );
    return rows[0]?.at ?? undefined;
  }

  async unfinishedCount(jobId: number): Promise<number> {
    const { rows } = await this.#db.query<{ n: number }>(
      `SELECT count(*) AS n FROM crawl_urls WHERE job_id = $1 AND state <> ${DONE}`,
      [jobId],
    );
    return rows[0].n;
  }

  recordOutcomes(outcomes: readonly CrawlPageOutcome[]): Promise<boolean[]> {
    if (outcomes.length === 0) return Promise.resolve([]);
    return this.#db.atomically(async (db) => {
      // The counting rule is `CrawlCounterDeltas`'; here, one UPDATE per job.
      const deltas = new CrawlCounterDeltas();
      const applied: boolean[] = [];
      for (const outcome of outcomes) {
        const { rowCount } =
          outcome.kind === 'retry'
            ? await db.query(
                `UPDATE crawl_urls SET state = ${PENDING}, claim = NULL, owner = NULL, attempts = attempts + $1,
                   not_before = $2, http_status = $3, error = $4
                 WHERE job_id = $5 AND seq = $6 AND state = ${CLAIMED} AND claim = $7`,
                [
                  outcome.crawlAttempts,
                  ms(outcome.notBefore ?? outcome.at),
                  outcome.httpStatus ?? null,
                  outcome.error ?? null,
                  outcome.jobId,
                  outcome.seq,
                  outcome.claim,
                ],
              )
            : await db.query(
                `UPDATE crawl_urls SET state = ${DONE}, claim = NULL, owner = NULL, attempts = attempts + $1,
                   outcome = $2, http_status = $3, error = $4, final_url = $5, objects = $6, finished_at = $7
                 WHERE job_id = $8 AND seq = $9 AND state = ${CLAIMED} AND claim = $10`,
                [
                  outcome.crawlAttempts,
                  outcome.outcome ?? 'fetch_failed',
                  outcome.httpStatus ?? null,
                  outcome.error ?? null,
                  outcome.finalUrl ?? null,
                  outcome.objects.length,
                  ms(outcome.at),
                  outcome.jobId,
                  outcome.seq,
                  outcome.claim,
                ],
              );
        if (rowCount !== 1) {
          applied.push(false);
          continue;
        }
        applied.push(true);
        if (outcome.objects.length > 0) {
          await db.query(
            `INSERT INTO crawl_objects (job_id, seq, doc)
             SELECT $1::bigint, $2::integer, doc FROM unnest($3::text[]) WITH ORDINALITY AS t(doc, n) ORDER BY n`,
            [outcome.jobId, outcome.seq, outcome.objects],
          );
        }
        deltas.add(outcome);
      }
      for (const [jobId, delta] of deltas.entries()) {
        await db.query(
          `UPDATE crawl_jobs SET
             page_crawl_attempts = page_crawl_attempts + $1,
             page_crawl_successes = page_crawl_successes + $2,
             page_crawl_successes_round = page_crawl_successes_round + $2,
             page_process_attempts = page_process_attempts + $3,
             page_process_successes = page_process_successes + $4,
             page_process_successes_round = page_process_successes_round + $4,
             objects_found = objects_found + $5
           WHERE id = $6`,
          [
            delta.crawlAttempts,
            delta.crawlSuccesses,
            delta.processAttempts,
            delta.processSuccesses,
            delta.objects,
            jobId,
          ],
        );
      }
      return applied;
    });
  }

  async listObjects(
    jobId: number,
    afterId: number,
    limit: number,
  ): Promise<Array<{ id: number; doc: string }>> {
    const { rows } = await this.#db.query<{ id: number; doc: string }>(
      'SELECT id, doc FROM crawl_objects WHERE job_id = $1 AND id > $2 ORDER BY id LIMIT $3',
      [jobId, afterId, limit],
    );
    return rows.map((row) => ({ id: row.id, doc: row.doc }));
  }

  async listUrls(jobId: number, afterSeq: number, limit: number): Promise<CrawlUrlReport[]> {
    const { rows } = await this.#db.query<UrlRow>(
      `SELECT ${URL_COLUMNS}
       FROM crawl_urls WHERE job_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [jobId, afterSeq, limit],
    );
    return rows.map(toUrlReport);
  }

  enqueueWebhook(input: {
    jobId: number;
    url: string;
    payload: string;
    headers: Readonly<Record<string, string>>;
    at: number;
  }): Promise<void> {
    return this.#db.atomically(async (db) => {
      const { rows } = await db.query<{ id: number }>(
        `INSERT INTO crawl_webhooks (job_id, url, payload, headers, next_attempt_at) VALUES ($1, $2, $3, $4, $5)
         RETURNING id`,
        [input.jobId, input.url, input.payload, JSON.stringify(input.headers), ms(input.at)],
      );
      // A newer status supersedes the job's notifications not yet delivered. One being delivered
      // stays until its delivery ends (the newer one waits for it: notifications stay in order).
      await db.query('DELETE FROM crawl_webhooks WHERE job_id = $1 AND id < $2 AND claimed_until <= $3', [
        input.jobId,
        rows[0].id,
        ms(input.at),
      ]);
    });
  }

  async dueWebhooks(now: number, limit: number): Promise<CrawlWebhook[]> {
    // Claimed in one statement: rows another process is claiming are skipped (SKIP LOCKED), and
    // a row claimed meanwhile fails the re-checked condition. Eligible: due, unclaimed (or its
    // lease run out), the newest of its job, and no delivery of its job claimed.
    const { rows } = await this.#db.query<WebhookRow>(
      // RETURNING qualifies the columns with `w.`: `due` has an `id` too.
      `UPDATE crawl_webhooks w SET claimed_by = $3, claimed_until = $4
       FROM (
         SELECT c.id FROM crawl_webhooks c
         WHERE c.next_attempt_at <= $1 AND c.claimed_until <= $1
           AND NOT EXISTS (SELECT 1 FROM crawl_webhooks o
             WHERE o.job_id = c.job_id AND (o.id > c.id OR o.claimed_until > $1))
         ORDER BY c.next_attempt_at, c.id LIMIT $2
         FOR UPDATE OF c SKIP LOCKED
       ) due
       WHERE w.id = due.id AND w.claimed_until <= $1
       RETURNING ${WEBHOOK_COLUMNS.replace(/(\w+)/g, 'w.$1')}`,
      [ms(now), limit, this.#owner, ms(now + CRAWL_WEBHOOK_LEASE_MS)],
    );
    return rows.map(toWebhook).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
  }

  async nextWebhookAt(): Promise<number | undefined> {
    const { rows } = await this.#db.query<{ at: number | null }>(
      'SELECT min(GREATEST(next_attempt_at, claimed_until)) AS at FROM crawl_webhooks',
    );
    return rows[0]?.at ?? undefined;
  }

  webhookDelivered(id: number): Promise<void> {
    return this.#db.atomically(async (db) => {
      const { rows } = await db.query<{ job_id: number }>(
        'DELETE FROM crawl_webhooks WHERE id = $1 RETURNING job_id',
        [id],
      );
      if (rows[0]) {
        await db.query('UPDATE crawl_jobs SET sent_done_notification = TRUE WHERE id = $1', [rows[0].job_id]);
        // Older ones it superseded while they were claimed (by a process that died since).
        await db.query('DELETE FROM crawl_webhooks WHERE job_id = $1 AND id < $2', [rows[0].job_id, id]);
      }
    });
  }

  async webhookFailed(id: number, error: string, nextAttemptAt: number | undefined): Promise<void> {
    // Given up, or superseded by a newer notification of its job (queued while it was claimed).
    await this.#db.query(
      `DELETE FROM crawl_webhooks w WHERE w.id = $1 AND ($2 OR EXISTS (
         SELECT 1 FROM crawl_webhooks o WHERE o.job_id = w.job_id AND o.id > w.id))`,
      [id, nextAttemptAt === undefined],
    );
    if (nextAttemptAt === undefined) return;
    await this.#db.query(
      `UPDATE crawl_webhooks SET attempts = attempts + 1, next_attempt_at = $1, last_error = $2,
         claimed_by = NULL, claimed_until = 0
       WHERE id = $3`,
      [ms(nextAttemptAt), error, id],
    );
  }

  async getSwitch(name: string): Promise<string | undefined> {
    const { rows } = await this.#db.query<{ value: string }>(
      'SELECT value FROM crawl_switches WHERE name = $1',
      [name],
    );
    return rows[0]?.value;
  }

  async setSwitch(name: string, value: string, now: number): Promise<void> {
    await this.#db.query(
      `INSERT INTO crawl_switches (name, value, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      [name, value, ms(now)],
    );
  }
}

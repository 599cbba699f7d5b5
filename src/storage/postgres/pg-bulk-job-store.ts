import type {
  BulkJobPatch,
  BulkJobRow,
  BulkJobState,
  BulkJobStore,
  BulkRecord,
  BulkReportPatch,
  BulkReportRow,
  BulkResult,
  BulkWebhookState,
  NewBulkJob,
  NewBulkReport,
} from '../ports.ts';
import { JOB_COLUMNS, type JobRow, REPORT_COLUMNS, type ReportRow, toJob, toReport } from '../bulk-rows.ts';
import { jobPatchColumns, reportPatchColumns, resultCounters } from '../bulk-rows.ts';
import type { PgExecutor } from './pg-executor.ts';

/** Highest record position plus one (as the embedded store: far above the 1,000,000-record cap). */
const MAX_POSITIONS = 2 ** 24;

const REPORT_SELECT = `SELECT ${REPORT_COLUMNS} FROM bulk_reports r JOIN bulk_jobs j ON j.seq = r.job_seq`;

/** A job's seq, shared by the stores of one process: a job's seq never changes. */
export type BulkSeqCache = Map<string, number>;

/** Bulk enhance jobs in PostgreSQL; records and results are keyed by (job seq, position). */
export class PgBulkJobStore implements BulkJobStore {
  readonly #db: PgExecutor;
  readonly #seqs: BulkSeqCache;

  constructor(db: PgExecutor, seqs: BulkSeqCache = new Map()) {
    this.#db = db;
    this.#seqs = seqs;
  }

  async #seq(jobId: string): Promise<number | undefined> {
    let seq = this.#seqs.get(jobId);
    if (seq === undefined) {
      const { rows } = await this.#db.query<{ seq: number }>('SELECT seq FROM bulk_jobs WHERE id = $1', [
        jobId,
      ]);
      if (!rows[0]) return undefined;
      seq = rows[0].seq;
      this.#seqs.set(jobId, seq);
    }
    return seq;
  }

  async #requireSeq(jobId: string): Promise<number> {
    const seq = await this.#seq(jobId);
    if (seq === undefined) throw new Error(`bulk job ${jobId} does not exist`);
    return seq;
  }

  async create(job: NewBulkJob): Promise<BulkJobRow> {
    const { rows } = await this.#db.query<JobRow>(
      `INSERT INTO bulk_jobs (id, token_id, name, options, webhook_url, state, submit_time)
       VALUES ($1, $2, $3, $4, $5, 'SUBMITTING', $6) RETURNING ${JOB_COLUMNS}`,
      [
        job.id,
        job.tokenId,
        job.name,
        JSON.stringify(job.options),
        job.webhookUrl,
        Math.round(job.submitTime),
      ],
    );
    this.#seqs.set(rows[0].id, rows[0].seq);
    return toJob(rows[0]);
  }

  async appendRecords(jobId: string, firstIndex: number, queries: readonly string[]): Promise<void> {
    const seq = await this.#requireSeq(jobId);
    if (firstIndex < 0 || firstIndex + queries.length > MAX_POSITIONS) {
      throw new RangeError(`record positions must stay below ${MAX_POSITIONS}`);
    }
    if (queries.length === 0) return;
    await this.#db.query(
      `INSERT INTO bulk_records (job_seq, idx, query)
       SELECT $1::bigint, $2::integer + n::integer - 1, q FROM unnest($3::text[]) WITH ORDINALITY AS t(q, n)`,
      [seq, firstIndex, queries],
    );
  }

  async publish(jobId: string, total: number): Promise<BulkJobRow> {
    const { rows } = await this.#db.query<JobRow>(
      `UPDATE bulk_jobs SET state = 'NOT_STARTED', total = $1 WHERE id = $2 AND state = 'SUBMITTING'
       RETURNING ${JOB_COLUMNS}`,
      [total, jobId],
    );
    if (!rows[0]) throw new Error(`bulk job ${jobId} is not being submitted`);
    return toJob(rows[0]);
  }

  async get(jobId: string): Promise<BulkJobRow | undefined> {
    const { rows } = await this.#db.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM bulk_jobs WHERE id = $1`, [
      jobId,
    ]);
    const row = rows[0];
    if (!row || row.state === 'SUBMITTING' || row.state === 'DELETING') return undefined;
    return toJob(row);
  }

  async listForToken(tokenId: string): Promise<BulkJobRow[]> {
    const { rows } = await this.#db.query<JobRow>(
      `SELECT ${JOB_COLUMNS} FROM bulk_jobs WHERE token_id = $1 AND state NOT IN ('SUBMITTING', 'DELETING')
       ORDER BY seq DESC`,
      [tokenId],
    );
    return rows.map(toJob);
  }

  async listByState(states: readonly BulkJobState[]): Promise<BulkJobRow[]> {
    if (states.length === 0) return [];
    const { rows } = await this.#db.query<JobRow>(
      `SELECT ${JOB_COLUMNS} FROM bulk_jobs WHERE state = ANY($1::text[]) ORDER BY seq`,
      [states],
    );
    return rows.map(toJob);
  }

  async listFinishedBefore(before: number, limit: number): Promise<BulkJobRow[]> {
    const { rows } = await this.#db.query<JobRow>(
      `SELECT ${JOB_COLUMNS} FROM bulk_jobs
       WHERE completed_time IS NOT NULL AND completed_time < $1 AND state NOT IN ('SUBMITTING', 'DELETING')
       ORDER BY completed_time, seq LIMIT $2`,
      [before, limit],
    );
    return rows.map(toJob);
  }

  async replaceWebhook(jobId: string, from: BulkWebhookState, to: BulkWebhookState): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      'UPDATE bulk_jobs SET webhook = $1 WHERE id = $2 AND webhook = $3',
      [JSON.stringify(to), jobId, JSON.stringify(from)],
    );
    return rowCount === 1;
  }

  async update(
    jobId: string,
    patch: BulkJobPatch,
    ifState?: readonly BulkJobState[],
  ): Promise<BulkJobRow | undefined> {
    if (ifState?.length === 0) return undefined;
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [column, value] of jobPatchColumns(patch)) {
      values.push(typeof value === 'number' ? Math.round(value) : value);
      sets.push(`${column} = $${values.length}`);
    }
    values.push(jobId);
    let condition = '';
    if (ifState) {
      values.push(ifState);
      condition = ` AND state = ANY($${values.length}::text[])`;
    }
    const idParam = `$${values.length - (ifState ? 1 : 0)}`;
    const sql =
      sets.length === 0
        ? `SELECT ${JOB_COLUMNS} FROM bulk_jobs WHERE id = ${idParam}${condition}`
        : `UPDATE bulk_jobs SET ${sets.join(', ')} WHERE id = ${idParam}${condition} RETURNING ${JOB_COLUMNS}`;
    const { rows } = await this.#db.query<JobRow>(sql, values);
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  async lockRunning(jobId: string): Promise<BulkJobRow | undefined> {
    const { rows } = await this.#db.query<JobRow>(
      `SELECT ${JOB_COLUMNS} FROM bulk_jobs WHERE id = $1 AND state IN ('NOT_STARTED', 'IN_PROCESS') FOR UPDATE`,
      [jobId],
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  async pendingRecords(jobId: string, fromIndex: number, limit: number): Promise<BulkRecord[]> {
    const seq = await this.#seq(jobId);
    if (seq === undefined) return [];
    // Records of the range that have no result: after a crash, exactly the work left to do.
    const { rows } = await this.#db.query<{ idx: number; query: string }>(
      `SELECT r.idx, r.query FROM bulk_records r
       WHERE r.job_seq = $1 AND r.idx >= $2
         AND NOT EXISTS (SELECT 1 FROM bulk_results s WHERE s.job_seq = r.job_seq AND s.idx = r.idx)
       ORDER BY r.idx LIMIT $3`,
      [seq, Math.max(0, fromIndex), limit],
    );
    return rows.map((row) => ({ index: row.idx, query: row.query }));
  }

  async saveResults(jobId: string, results: readonly BulkResult[]): Promise<void> {
    if (results.length === 0) return;
    const seq = await this.#requireSeq(jobId);
    const indexes = results.map((r) => r.index);
    await this.#db.atomically(async (db) => {
      // The primary key refuses a second result for a record: the whole call fails.
      await db.query(
        `INSERT INTO bulk_results (job_seq, idx, hits, failed, response, summary)
         SELECT $1::bigint, * FROM unnest($2::integer[], $3::integer[], $4::boolean[], $5::text[], $6::text[])`,
        [
          seq,
          indexes,
          results.map((r) => r.hits),
          results.map((r) => r.failed),
          results.map((r) => r.response),
          results.map((r) => r.summary ?? null),
        ],
      );
      await db.query(
        `INSERT INTO bulk_search_info (job_seq, idx, search_info) SELECT $1::bigint, * FROM unnest($2::integer[], $3::text[])`,
        [seq, indexes, results.map((r) => r.searchInfo)],
      );
      await db.query(
        `UPDATE bulk_jobs SET completed = completed + $1, failed = failed + $2, hits = hits + $3,
           result_bytes = result_bytes + $4, pages_fetched = pages_fetched + $5,
           pages_failed = pages_failed + $6, pages_fresh = pages_fresh + $7 WHERE seq = $8`,
        [...resultCounters(results), seq],
      );
    });
  }

  async result(jobId: string, index: number): Promise<BulkResult | undefined> {
    const seq = await this.#seq(jobId);
    if (seq === undefined || !Number.isInteger(index) || index < 0 || index >= MAX_POSITIONS)
      return undefined;
    const { rows } = await this.#db.query<{
      hits: number;
      failed: boolean;
      response: string;
      search_info: string;
    }>(
      `SELECT r.hits, r.failed, r.response, s.search_info
       FROM bulk_results r JOIN bulk_search_info s ON s.job_seq = r.job_seq AND s.idx = r.idx
       WHERE r.job_seq = $1 AND r.idx = $2`,
      [seq, index],
    );
    const row = rows[0];
    return row
      ? { index, hits: row.hits, failed: row.failed, response: row.response, searchInfo: row.search_info }
      : undefined;
  }

  async results(
    jobId: string,
    fromIndex: number,
    limit: number,
    options: { searchInfo?: boolean; summary?: boolean } = {},
  ): Promise<BulkResult[]> {
    const seq = await this.#seq(jobId);
    if (seq === undefined) return [];
    if (options.summary) return this.#summaries(seq, fromIndex, limit);
    const sql =
      options.searchInfo === false
        ? `SELECT idx, hits, failed, response, '' AS search_info FROM bulk_results
           WHERE job_seq = $1 AND idx >= $2 ORDER BY idx LIMIT $3`
        : `SELECT r.idx, r.hits, r.failed, r.response, s.search_info
           FROM bulk_results r JOIN bulk_search_info s ON s.job_seq = r.job_seq AND s.idx = r.idx
           WHERE r.job_seq = $1 AND r.idx >= $2 ORDER BY r.idx LIMIT $3`;
    const { rows } = await this.#db.query<{
      idx: number;
      hits: number;
      failed: boolean;
      response: string;
      search_info: string;
    }>(sql, [seq, Math.max(0, fromIndex), limit]);
    return rows.map((row) => ({
      index: row.idx,
      hits: row.hits,
      failed: row.failed,
      response: row.response,
      searchInfo: row.search_info,
    }));
  }

  /** `results` with `summary: true`: the summary where there is one (migration 103), else the response. */
  async #summaries(seq: number, fromIndex: number, limit: number): Promise<BulkResult[]> {
    const { rows } = await this.#db.query<{
      idx: number;
      hits: number;
      failed: boolean;
      response: string;
      summary: string | null;
    }>(
      `SELECT idx, hits, failed, CASE WHEN summary IS NULL THEN response ELSE '' END AS response, summary
       FROM bulk_results WHERE job_seq = $1 AND idx >= $2 ORDER BY idx LIMIT $3`,
      [seq, Math.max(0, fromIndex), limit],
    );
    return rows.map((row) => ({
      index: row.idx,
      hits: row.hits,
      failed: row.failed,
      response: row.response,
      searchInfo: '',
      ...(row.summary === null ? {} : { summary: row.summary }),
    }));
  }

  async purge(jobId: string, limit: number): Promise<boolean> {
    const seq = await this.#seq(jobId);
    if (seq === undefined) return true;
    return this.#db.atomically(async (db) => {
      let removed = 0;
      for (const table of ['bulk_results', 'bulk_search_info', 'bulk_records']) {
        const { rowCount } = await db.query(
          `DELETE FROM ${table} WHERE (job_seq, idx) IN
             (SELECT job_seq, idx FROM ${table} WHERE job_seq = $1 LIMIT $2)`,
          [seq, limit],
        );
        removed += rowCount;
      }
      if (removed > 0) return false;
      await db.query('DELETE FROM bulk_reports WHERE job_seq = $1', [seq]);
      await db.query('DELETE FROM bulk_jobs WHERE seq = $1', [seq]);
      this.#seqs.delete(jobId);
      return true;
    });
  }

  async addReport(report: NewBulkReport): Promise<BulkReportRow> {
    const seq = await this.#requireSeq(report.jobId);
    await this.#db.query(
      `INSERT INTO bulk_reports (id, job_seq, key, format, spec, export_file, separator, filter, status,
         export_status, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (job_seq, key) DO NOTHING`,
      [
        report.id,
        seq,
        report.key,
        report.format,
        report.spec,
        report.exportFile,
        report.separator,
        report.filter,
        report.status,
        report.exportStatus,
        Math.round(report.createdAt),
      ],
    );
    // The report of that key, whoever added it.
    return (await this.reportByKey(report.jobId, report.key))!;
  }

  async updateReport(reportId: string, patch: BulkReportPatch): Promise<BulkReportRow | undefined> {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [column, value] of reportPatchColumns(patch)) {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    }
    if (sets.length > 0) {
      values.push(reportId);
      await this.#db.query(`UPDATE bulk_reports SET ${sets.join(', ')} WHERE id = $${values.length}`, values);
    }
    const { rows } = await this.#db.query<ReportRow>(`${REPORT_SELECT} WHERE r.id = $1`, [reportId]);
    return rows[0] ? toReport(rows[0]) : undefined;
  }

  async reports(jobId: string): Promise<BulkReportRow[]> {
    const { rows } = await this.#db.query<ReportRow>(
      `${REPORT_SELECT} WHERE j.id = $1 ORDER BY r.created_at, r.seq`,
      [jobId],
    );
    return rows.map(toReport);
  }

  async report(jobId: string, reportId: string): Promise<BulkReportRow | undefined> {
    const { rows } = await this.#db.query<ReportRow>(`${REPORT_SELECT} WHERE j.id = $1 AND r.id = $2`, [
      jobId,
      reportId,
    ]);
    return rows[0] ? toReport(rows[0]) : undefined;
  }

  async reportByKey(jobId: string, key: string): Promise<BulkReportRow | undefined> {
    const { rows } = await this.#db.query<ReportRow>(`${REPORT_SELECT} WHERE j.id = $1 AND r.key = $2`, [
      jobId,
      key,
    ]);
    return rows[0] ? toReport(rows[0]) : undefined;
  }
}

import type { DatabaseSync, StatementSync } from 'node:sqlite';
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
import type { Synchronous } from './asynchronous.ts';

/**
 * Records and results of job `seq` live at keys `seq * KEY_SPAN + index`: one contiguous range
 * per job in a rowid table (a single B-tree, no secondary index). 2^24 positions per job is far
 * above the record cap (1,000,000), and `seq` < 2^29 keeps keys exact in a JS number.
 */
export const KEY_SPAN = 2 ** 24;

/** States no reader sees unless it asks for them by name. */
const HIDDEN: readonly BulkJobState[] = ['SUBMITTING', 'DELETING'];

/** Bulk enhance jobs in the embedded store. */
export class SqliteBulkJobStore implements Synchronous<BulkJobStore> {
  readonly #db: DatabaseSync;
  readonly #transaction: <T>(fn: () => T) => T;
  /** Job id → seq. A job's seq never changes; entries go when the job is purged. */
  readonly #seqs = new Map<string, number>();
  readonly #insertJob: StatementSync;
  readonly #seqOf: StatementSync;
  readonly #byId: StatementSync;
  readonly #insertRecord: StatementSync;
  readonly #pending: StatementSync;
  readonly #insertResult: StatementSync;
  readonly #insertSearchInfo: StatementSync;
  readonly #addCounters: StatementSync;
  readonly #resultAt: StatementSync;
  readonly #resultsFrom: StatementSync;
  readonly #responsesFrom: StatementSync;
  readonly #summariesFrom: StatementSync;
  readonly #purgeRecords: StatementSync;
  readonly #purgeResults: StatementSync;
  readonly #purgeSearchInfo: StatementSync;
  readonly #insertReport: StatementSync;
  readonly #reportById: StatementSync;
  readonly #reportByKey: StatementSync;
  readonly #reportsOf: StatementSync;

  constructor(db: DatabaseSync, transaction: <T>(fn: () => T) => T) {
    this.#db = db;
    this.#transaction = transaction;
    this.#insertJob = db.prepare(
      `INSERT INTO bulk_jobs (id, token_id, name, options, webhook_url, state, submit_time)
       VALUES (?, ?, ?, ?, ?, 'SUBMITTING', ?) RETURNING ${JOB_COLUMNS}`,
    );
    this.#seqOf = db.prepare('SELECT seq FROM bulk_jobs WHERE id = ?');
    this.#byId = db.prepare(`SELECT ${JOB_COLUMNS} FROM bulk_jobs WHERE id = ?`);
    this.#insertRecord = db.prepare('INSERT INTO bulk_records (key, query) VALUES (?, ?)');
    // Records of the range that have no result: after a crash, exactly the work left to do.
    this.#pending = db.prepare(
      `SELECT r.key, r.query FROM bulk_records r
       WHERE r.key >= ? AND r.key < ? AND NOT EXISTS (SELECT 1 FROM bulk_results s WHERE s.key = r.key)
       ORDER BY r.key LIMIT ?`,
    );
    this.#pending.setReturnArrays(true);
    // searchInfo has a table of its own (migration 101): columnar exports read only the results,
    // three to four to a page instead of about one.
    this.#insertResult = db.prepare(
      'INSERT INTO bulk_results (key, hits, failed, response, summary) VALUES (?, ?, ?, ?, ?)',
    );
    this.#insertSearchInfo = db.prepare('INSERT INTO bulk_search_info (key, search_info) VALUES (?, ?)');
    this.#addCounters = db.prepare(
      `UPDATE bulk_jobs SET completed = completed + ?, failed = failed + ?, hits = hits + ?,
         result_bytes = result_bytes + ?, pages_fetched = pages_fetched + ?, pages_failed = pages_failed + ?,
         pages_fresh = pages_fresh + ? WHERE seq = ?`,
    );
    this.#resultAt = db.prepare(
      `SELECT r.key, r.hits, r.failed, r.response, s.search_info
       FROM bulk_results r JOIN bulk_search_info s ON s.key = r.key WHERE r.key = ?`,
    );
    this.#resultAt.setReturnArrays(true);
    this.#resultsFrom = db.prepare(
      `SELECT r.key, r.hits, r.failed, r.response, s.search_info
       FROM bulk_results r JOIN bulk_search_info s ON s.key = r.key WHERE r.key >= ? AND r.key < ?
       ORDER BY r.key LIMIT ?`,
    );
    this.#resultsFrom.setReturnArrays(true);
    this.#responsesFrom = db.prepare(
      `SELECT key, hits, failed, response, '' FROM bulk_results WHERE key >= ? AND key < ?
       ORDER BY key LIMIT ?`,
    );
    this.#responsesFrom.setReturnArrays(true);
    // The summary where there is one (migration 103), else the response: a CASE reads one text.
    this.#summariesFrom = db.prepare(
      `SELECT key, hits, failed, CASE WHEN summary IS NULL THEN response ELSE '' END, summary
       FROM bulk_results WHERE key >= ? AND key < ? ORDER BY key LIMIT ?`,
    );
    this.#summariesFrom.setReturnArrays(true);
    // At most `limit` rows of a job's key range, per table.
    const purgeFrom = (table: string) =>
      db.prepare(
        `DELETE FROM ${table} WHERE key IN (SELECT key FROM ${table} WHERE key >= ? AND key < ? LIMIT ?)`,
      );
    this.#purgeRecords = purgeFrom('bulk_records');
    this.#purgeResults = purgeFrom('bulk_results');
    this.#purgeSearchInfo = purgeFrom('bulk_search_info');
    this.#insertReport = db.prepare(
      `INSERT INTO bulk_reports (id, job_seq, key, format, spec, export_file, separator, filter, status,
         export_status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (job_seq, key) DO NOTHING`,
    );
    const reportSelect = `SELECT ${REPORT_COLUMNS} FROM bulk_reports r JOIN bulk_jobs j ON j.seq = r.job_seq`;
    this.#reportById = db.prepare(`${reportSelect} WHERE j.id = ? AND r.id = ?`);
    this.#reportByKey = db.prepare(`${reportSelect} WHERE j.id = ? AND r.key = ?`);
    this.#reportsOf = db.prepare(`${reportSelect} WHERE j.id = ? ORDER BY r.created_at, r.rowid`);
  }

  #seq(jobId: string): number | undefined {
    let seq = this.#seqs.get(jobId);
    if (seq === undefined) {
      const row = this.#seqOf.get(jobId) as { seq: number } | undefined;
      if (!row) return undefined;
      seq = row.seq;
      this.#seqs.set(jobId, seq);
    }
    return seq;
  }

  #requireSeq(jobId: string): number {
    const seq = this.#seq(jobId);
    if (seq === undefined) throw new Error(`bulk job ${jobId} does not exist`);
    return seq;
  }

  create(job: NewBulkJob): BulkJobRow {
    const row = this.#insertJob.get(
      job.id,
      job.tokenId,
      job.name,
      JSON.stringify(job.options),
      job.webhookUrl,
      job.submitTime,
    ) as unknown as JobRow;
    this.#seqs.set(row.id, row.seq);
    return toJob(row);
  }

  appendRecords(jobId: string, firstIndex: number, queries: readonly string[]): void {
    const base = this.#requireSeq(jobId) * KEY_SPAN;
    if (firstIndex < 0 || firstIndex + queries.length > KEY_SPAN) {
      throw new RangeError(`record positions must stay below ${KEY_SPAN}`);
    }
    this.#transaction(() => {
      for (let i = 0; i < queries.length; i++) this.#insertRecord.run(base + firstIndex + i, queries[i]);
    });
  }

  publish(jobId: string, total: number): BulkJobRow {
    const row = this.#db
      .prepare(
        `UPDATE bulk_jobs SET state = 'NOT_STARTED', total = ? WHERE id = ? AND state = 'SUBMITTING'
         RETURNING ${JOB_COLUMNS}`,
      )
      .get(total, jobId) as JobRow | undefined;
    if (!row) throw new Error(`bulk job ${jobId} is not being submitted`);
    return toJob(row);
  }

  get(jobId: string): BulkJobRow | undefined {
    const row = this.#byId.get(jobId) as JobRow | undefined;
    if (!row || HIDDEN.includes(row.state)) return undefined;
    return toJob(row);
  }

  listForToken(tokenId: string): BulkJobRow[] {
    const rows = this.#db
      .prepare(
        `SELECT ${JOB_COLUMNS} FROM bulk_jobs WHERE token_id = ? AND state NOT IN ('SUBMITTING', 'DELETING')
         ORDER BY seq DESC`,
      )
      .all(tokenId) as unknown as JobRow[];
    return rows.map(toJob);
  }

  listByState(states: readonly BulkJobState[]): BulkJobRow[] {
    if (states.length === 0) return [];
    const rows = this.#db
      .prepare(
        `SELECT ${JOB_COLUMNS} FROM bulk_jobs WHERE state IN (${states.map(() => '?').join(', ')}) ORDER BY seq`,
      )
      .all(...states) as unknown as JobRow[];
    return rows.map(toJob);
  }

  listFinishedBefore(before: number, limit: number): BulkJobRow[] {
    const rows = this.#db
      .prepare(
        `SELECT ${JOB_COLUMNS} FROM bulk_jobs
         WHERE completed_time IS NOT NULL AND completed_time < ? AND state NOT IN ('SUBMITTING', 'DELETING')
         ORDER BY completed_time LIMIT ?`,
      )
      .all(before, limit) as unknown as JobRow[];
    return rows.map(toJob);
  }

  replaceWebhook(jobId: string, from: BulkWebhookState, to: BulkWebhookState): boolean {
    const result = this.#db
      .prepare('UPDATE bulk_jobs SET webhook = ? WHERE id = ? AND webhook = ?')
      .run(JSON.stringify(to), jobId, JSON.stringify(from));
    return Number(result.changes) === 1;
  }

  update(jobId: string, patch: BulkJobPatch, ifState?: readonly BulkJobState[]): BulkJobRow | undefined {
    const assigned = jobPatchColumns(patch);
    const sets = assigned.map(([column]) => `${column} = ?`);
    const values = assigned.map(([, value]) => value);
    if (ifState?.length === 0) return undefined;
    if (sets.length === 0) {
      const row = this.#byId.get(jobId) as JobRow | undefined;
      return row && (!ifState || ifState.includes(row.state)) ? toJob(row) : undefined;
    }
    const condition = ifState ? ` AND state IN (${ifState.map(() => '?').join(', ')})` : '';
    const row = this.#db
      .prepare(`UPDATE bulk_jobs SET ${sets.join(', ')} WHERE id = ?${condition} RETURNING ${JOB_COLUMNS}`)
      .get(...values, jobId, ...(ifState ?? [])) as JobRow | undefined;
    return row ? toJob(row) : undefined;
  }

  lockRunning(jobId: string): BulkJobRow | undefined {
    // Inside a transaction the connection holds the store's write lock: nothing else changes it.
    const job = this.get(jobId);
    return job && (job.state === 'NOT_STARTED' || job.state === 'IN_PROCESS') ? job : undefined;
  }

  pendingRecords(jobId: string, fromIndex: number, limit: number): BulkRecord[] {
    const seq = this.#seq(jobId);
    if (seq === undefined) return [];
    const base = seq * KEY_SPAN;
    const rows = this.#pending.all(base + Math.max(0, fromIndex), base + KEY_SPAN, limit) as unknown as [
      number,
      string,
    ][];
    return rows.map(([key, query]) => ({ index: key - base, query }));
  }

  saveResults(jobId: string, results: readonly BulkResult[]): void {
    if (results.length === 0) return;
    const seq = this.#requireSeq(jobId);
    const base = seq * KEY_SPAN;
    this.#transaction(() => {
      for (const result of results) {
        this.#insertResult.run(
          base + result.index,
          result.hits,
          result.failed ? 1 : 0,
          result.response,
          result.summary ?? null,
        );
        this.#insertSearchInfo.run(base + result.index, result.searchInfo);
      }
      this.#addCounters.run(...resultCounters(results), seq);
    });
  }

  result(jobId: string, index: number): BulkResult | undefined {
    const seq = this.#seq(jobId);
    if (seq === undefined || !Number.isInteger(index) || index < 0 || index >= KEY_SPAN) return undefined;
    const row = this.#resultAt.get(seq * KEY_SPAN + index) as unknown as
      | [number, number, number, string, string]
      | undefined;
    return row
      ? { index, hits: row[1], failed: row[2] === 1, response: row[3], searchInfo: row[4] }
      : undefined;
  }

  results(
    jobId: string,
    fromIndex: number,
    limit: number,
    options: { searchInfo?: boolean; summary?: boolean } = {},
  ): BulkResult[] {
    const seq = this.#seq(jobId);
    if (seq === undefined) return [];
    const base = seq * KEY_SPAN;
    if (options.summary) return this.#summaries(base, fromIndex, limit);
    const statement = options.searchInfo === false ? this.#responsesFrom : this.#resultsFrom;
    const rows = statement.all(base + Math.max(0, fromIndex), base + KEY_SPAN, limit) as unknown as [
      number,
      number,
      number,
      string,
      string,
    ][];
    return rows.map(([key, hits, failed, response, searchInfo]) => ({
      index: key - base,
      hits,
      failed: failed === 1,
      response,
      searchInfo,
    }));
  }

  #summaries(base: number, fromIndex: number, limit: number): BulkResult[] {
    const rows = this.#summariesFrom.all(
      base + Math.max(0, fromIndex),
      base + KEY_SPAN,
      limit,
    ) as unknown as [number, number, number, string, string | null][];
    // Two literals rather than a spread of `{ summary }`: no object made and copied per row.
    return rows.map(([key, hits, failed, response, summary]) =>
      summary === null
        ? { index: key - base, hits, failed: failed === 1, response, searchInfo: '' }
        : { index: key - base, hits, failed: failed === 1, response, searchInfo: '', summary },
    );
  }

  purge(jobId: string, limit: number): boolean {
    const seq = this.#seq(jobId);
    if (seq === undefined) return true;
    const base = seq * KEY_SPAN;
    return this.#transaction(() => {
      const results = Number(this.#purgeResults.run(base, base + KEY_SPAN, limit).changes);
      const searchInfos = Number(this.#purgeSearchInfo.run(base, base + KEY_SPAN, limit).changes);
      const records = Number(this.#purgeRecords.run(base, base + KEY_SPAN, limit).changes);
      if (results > 0 || searchInfos > 0 || records > 0) return false;
      this.#db.prepare('DELETE FROM bulk_reports WHERE job_seq = ?').run(seq);
      this.#db.prepare('DELETE FROM bulk_jobs WHERE seq = ?').run(seq);
      this.#seqs.delete(jobId);
      return true;
    });
  }

  addReport(report: NewBulkReport): BulkReportRow {
    const seq = this.#requireSeq(report.jobId);
    this.#insertReport.run(
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
      report.createdAt,
    );
    // The report of that key, whoever added it.
    return this.reportByKey(report.jobId, report.key)!;
  }

  updateReport(reportId: string, patch: BulkReportPatch): BulkReportRow | undefined {
    const assigned = reportPatchColumns(patch);
    const sets = assigned.map(([column]) => `${column} = ?`);
    const values = assigned.map(([, value]) => value);
    if (sets.length > 0) {
      this.#db.prepare(`UPDATE bulk_reports SET ${sets.join(', ')} WHERE id = ?`).run(...values, reportId);
    }
    const row = this.#db
      .prepare(
        `SELECT ${REPORT_COLUMNS} FROM bulk_reports r JOIN bulk_jobs j ON j.seq = r.job_seq WHERE r.id = ?`,
      )
      .get(reportId) as ReportRow | undefined;
    return row ? toReport(row) : undefined;
  }

  reports(jobId: string): BulkReportRow[] {
    return (this.#reportsOf.all(jobId) as unknown as ReportRow[]).map(toReport);
  }

  report(jobId: string, reportId: string): BulkReportRow | undefined {
    const row = this.#reportById.get(jobId, reportId) as ReportRow | undefined;
    return row ? toReport(row) : undefined;
  }

  reportByKey(jobId: string, key: string): BulkReportRow | undefined {
    const row = this.#reportByKey.get(jobId, key) as ReportRow | undefined;
    return row ? toReport(row) : undefined;
  }
}

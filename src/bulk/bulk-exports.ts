import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import {
  InsufficientStorageError,
  InvalidParameterError,
  isDiskFull,
  NotFoundError,
  ReportNotReadyError,
} from '../errors.ts';
import {
  COVERAGE_CONTENT_TYPES,
  contentDisposition,
  createExportPlan,
  EXPORT_FORMATS,
  type ExportOptions,
  type ExportPlan,
  type ExportSettings,
  exportWindow,
  sanitizeExportFileName,
} from '../export/index.ts';
import type { Logger } from '../logging.ts';
import type { BulkJobRow, BulkJobStore, BulkReportRow, StoreLocator } from '../storage/index.ts';
import type { BulkService } from './bulk-service.ts';
import { type CoverageFiles, mergeCoverageParts } from './coverage-merge.ts';
import type { ExportTask, ExportTaskResult } from './export-task.ts';
import { isReportId, newReportId } from './ids.ts';
import { isFinal } from './job-record.ts';

/** A download ready to send. */
export interface DownloadAnswer {
  /** 200, or 201 for a stopped job: it downloads what it has (docs/api.md#downloads). */
  readonly status: 200 | 201;
  readonly body: Readable;
  readonly contentType: string;
  readonly contentLength?: number;
  /** Set when the request named an `exportfile`. */
  readonly contentDisposition?: string;
  /** The coverage report of this export (`X-Diffbot-ReportId`). */
  readonly reportId: string;
}

/** A coverage report ready to send. */
export interface ReportAnswer {
  readonly body: Readable;
  readonly contentType: string;
}

export interface BulkExportsDeps {
  readonly service: BulkService;
  readonly store: BulkJobStore;
  /** The store, read by export threads. */
  readonly storeLocator: StoreLocator;
  /** Where export files and reports are kept (`<dataDir>/bulk-exports`). */
  readonly directory: string;
  readonly logger: Logger;
  /** csv/jsonl exports of at least this many records are written by two threads (default 20,000). */
  readonly splitMinRecords?: number;
  /** Records per row file handed between the two threads of a spreadsheet export (tests). */
  readonly rowsChunkRecords?: number;
  /** Exports generated at once; more wait their turn (default 2). */
  readonly concurrency?: number;
  /**
   * Nice value of threads writing a requested export (default 2: someone waits for it, yet the
   * main thread serving requests comes first). Completion reports, which nobody waits for, run
   * at 10, so on a busy machine a download overtakes them.
   */
  readonly niceness?: number;
  readonly now?: () => number;
}

/** The download parameters (docs/api.md#downloads) that are not export-library options. */
const DEFAULT_WAIT_SECONDS = 120;
/** Longest accepted `wait`: a request should not hang on for more than 10 minutes. */
const MAX_WAIT_SECONDS = 600;

interface Generation {
  readonly jobId: string;
  /** Everything is written (or failed). */
  readonly done: Promise<void>;
  /** True when it writes the export file too (not only the report). */
  readonly withExport: boolean;
  readonly workers: Set<Worker>;
  /**
   * Resolves when a download may be answered: the generation has ended (written, failed,
   * stopped), or a split export is written and only its report's parts are left to merge.
   */
  readonly exportDone: Promise<void>;
  /** Resolves `exportDone`. */
  readonly exported: () => void;
  /** A split export is written; its report's parts are being merged (`report` waits for them). */
  exportWritten: boolean;
  cancelled: boolean;
  /** A completion report nobody waits for: it yields to downloads (see `#preemptBackground`). */
  background?: { readonly job: BulkJobRow };
}

/** What one generation writes, and the thread tasks that write it (`#plan`). */
interface GenerationPlan {
  readonly job: BulkJobRow;
  readonly report: BulkReportRow;
  readonly withExport: boolean;
  /** False when an equal report was reused: no thread writes the coverage report. */
  readonly withReport: boolean;
  readonly exportPlan: ExportPlan;
  readonly paths: { readonly csv: string; readonly json: string };
  /** The export file. */
  readonly target: string;
  /** Written by two threads. */
  readonly split: boolean;
  /** A spreadsheet: one thread writes the file, appending the rows the other prepared. */
  readonly assembled: boolean;
  readonly reportTask: ExportTask;
  readonly exportTasks: readonly ExportTask[];
  readonly reportParts: readonly CoverageFiles[];
}

/** Formats whose export can be written in parts and concatenated. */
const SPLIT_FORMATS = new Set(['csv', 'jsonl']);
/**
 * Formats split as one file written by one thread, which appends the rows another thread
 * prepared (reading and shaping records is most of the work: ~75% of a 200,000-record xlsx).
 */
const ASSEMBLED_FORMATS = new Set(['xlsx', 'xls']);
/** The records the writing thread of a spreadsheet prepares itself: it also encodes them all. */
const ASSEMBLER_SHARE = 0.4;
/** Below this many records one thread is quicker than starting two and concatenating. */
const SPLIT_MIN_RECORDS = 20_000;

/**
 * Downloads and coverage reports of bulk jobs. Every export is materialised once, by a worker
 * thread, to a file under the data directory together with its coverage report; requests then
 * stream the file. One report per job and distinct export parameters (the plan's key plus the
 * `from`/`size`/`head` window); the job's first report is made when it reaches a final state.
 */
export class BulkExports {
  readonly #deps: BulkExportsDeps;
  readonly #now: () => number;
  /** Running generations by report id. */
  readonly #running = new Map<string, Generation>();
  readonly #queue: (() => void)[] = [];
  /** Completion reports put off while downloads are generated, by report id. */
  readonly #deferred = new Map<string, BulkJobRow>();
  #active = 0;
  #closed = false;

  constructor(deps: BulkExportsDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    deps.service.onFinal((job) => this.#completionReport(job));
    deps.service.onDelete((jobId) => this.#removeJob(jobId));
  }

  /**
   * Regenerates what a stop or crash interrupted: reports (and exports) still in process, and
   * the completion report of final jobs that have none.
   */
  async resume(): Promise<void> {
    const { store } = this.#deps;
    for (const job of await store.listByState(['COMPLETE', 'COMPLETE_WITH_FAILURES', 'STOPPED'])) {
      const reports = await store.reports(job.id);
      if (reports.length === 0) await this.#completionReport(job);
      for (const report of reports) {
        if (report.exportStatus === 'IN_PROCESS') this.#generate(job, report, true);
        else if (report.status === 'IN_PROCESS') this.#startBackground(job, report);
      }
    }
  }

  /** Waits for generations to finish (tests), without starting new ones. */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()].map((g) => g.done));
  }

  /** Stops export threads; interrupted exports are generated again at the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const generation of this.#running.values()) {
      generation.cancelled = true;
      await Promise.all([...generation.workers].map((worker) => worker.terminate()));
    }
    for (const start of this.#queue.splice(0)) start();
  }

  /**
   * `GET`/`POST /kg/v3/enhance/bulk/{id}`: the export the parameters describe. 201 while the job
   * runs (a stopped job downloads what it has) and while the export is still being written after
   * `wait` seconds (`wait=0` only starts it).
   */
  async download(
    tokenId: string,
    jobId: string,
    params: Readonly<Record<string, unknown>>,
  ): Promise<DownloadAnswer> {
    const { service, store } = this.#deps;
    const job = await service.job(tokenId, jobId);
    const options = exportOptions(params);
    const plan = createExportPlan(options);
    const window = exportWindow({
      head: scalar(params, 'head') as string | undefined,
      from: scalar(params, 'from') as string | undefined,
      size: scalar(params, 'size') as string | undefined,
    });
    const wait = waitSeconds(params.wait);
    if (!isFinal(job.state)) throw await service.notReady(job, `Bulkjob [${job.id}] is still in process`);

    const key = JSON.stringify([plan.key, window.offset, window.limit ?? null]);
    let report = await store.reportByKey(job.id, key);
    if (!report) {
      report = await store.addReport({
        id: newReportId(),
        jobId: job.id,
        key,
        format: plan.format,
        spec: plan.settings.exportspec ?? '',
        exportFile: options.exportfile ?? '',
        separator: plan.separator,
        filter: [plan.settings.filter, plan.settings.filterExclude].filter(Boolean).join(' | '),
        status: 'IN_PROCESS',
        exportStatus: 'IN_PROCESS',
        createdAt: this.#now(),
      });
    }
    const file = this.#exportPath(job.id, report, plan);
    if (report.exportStatus !== 'COMPLETE' || !fs.existsSync(file)) {
      const generation = this.#exportGeneration(job, report);
      if (wait > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          // Clients fetch the report right after the download (X-Diffbot-ReportId): a report
          // still being merged then is waited for (`report`).
          generation.exportDone,
          new Promise((resolve) => {
            timer = setTimeout(resolve, wait * 1000);
          }),
        ]);
        clearTimeout(timer);
      }
      report = await store.report(job.id, report.id);
      if (report?.exportStatus !== 'COMPLETE') {
        if (report?.exportStatus === 'ERROR_FINALIZING') throw generationFailure(report, 'export');
        throw await service.notReady(
          job,
          wait === 0
            ? `The export of bulkjob [${job.id}] has started; ask again later`
            : `The export of bulkjob [${job.id}] is still in process; ask again later`,
        );
      }
    }
    const exportfile = options.exportfile;
    return {
      status: job.state === 'STOPPED' ? 201 : 200,
      body: fs.createReadStream(file),
      contentType: EXPORT_FORMATS[plan.format].contentType,
      contentLength: fs.statSync(file).size,
      ...(exportfile !== undefined && exportfile.trim() !== ''
        ? { contentDisposition: contentDisposition(sanitizeExportFileName(exportfile, plan.format)) }
        : {}),
      reportId: report.id,
    };
  }

  /**
   * `GET /kg/v3/enhance/bulk/report/{id}/{reportId}`: the CSV form whatever the `Accept` header
   * says, the JSON form with `format=json` (docs/api.md#coverage-reports). 400 while generating,
   * 404 unknown.
   */
  async report(tokenId: string, jobId: string, reportId: string, format: unknown): Promise<ReportAnswer> {
    const job = await this.#deps.service.job(tokenId, jobId);
    let report = isReportId(reportId) ? await this.#deps.store.report(job.id, reportId) : undefined;
    if (!report) throw new NotFoundError(`Report [${reportId}] of bulkjob [${job.id}] not found`);
    const generation = this.#running.get(report.id);
    if (report.status === 'IN_PROCESS' && generation?.exportWritten) {
      // Its download is answered and its parts are being merged: a copy, soon done.
      await generation.done;
      report = (await this.#deps.store.report(job.id, report.id)) ?? report;
    }
    if (report.status === 'IN_PROCESS' || report.status === 'NOT_STARTED') {
      throw new ReportNotReadyError(`Report [${report.id}] is still being generated`);
    }
    if (report.status !== 'COMPLETE') throw generationFailure(report, 'report');
    const json = typeof format === 'string' && format.trim().toLowerCase() === 'json';
    if (format !== undefined && !json && !(typeof format === 'string' && /^\s*(csv)?\s*$/i.test(format))) {
      throw new InvalidParameterError(
        'format',
        "Invalid parameter 'format': a report is csv (default) or json",
      );
    }
    const paths = this.#reportPaths(job.id, report);
    return {
      body: fs.createReadStream(json ? paths.json : paths.csv),
      contentType: json ? COVERAGE_CONTENT_TYPES.json : COVERAGE_CONTENT_TYPES.csv,
    };
  }

  /**
   * The generation that writes `report`'s export file: the running one if it does, else a new
   * one — after a running report-only generation of the same report (the completion report)
   * has finished, since both write the report files.
   */
  #exportGeneration(job: BulkJobRow, report: BulkReportRow): { exportDone: Promise<void> } {
    // This generation writes the report too: a completion report of the same key is not redone.
    this.#deferred.delete(report.id);
    this.#preemptBackground(report.id);
    const running = this.#running.get(report.id);
    if (running?.withExport) return running;
    if (!running) return this.#generate(job, report, true);
    return {
      exportDone: running.done.then(async () => {
        const fresh = await this.#deps.store.report(job.id, report.id);
        if (!fresh || this.#closed || (fresh.exportStatus === 'COMPLETE' && !this.#running.has(report.id)))
          return;
        return this.#exportGeneration(job, fresh).exportDone;
      }),
    };
  }

  /** The job's first report: default columns over all records, without an export file. */
  async #completionReport(job: BulkJobRow): Promise<void> {
    if (this.#closed) return;
    const plan = createExportPlan({});
    const key = JSON.stringify([plan.key, 0, null]);
    if (await this.#deps.store.reportByKey(job.id, key)) return;
    const id = newReportId();
    const report = await this.#deps.store.addReport({
      id,
      jobId: job.id,
      key,
      format: plan.format,
      spec: '',
      exportFile: '',
      separator: plan.separator,
      filter: '',
      status: 'IN_PROCESS',
      exportStatus: 'NOT_STARTED',
      createdAt: this.#now(),
    });
    // A download of the same key added it first: that download writes it.
    if (report.id !== id) return;
    this.#startBackground(job, report);
  }

  /**
   * Starts a completion report, or puts it off while a download is being generated: someone
   * waits for the download, nobody for the report (measured: a completion report running beside
   * a 200,000-row xlsx download took a third of the cores and ~1.5 s of its time).
   */
  #startBackground(job: BulkJobRow, report: BulkReportRow): void {
    if (this.#closed) return;
    if ([...this.#running.values()].some((g) => g.withExport && !g.cancelled)) {
      this.#deferred.set(report.id, job);
      return;
    }
    this.#generate(job, report, false).background = { job };
  }

  /**
   * Stops the running completion reports; they start again once no download is generated,
   * except the one of `replacedBy` (a download of the same key, which writes that report).
   */
  #preemptBackground(replacedBy: string): void {
    for (const [reportId, generation] of this.#running) {
      if (!generation.background || generation.cancelled) continue;
      generation.cancelled = true;
      for (const worker of generation.workers) void worker.terminate();
      if (reportId !== replacedBy) this.#deferred.set(reportId, generation.background.job);
    }
  }

  /** Starts the completion reports put off, once no download is being generated. */
  #resumeDeferred(): void {
    if (this.#closed || [...this.#running.values()].some((g) => g.withExport && !g.cancelled)) return;
    for (const [reportId, job] of [...this.#deferred]) {
      this.#deferred.delete(reportId);
      if (this.#running.has(reportId)) continue;
      void this.#deps.store.report(job.id, reportId).then(
        (report) => {
          if (report && report.status !== 'COMPLETE' && !this.#running.has(reportId))
            this.#startBackground(job, report);
        },
        (error: unknown) =>
          this.#deps.logger.error({ err: error, jobId: job.id }, 'bulk report could not be read'),
      );
    }
  }

  /**
   * Writes a report and, with `withExport`, its export file, in worker threads: the coverage
   * report in one, the export in another — or, for csv and jsonl exports of many records, in two
   * (each half of the records), concatenated after. On two cores this roughly halves the time
   * a download waits.
   */
  #generate(job: BulkJobRow, report: BulkReportRow, withExport: boolean): Generation {
    const { promise: exportDone, resolve: exported } = Promise.withResolvers<void>();
    const generation: Generation = {
      jobId: job.id,
      done: Promise.resolve(),
      withExport,
      workers: new Set(),
      exportDone,
      exported,
      exportWritten: false,
      cancelled: false,
    };
    const slot = this.#slot();
    const done = this.#write(job, report, generation, slot).then(
      () => undefined,
      (error: unknown) => {
        if (generation.cancelled || this.#closed) return;
        this.#deps.logger.error({ err: error, jobId: job.id, reportId: report.id }, 'bulk export failed');
      },
    );
    Object.assign(generation, {
      done: done.finally(async () => {
        // A download of the same report may have replaced a preempted completion report.
        if (this.#running.get(report.id) === generation) this.#running.delete(report.id);
        if (!generation.cancelled && !this.#closed) {
          await this.#removeLeftovers(job.id, report.id).catch((error: unknown) =>
            this.#deps.logger.error({ err: error, jobId: job.id }, 'removing a failed export failed'),
          );
        }
        this.#active--;
        this.#queue.shift()?.();
        this.#resumeDeferred();
      }),
    });
    // Unless the export was written: then a failure's files are gone first (`#removeLeftovers`).
    generation.done.then(exported, exported);
    this.#running.set(report.id, generation);
    return generation;
  }

  /**
   * The work of `#generate`, once `slot` (its turn) has come: planning (`#plan`), the report's
   * own thread (`#runReport`), the export threads (`#runExport`) and joining what they wrote
   * (`#finishExport`), each apart.
   */
  async #write(
    job: BulkJobRow,
    report: BulkReportRow,
    generation: Generation,
    slot: Promise<void>,
  ): Promise<void> {
    const plan = await this.#plan(job, report, generation.withExport);
    const stopped = () => generation.cancelled || this.#closed;
    const started = slot.then(() => performance.now());
    const reportDone = slot.then(() => this.#runReport(plan, generation, stopped, started));
    const exportDone = slot
      .then(() => (stopped() ? [] : this.#runExport(plan, generation)))
      .then((results) => {
        if (!plan.withExport || stopped() || results.some((r) => r === undefined)) return;
        return this.#finishExport(plan, generation, results as ExportTaskResult[], started);
      })
      .catch(async (error: Error) => {
        if (stopped()) return;
        this.#deps.logger.error({ err: error, jobId: job.id, reportId: report.id }, 'bulk export failed');
        await this.#deps.store.updateReport(report.id, {
          exportStatus: 'ERROR_FINALIZING',
          error: error.message.slice(0, 1000),
        });
      });
    await Promise.all([reportDone, exportDone]);
  }

  /**
   * What a generation writes and with which threads. Reuses an equal report already written
   * (this one, or one of an export of the same columns in another format, e.g. the completion
   * report of a default CSV download): no coverage pass over the records (~10% of an export
   * thread's work). Marks the report in process.
   */
  async #plan(job: BulkJobRow, report: BulkReportRow, withExport: boolean): Promise<GenerationPlan> {
    const equal = await this.#equalReport(job.id, report);
    if (equal !== undefined && equal.id !== report.id) this.#reuseReport(job.id, equal, report);
    const withReport = equal === undefined;
    await this.#deps.store.updateReport(report.id, {
      status: withReport ? 'IN_PROCESS' : 'COMPLETE',
      ...(withExport ? { exportStatus: 'IN_PROCESS' as const } : {}),
      error: null,
    });
    const [planKey, offset, limit] = JSON.parse(report.key) as [string, number, number | null];
    const options = JSON.parse(planKey) as ExportOptions;
    const exportPlan = createExportPlan(options);
    const dir = this.#jobDir(job.id);
    fs.mkdirSync(dir, { recursive: true });
    const paths = this.#reportPaths(job.id, report);
    const base = { store: this.#deps.storeLocator, jobId: job.id, options, tempDir: dir };
    const exportNice = this.#deps.niceness ?? 2;
    const reportTask: ExportTask = {
      ...base,
      offset,
      limit,
      exportPath: null,
      reportCsvPath: paths.csv,
      reportJsonPath: paths.json,
      niceness: withExport ? exportNice : 10,
    };
    const target = this.#exportPath(job.id, report, exportPlan);
    const end = limit === null ? job.total : Math.min(job.total, offset + limit);
    const count = Math.max(0, end - offset);
    const assembled = ASSEMBLED_FORMATS.has(exportPlan.format);
    const split =
      withExport &&
      (SPLIT_FORMATS.has(exportPlan.format) || assembled) &&
      count >= (this.#deps.splitMinRecords ?? SPLIT_MIN_RECORDS);
    const { exportTasks, reportParts } = withExport
      ? this.#exportTasks(
          { ...base, niceness: exportNice },
          { offset, limit, end, count, target, paths, split, assembled, withReport },
        )
      : { exportTasks: [], reportParts: [] };
    return {
      job,
      report,
      withExport,
      withReport,
      exportPlan,
      paths,
      target,
      split,
      assembled,
      reportTask,
      exportTasks,
      reportParts,
    };
  }

  /**
   * The export thread tasks: one over the window, or two over its halves (a spreadsheet: the
   * writer's share smaller), each also writing its part of the coverage report.
   */
  #exportTasks(
    base: Omit<ExportTask, 'offset' | 'limit' | 'exportPath' | 'reportCsvPath' | 'reportJsonPath'>,
    window: {
      offset: number;
      limit: number | null;
      end: number;
      count: number;
      target: string;
      paths: { csv: string; json: string };
      split: boolean;
      assembled: boolean;
      withReport: boolean;
    },
  ): { exportTasks: ExportTask[]; reportParts: CoverageFiles[] } {
    const { offset, limit, end, count, target, paths, split, assembled, withReport } = window;
    const exportTasks: ExportTask[] = [];
    const reportParts: CoverageFiles[] = [];
    const only = { ...base, reportCsvPath: null, reportJsonPath: null };
    if (!split) {
      exportTasks.push({ ...only, offset, limit, exportPath: target });
      return { exportTasks, reportParts };
    }
    // Each part writes its export part and its coverage part: no third pass over the records.
    // Spreadsheets: the first thread writes the file from its share of the records, then
    // appends the rows the second prepared meanwhile (its share is smaller to make up).
    const middle = offset + Math.ceil(count * (assembled ? ASSEMBLER_SHARE : 0.5));
    const halves: [number, number][] = [
      [offset, middle - offset],
      [middle, end - middle],
    ];
    halves.forEach(([from, size], i) => {
      const part = { csv: `${paths.csv}.${i + 1}`, json: `${paths.json}.${i + 1}` };
      if (withReport) reportParts.push(part);
      exportTasks.push({
        ...only,
        offset: from,
        limit: size,
        exportPath: !assembled ? `${target}.${i + 1}` : i === 0 ? target : `${target}.rows`,
        reportCsvPath: withReport ? part.csv : null,
        reportJsonPath: withReport ? part.json : null,
        reportRowsOnly: withReport,
        ...(assembled && i === 0 ? { appendRows: true } : {}),
        ...(assembled && i === 1
          ? {
              rowsOnly: true,
              ...(this.#deps.rowsChunkRecords ? { rowsChunkRecords: this.#deps.rowsChunkRecords } : {}),
            }
          : {}),
      });
    });
    return { exportTasks, reportParts };
  }

  /** The coverage report's own thread, when the export threads do not write it. */
  async #runReport(
    plan: GenerationPlan,
    generation: Generation,
    stopped: () => boolean,
    started: Promise<number>,
  ): Promise<void> {
    const { job, report } = plan;
    const { logger, store } = this.#deps;
    let result: ExportTaskResult | undefined;
    try {
      if (stopped() || plan.split || !plan.withReport) return;
      result = await this.#runWorker(plan.reportTask, generation);
    } catch (error) {
      if (!stopped()) await this.#reportFailed(plan, error as Error);
      return;
    }
    if (result === undefined) return;
    // Parts of a split export's report a stop left unmerged (`#finishExport`) are obsolete now.
    for (const form of [plan.paths.csv, plan.paths.json])
      for (const part of [1, 2]) fs.rmSync(`${form}.${part}`, { force: true });
    const ms = Math.round(performance.now() - (await started));
    logger.info({ jobId: job.id, reportId: report.id, ...result, ms }, 'bulk coverage report written');
    await store.updateReport(report.id, { status: 'COMPLETE' });
  }

  /** Marks the report failed (written by its own thread, or merged from the export threads' parts). */
  async #reportFailed({ job, report }: GenerationPlan, error: Error): Promise<void> {
    this.#deps.logger.error(
      { err: error, jobId: job.id, reportId: report.id },
      'bulk coverage report failed',
    );
    await this.#deps.store.updateReport(report.id, {
      status: 'ERROR_FINALIZING',
      error: error.message.slice(0, 1000),
    });
  }

  /**
   * The export threads. A spreadsheet's writer appends the other part's row files as they are
   * announced, is told when they are all written, and is stopped with the generation when they
   * fail.
   */
  #runExport(plan: GenerationPlan, generation: Generation): Promise<(ExportTaskResult | undefined)[]> {
    const tasks = plan.exportTasks;
    if (!(plan.split && plan.assembled)) {
      return Promise.all(tasks.map((task) => this.#runWorker(task, generation)));
    }
    let writer: Worker | undefined;
    const writing = this.#runWorker(tasks[0], generation, (worker) => {
      writer = worker;
    });
    const preparing = this.#runWorker(tasks[1], generation, undefined, (message) =>
      writer?.postMessage(message),
    ).then(
      (result) => {
        writer?.postMessage({ rowsComplete: true });
        return result;
      },
      (error: Error) => {
        void writer?.terminate();
        throw error;
      },
    );
    return Promise.all([writing, preparing]);
  }

  /**
   * Joins what the export threads wrote and marks the export complete (`exported`: a download
   * may be answered), then merges the report's parts and marks it complete. A download streams
   * while the merge runs, and a request for the report waits for it (`report`): on a 1M-row CSV
   * the merge is ~0.3 s of copying (bench/NOTES.md). Started with the join, it slowed the join.
   */
  async #finishExport(
    plan: GenerationPlan,
    generation: Generation,
    done: ExportTaskResult[],
    started: Promise<number>,
  ): Promise<void> {
    const { job, report, split, assembled } = plan;
    const { logger, store } = this.#deps;
    const bytes =
      split && !assembled
        ? await concatenateParts(
            plan.target,
            plan.exportTasks.map((task) => task.exportPath!),
            plan.exportPlan.format === 'csv',
          )
        : done[0].bytes;
    // A spreadsheet's writer counts the rows it appended from the other thread too.
    const rows = split && assembled ? done[0].rows : done.reduce((sum, r) => sum + r.rows, 0);
    const ms = Math.round(performance.now() - (await started));
    const format = plan.exportPlan.format;
    logger.info(
      { jobId: job.id, reportId: report.id, format, threads: done.length, rows, bytes, ms },
      'bulk export written',
    );
    await store.updateReport(report.id, { exportStatus: 'COMPLETE', exportBytes: bytes });
    // Unsplit, the report's own thread may still be at the records: the download waits for it.
    if (!(split && plan.withReport)) return;
    generation.exportWritten = true;
    generation.exported();
    try {
      await mergeCoverageParts(
        plan.reportParts.map((files, i) => ({ files, counts: done[i].coverage! })),
        plan.exportPlan.headers,
        plan.paths,
      );
    } catch (error) {
      await this.#reportFailed(plan, error as Error);
      return;
    }
    await store.updateReport(report.id, { status: 'COMPLETE' });
  }

  /**
   * After a failed generation (a full disk, most often): the files it left — the export and its
   * parts, `.part` files, a failed report's files, and the threads' spill directories when no
   * other generation of the job runs — are deleted, so a failure does not keep the disk full.
   */
  async #removeLeftovers(jobId: string, reportId: string): Promise<void> {
    const report = await this.#deps.store.report(jobId, reportId);
    const exportFailed = report?.exportStatus === 'ERROR_FINALIZING';
    const reportFailed = report?.status === 'ERROR_FINALIZING';
    if (!report || !(exportFailed || reportFailed)) return;
    const dir = this.#jobDir(jobId);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    const othersRunning = [...this.#running.values()].some((g) => g.jobId === jobId);
    for (const name of names) {
      // The report's files, their `.part` and the parts' rows (`.coverage.csv.1`).
      const coverage = /\.coverage\.(csv|json)(\.part|\.\d+)?$/.test(name);
      const ours = name.startsWith(`${reportId}.`);
      const remove =
        (ours && coverage && report.status !== 'COMPLETE') ||
        (ours && !coverage && exportFailed) ||
        (!othersRunning && /^quarry-(coverage|xls)-/.test(name));
      if (remove) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    }
  }

  /** Resolves when a generation may start (at most `concurrency` at once). */
  #slot(): Promise<void> {
    if (this.#active < (this.#deps.concurrency ?? 2)) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.#queue.push(() => {
        this.#active++;
        resolve();
      }),
    );
  }

  #runWorker(
    task: ExportTask,
    generation: Generation,
    started?: (worker: Worker) => void,
    progress?: (message: { rowsChunk: string }) => void,
  ): Promise<ExportTaskResult | undefined> {
    return new Promise((resolve, reject) => {
      // Node's compile cache is on for every thread (src/main.ts): start-up is ~25 ms, not ~150.
      const worker = new Worker(new URL('./export-worker.ts', import.meta.url), { workerData: task });
      started?.(worker);
      generation.workers.add(worker);
      let settled = false;
      worker.on(
        'message',
        (
          message:
            | { ok: true; result: ExportTaskResult }
            | { ok: false; error: string }
            | { ok?: undefined; rowsChunk: string },
        ) => {
          if (message.ok === undefined) {
            progress?.(message);
            return;
          }
          settled = true;
          if (message.ok) resolve(message.result);
          else reject(new Error(message.error));
        },
      );
      worker.on('error', (error) => {
        settled = true;
        reject(error);
      });
      worker.on('exit', (code) => {
        generation.workers.delete(worker);
        if (settled) return;
        if (generation.cancelled) resolve(undefined);
        else reject(new Error(`export thread exited with code ${code}`));
      });
    });
  }

  async #removeJob(jobId: string): Promise<void> {
    for (const report of await this.#deps.store.reports(jobId)) {
      const generation = this.#running.get(report.id);
      if (generation) {
        generation.cancelled = true;
        for (const worker of generation.workers) void worker.terminate();
      }
    }
    const dir = this.#jobDir(jobId);
    // After the threads are gone (terminate is asynchronous), the files go.
    setTimeout(() => fs.rmSync(dir, { recursive: true, force: true }), 100).unref();
  }

  #jobDir(jobId: string): string {
    return path.join(this.#deps.directory, jobId);
  }

  #exportPath(jobId: string, report: BulkReportRow, plan: ExportPlan): string {
    return path.join(this.#jobDir(jobId), `${report.id}.${EXPORT_FORMATS[plan.format].extension}`);
  }

  /**
   * A report of the job equal to `report` whose files are written (`report` itself first), or
   * `undefined`. Final jobs do not change, so reports of equal `coverageIdentity` are equal.
   */
  async #equalReport(jobId: string, report: BulkReportRow): Promise<BulkReportRow | undefined> {
    const identity = coverageIdentity(report.key);
    const reports = (await this.#deps.store.reports(jobId)).sort(
      (a, b) => Number(b.id === report.id) - Number(a.id === report.id),
    );
    return reports.find((other) => {
      if (other.status !== 'COMPLETE' || coverageIdentity(other.key) !== identity) return false;
      const paths = this.#reportPaths(jobId, other);
      return fs.existsSync(paths.csv) && fs.existsSync(paths.json);
    });
  }

  /**
   * Gives `report` the files of the equal report `from`: hard links (written files are never
   * changed in place, only replaced by rename), copies where links are not possible.
   */
  #reuseReport(jobId: string, from: BulkReportRow, report: BulkReportRow): void {
    const source = this.#reportPaths(jobId, from);
    const target = this.#reportPaths(jobId, report);
    for (const form of ['csv', 'json'] as const) {
      const part = `${target[form]}.part`;
      fs.rmSync(part, { force: true });
      try {
        fs.linkSync(source[form], part);
      } catch {
        fs.copyFileSync(source[form], part);
      }
      fs.renameSync(part, target[form]);
    }
  }

  #reportPaths(jobId: string, report: BulkReportRow): { csv: string; json: string } {
    const base = path.join(this.#jobDir(jobId), report.id);
    return { csv: `${base}.coverage.csv`, json: `${base}.coverage.json` };
  }
}

/**
 * What a coverage report of `reportKey` (`[plan key, offset, limit]`) depends on: the export's
 * columns, filter, `onlyMatches` and window, not its format nor its separator (a cell is empty
 * or not whatever joins its values). Equal identities give equal reports, byte for byte.
 */
function coverageIdentity(reportKey: string): string {
  const [planKey, offset, limit] = JSON.parse(reportKey) as [string, number, number | null];
  const { format: _format, exportseparator: _separator, ...columns } = JSON.parse(planKey) as ExportSettings;
  return JSON.stringify([columns, offset, limit]);
}

/** The error a download or report answers when its generation failed: 507 on a full disk. */
function generationFailure(report: BulkReportRow, what: 'export' | 'report'): Error {
  if (isDiskFull(report.error)) {
    return new InsufficientStorageError(
      `The server's disk is full: the ${what} could not be written. Ask again once space is freed.`,
    );
  }
  return new Error(`${what} ${report.id} failed: ${report.error}`);
}

function scalar(params: Readonly<Record<string, unknown>>, name: string): unknown {
  const value = params[name];
  if (Array.isArray(value)) {
    if (value.length > 1)
      throw new InvalidParameterError(name, `Invalid parameter '${name}': give it only once`);
    return value[0];
  }
  if (typeof value === 'number') return String(value);
  return value;
}

/** The export-library options of a download request, type-checked. */
function exportOptions(params: Readonly<Record<string, unknown>>): ExportOptions & { exportfile?: string } {
  const out: Record<string, string | boolean> = {};
  for (const name of [
    'format',
    'exportspec',
    'exportseparator',
    'exportquery',
    'filter',
    'filterExclude',
    'onlyMatches',
    'exportfile',
  ]) {
    const value = scalar(params, name);
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' && typeof value !== 'boolean') {
      throw new InvalidParameterError(name, `Invalid parameter '${name}': must be a string`);
    }
    out[name] = value;
  }
  const { exportfile, ...options } = out;
  return { ...(options as ExportOptions), ...(typeof exportfile === 'string' ? { exportfile } : {}) };
}

function waitSeconds(value: unknown): number {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw === null || raw === '') return DEFAULT_WAIT_SECONDS;
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : -1;
  if (!Number.isInteger(n) || n < 0) {
    throw new InvalidParameterError(
      'wait',
      "Invalid parameter 'wait': must be a whole number of seconds ≥ 0",
    );
  }
  return Math.min(n, MAX_WAIT_SECONDS);
}

/** Byte length of the first CSV record of `file`, its header (line breaks inside quotes skipped). */
async function csvHeaderBytes(file: string): Promise<number> {
  let inQuotes = false;
  let offset = 0;
  for await (const chunk of fs.createReadStream(file, {
    highWaterMark: 64 * 1024,
  }) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      // RFC 4180: a quote toggles quoting; an escaped quote ("") toggles twice.
      if (byte === 0x22) inQuotes = !inQuotes;
      else if (byte === 0x0a && !inQuotes) return offset + i + 1;
    }
    offset += chunk.length;
  }
  return offset;
}

/**
 * Joins export parts into `target`: the others appended to the first (dropping their repeated
 * CSV header), which is then renamed to `target`; the others are deleted. Appending rather than
 * copying every part into a new file halves the bytes a download waits for; a crash on the way
 * leaves no `target` (the export is generated again). Returns the size of the result.
 */
async function concatenateParts(target: string, parts: readonly string[], csv: boolean): Promise<number> {
  const [first, ...rest] = parts;
  const out = fs.createWriteStream(first, { flags: 'a' });
  for (const part of rest) {
    const start = csv ? await csvHeaderBytes(part) : 0;
    for await (const chunk of fs.createReadStream(part, { start, highWaterMark: 1024 * 1024 })) {
      if (!out.write(chunk)) await once(out, 'drain');
    }
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  fs.renameSync(first, target);
  for (const part of rest) fs.rmSync(part, { force: true });
  return fs.statSync(target).size;
}

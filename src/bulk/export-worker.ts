/**
 * Worker thread entry that materialises one export of a bulk job and its coverage report, so
 * that formatting a million rows never competes with the main thread serving requests. It reads
 * results through its own read-only connection, in input order, a page at a time (bounded
 * memory), and writes files under the data directory: first to `.part` files, renamed when
 * complete, so a crash never leaves a truncated file that looks finished.
 */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import {
  CoverageReport,
  createExportPlan,
  isColumnar,
  parseSummary,
  type ResultRecord,
  summaryServes,
  writeExport,
} from '../export/index.ts';
import { type BulkResult, openStorage, type Storage } from '../storage/index.ts';
// Not through threads/index.ts: that loads the vocabulary share and with it match/ and kg/,
// which an export thread never uses (thread start-up, bench/NOTES.md).
import { lowerThreadPriority } from '../threads/thread-priority.ts';
import type { ExportTask, ExportTaskResult } from './export-task.ts';
import { fullResponseText } from './result-text.ts';

const task = workerData as ExportTask;
/** Results read per store query. */
const PAGE = 1_000;

/**
 * What the task reads of each result: the whole text (json, jsonl), the response without
 * `searchInfo` (columnar formats never read it: half the parsing saved), or its summary where
 * one is stored, when the plan's columns read nothing else (`summaryServes`: a summary is ~0.2
 * KB to parse against ~1–3 KB).
 */
type Reading = 'whole' | 'response' | 'summary';

/**
 * The job's results in order, within the task's window, read as `reading` says: a page at a
 * time (`writeExport` takes pages: no asynchronous step per record).
 */
async function* records(
  storage: Storage,
  reading: Reading,
  start = task.offset,
  end = task.limit === null ? Number.POSITIVE_INFINITY : task.offset + task.limit,
): AsyncGenerator<ResultRecord[]> {
  let from = start;
  while (from < end) {
    const page = await storage.bulkJobs.results(task.jobId, from, Math.min(PAGE, end - from), {
      searchInfo: reading === 'whole',
      summary: reading === 'summary',
    });
    if (page.length === 0) return;
    const out: ResultRecord[] = [];
    for (const result of page) {
      if (result.index >= end) break;
      if (reading === 'whole') out.push(wholeRecord(result));
      else if (result.summary !== undefined) out.push(new SummaryRecord(result.index, result.summary));
      else out.push(columnarRecord(result));
    }
    if (out.length > 0) yield out;
    if (out.length < page.length) return;
    from = page[page.length - 1].index + 1;
  }
}

/** The query a response echoes (`{}` when it has none). */
function queryOf(response: ResultRecord['response']): Record<string, unknown> {
  const query = response.request_ctx?.query;
  return query !== null && typeof query === 'object' ? (query as Record<string, unknown>) : {};
}

/** A result for columnar formats: the response without `searchInfo`, parsed. */
function columnarRecord(result: BulkResult): ResultRecord {
  const response = JSON.parse(result.response) as ResultRecord['response'];
  return { index: result.index, query: queryOf(response), response };
}

/**
 * A result for columnar formats from its summary: the response reduced to what the columns read,
 * parsed when read (a CSV export reads a compact summary as it is: `ResultRecord.summary`).
 */
class SummaryRecord implements ResultRecord {
  readonly index: number;
  readonly summary: string;
  #response: ResultRecord['response'] | undefined;

  constructor(index: number, summary: string) {
    this.index = index;
    this.summary = summary;
  }

  get response(): ResultRecord['response'] {
    this.#response ??= parseSummary(this.summary);
    return this.#response;
  }

  get query(): Record<string, unknown> {
    return queryOf(this.response);
  }
}

/**
 * A result for json and jsonl: its whole text, and the response parsed only when read (a jsonl
 * export without a filter, `onlyMatches` or report writes the text alone: no parsing, no
 * serialising; measured in bench/NOTES.md).
 */
function wholeRecord(result: BulkResult): ResultRecord {
  let response: ResultRecord['response'] | undefined;
  const parsed = () => {
    if (response === undefined) {
      response = JSON.parse(result.response) as ResultRecord['response'];
      response.searchInfo = JSON.parse(result.searchInfo);
    }
    return response;
  };
  return {
    index: result.index,
    get query() {
      return queryOf(parsed());
    },
    get response() {
      return parsed();
    },
    text: fullResponseText(result),
  };
}

async function writeFile(path: string, write: (out: fs.WriteStream) => Promise<unknown>): Promise<void> {
  const part = `${path}.part`;
  await write(fs.createWriteStream(part));
  fs.renameSync(part, path);
}

/** Records per row file of a `rowsOnly` task: the writing thread starts on each as it comes. */
const ROWS_CHUNK_RECORDS = 10_000;

/**
 * The row files the parent thread announces, in order, until it says they are all written.
 * Listens from the call on (announcements may come while this thread is still at its own
 * records); the listener keeps the thread alive while it waits and goes at the end.
 */
function announcedRowFiles(): AsyncIterable<string> {
  const files: string[] = [];
  let complete = false;
  let wake: (() => void) | undefined;
  const listener = (message: { rowsChunk?: string; rowsComplete?: boolean }) => {
    if (message.rowsChunk !== undefined) files.push(message.rowsChunk);
    if (message.rowsComplete) complete = true;
    wake?.();
  };
  parentPort!.on('message', listener);
  return (async function* () {
    try {
      for (;;) {
        const file = files.shift();
        if (file !== undefined) yield file;
        else if (complete) return;
        else
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
      }
    } finally {
      parentPort!.off('message', listener);
    }
  })();
}

/** A `rowsOnly` task: row files of `ROWS_CHUNK_RECORDS` records, each announced when written. */
async function writeRowFiles(
  storage: Storage,
  plan: ReturnType<typeof createExportPlan>,
  reading: Reading,
  report: CoverageReport | undefined,
): Promise<ExportTaskResult> {
  if (task.limit === null || task.exportPath === null)
    throw new Error('a rowsOnly task needs a limit and a path');
  const end = task.offset + task.limit;
  const summary = { records: 0, rows: 0, bytes: 0 };
  const chunk = task.rowsChunkRecords ?? ROWS_CHUNK_RECORDS;
  for (let from = task.offset, k = 0; from < end; from += chunk, k++) {
    const file = `${task.exportPath}.${k}`;
    await writeFile(file, async (out) => {
      const part = await writeExport(
        records(storage, reading, from, Math.min(end, from + chunk)),
        out,
        plan,
        {
          coverage: report,
          rowsOnly: true,
        },
      );
      summary.records += part.records;
      summary.rows += part.rows;
      summary.bytes += part.bytes;
    });
    parentPort!.postMessage({ rowsChunk: file });
  }
  return summary;
}

async function run(): Promise<ExportTaskResult> {
  lowerThreadPriority(task.niceness);
  const storage = openStorage(task.store, { readOnly: true, cacheMiB: 16 });
  const plan = createExportPlan(task.options);
  const reading: Reading =
    !isColumnar(plan) && task.exportPath !== null ? 'whole' : summaryServes(plan) ? 'summary' : 'response';
  const report =
    task.reportCsvPath === null ? undefined : await CoverageReport.open(plan, { tempDir: task.tempDir });
  try {
    let summary = { records: 0, rows: 0, bytes: 0 };
    if (task.rowsOnly) {
      summary = await writeRowFiles(storage, plan, reading, report);
    } else if (task.exportPath !== null) {
      await writeFile(task.exportPath, async (out) => {
        summary = await writeExport(records(storage, reading), out, plan, {
          coverage: report,
          tempDir: task.tempDir,
          ...(task.appendRows ? { appendRows: announcedRowFiles() } : {}),
        });
      });
    } else if (report) {
      for await (const page of records(storage, reading)) for (const record of page) await report.add(record);
      summary.records = report.records;
    }
    if (report) {
      const coverage = report.counts();
      if (task.reportRowsOnly) {
        await report.saveRows({ csv: task.reportCsvPath!, json: task.reportJsonPath! });
      } else {
        await writeFile(task.reportCsvPath!, (out) => report.writeCsv(out));
        await writeFile(task.reportJsonPath!, (out) => report.writeJson(out));
      }
      return { ...summary, coverage };
    }
    return summary;
  } finally {
    await report?.dispose();
    await storage.close();
  }
}

run().then(
  (result) => parentPort!.postMessage({ ok: true, result }),
  (error: Error) => parentPort!.postMessage({ ok: false, error: error.stack ?? String(error) }),
);

/**
 * The entry point of downloads: stream result records to a `Writable` in the plan's format.
 */
import fs from 'node:fs';
import readline from 'node:readline';
import { PassThrough } from 'node:stream';
import type { Readable, Writable } from 'node:stream';
import type { CoverageReport } from './coverage-report.ts';
import { createCsvWriter } from './csv-writer.ts';
import type { ExportPlan } from './export-plan.ts';
import { type ExportRow, exportedResponse, prepareRecord, preparedRows } from './export-rows.ts';
import { OutputClosedError, OutputSink } from './output-sink.ts';
import type { ResultRecord } from './result-record.ts';
import type { RowWriter } from './row-writer.ts';
import { summaryCsv } from './summary-csv.ts';
import { createXlsWriter } from './xls-writer.ts';
import { createXlsxWriter } from './xlsx-writer.ts';

/**
 * The records of an export, in order: one at a time, or a page (an array) at a time, which
 * saves an asynchronous step per record (~0.5-1 µs: a promise and a microtask each) when the
 * reader reads them by pages anyway.
 */
export type RecordSource = AsyncIterable<ResultRecord | readonly ResultRecord[]> | Iterable<ResultRecord>;

function isPage(item: ResultRecord | readonly ResultRecord[]): item is readonly ResultRecord[] {
  return Array.isArray(item);
}

export interface WriteExportOptions {
  /** A report opened with the same plan; it is fed every exported record (not written, not disposed). */
  coverage?: CoverageReport;
  /** Directory for xls temp files; default the OS temp directory. */
  tempDir?: string;
  /** Data rows per sheet for xls / xlsx (tests); default and maximum the format's limit. */
  sheetRows?: number;
  /** Stops the export: the returned promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Columnar formats: write the data rows as JSON lines (no header) instead of the format, for
   * another export to append (`appendRows`): the rows of a part prepared by another thread.
   */
  rowsOnly?: boolean;
  /**
   * Columnar formats: after the records, the rows of these files (written with `rowsOnly`), in
   * order, each as soon as it is complete (another thread may still be writing the next); each
   * file is removed once appended.
   */
  appendRows?: AsyncIterable<string>;
}

export interface ExportSummary {
  /** Records written (after `onlyMatches`). */
  readonly records: number;
  /** Data rows written for columnar formats (header excluded); equals `records` for json / jsonl. */
  readonly rows: number;
  /** Bytes written to the output. */
  readonly bytes: number;
}

/**
 * Streams `records` (in the order given: the caller applies `from`/`size`/`head`, see
 * `exportWindow`) to `output` in `plan.format`, then ends `output` and waits until it has
 * finished. Memory is bounded whatever the number of records: writes wait for `drain`, and
 * xls spools to temp files.
 *
 * - `jsonl`: one exported response per line (`\n`-terminated);
 * - `json`: a JSON array of the same responses;
 * - `csv` / `xls` / `xlsx`: the plan's columns, a header row then one row per match (see
 *   `exportRows`).
 *
 * Responses are exported with the plan's filter applied to each entity; records without a
 * match are skipped when `plan.onlyMatches`. On failure (including the output closing early)
 * the promise rejects, temp files are removed, and `output` is destroyed (without an error
 * event) so that a truncated download cannot pass for a complete one.
 */
export function writeExport(
  records: RecordSource,
  output: Writable,
  plan: ExportPlan,
  options: WriteExportOptions = {},
): Promise<ExportSummary> {
  // Destroyed without the error: 'error' would be unhandled on an output nobody listens to,
  // and the promise already reports it. A truncated download must not look complete.
  return run(records, output, plan, options, () => output.destroy());
}

async function run(
  records: RecordSource,
  output: Writable,
  plan: ExportPlan,
  options: WriteExportOptions,
  fail: (error: Error) => void,
): Promise<ExportSummary> {
  const sink = new OutputSink(output);
  const { coverage, signal } = options;
  let count = 0;
  let rows = 0;
  let writer: RowWriter | undefined;
  // Checked per record: xls writes nothing to the output until the end, so a reader that went
  // away would otherwise only be noticed after spooling the whole export.
  const stopIfGone = () => {
    signal?.throwIfAborted();
    if (output.destroyed) throw output.errored ?? new OutputClosedError();
  };
  try {
    stopIfGone();
    if (plan.format === 'jsonl' || plan.format === 'json') {
      const array = plan.format === 'json';
      if (array) sink.push('[');
      // Records read as JSON text are written as they are when nothing changes them.
      const asStored = plan.filter === undefined;
      const readsResponses = plan.filter !== undefined || plan.onlyMatches || coverage !== undefined;
      for await (const item of records) {
        for (const record of isPage(item) ? item : [item]) {
          stopIfGone();
          let json: string;
          if (!readsResponses && record.text !== undefined) {
            json = record.text;
          } else {
            const prepared = prepareRecord(record, plan);
            if (prepared === undefined) continue;
            if (coverage !== undefined) await coverage.addPrepared(prepared, preparedRows(prepared, plan));
            json =
              asStored && record.text !== undefined
                ? record.text
                : JSON.stringify(exportedResponse(prepared, plan));
          }
          const line = array ? `${count === 0 ? '\n' : ',\n'}${json}` : `${json}\n`;
          count++;
          if (sink.push(line)) await sink.flush();
        }
      }
      if (array) sink.push(count === 0 ? ']\n' : '\n]\n');
      rows = count;
    } else {
      // CSV of the default columns from compact summaries: rows encoded as the summary is read.
      const csv =
        plan.format === 'csv' && !options.rowsOnly ? createCsvWriter(sink, plan.headers) : undefined;
      const direct = csv === undefined ? undefined : summaryCsv(plan);
      writer = csv ?? (options.rowsOnly ? new RowsSpillWriter(sink) : createRowWriter(sink, plan, options));
      for await (const item of records) {
        for (const record of isPage(item) ? item : [item]) {
          stopIfGone();
          if (direct !== undefined && record.summary !== undefined && direct.read(record.summary)) {
            if (direct.rows === 0) continue;
            const counted = coverage?.addRow(direct.topId, direct.topName, direct.filled);
            if (counted !== undefined) await counted;
            count++;
            const written = csv!.writeEncoded(direct.text, direct.rows);
            if (written !== undefined) await written;
            rows += direct.rows;
            continue;
          }
          const prepared = prepareRecord(record, plan);
          if (prepared === undefined) continue;
          const recordRows = preparedRows(prepared, plan);
          // Awaited only when they write out (a microtask per await: see `RowWriter.writeRow`).
          const counted = coverage?.addPrepared(prepared, recordRows);
          if (counted !== undefined) await counted;
          count++;
          for (const row of recordRows) {
            const written = writer.writeRow(row);
            if (written !== undefined) await written;
          }
          rows += recordRows.length;
        }
      }
      for await (const file of options.appendRows ?? []) {
        for await (const row of spilledRows(file)) {
          stopIfGone();
          await writer.writeRow(row);
          rows++;
        }
        fs.rmSync(file, { force: true });
      }
      await writer.finish();
    }
    await sink.end();
    return { records: count, rows, bytes: sink.bytes };
  } catch (error) {
    await writer?.dispose();
    fail(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
}

/** Data rows as JSON lines: the intermediate form of an export prepared in parts. */
class RowsSpillWriter implements RowWriter {
  readonly #sink: OutputSink;
  #chunk = '';

  constructor(sink: OutputSink) {
    this.#sink = sink;
  }

  async writeRow(row: ExportRow): Promise<void> {
    this.#chunk += `${JSON.stringify(row)}\n`;
    if (this.#chunk.length >= 64 * 1024) await this.#flush();
  }

  async finish(): Promise<void> {
    await this.#flush();
    await this.#sink.flush();
  }

  async dispose(): Promise<void> {}

  async #flush(): Promise<void> {
    const chunk = this.#chunk;
    this.#chunk = '';
    if (chunk !== '' && this.#sink.push(chunk)) await this.#sink.flush();
  }
}

/** The rows of a file written with `rowsOnly`. */
async function* spilledRows(file: string): AsyncGenerator<ExportRow> {
  const lines = readline.createInterface({
    input: fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of lines) if (line !== '') yield JSON.parse(line) as ExportRow;
}

function createRowWriter(sink: OutputSink, plan: ExportPlan, options: WriteExportOptions): RowWriter {
  switch (plan.format) {
    case 'csv':
      return createCsvWriter(sink, plan.headers);
    case 'xlsx':
      return createXlsxWriter(sink, plan.headers, { sheetRows: options.sheetRows });
    case 'xls':
      return createXlsWriter(sink, plan.headers, { sheetRows: options.sheetRows, tempDir: options.tempDir });
    default:
      throw new Error(`not a columnar format: ${plan.format}`);
  }
}

/**
 * `writeExport` as a `Readable`, e.g. for `reply.send(exportStream(...))`. The export runs as
 * the stream is read; a failure destroys the stream with the error. `onDone` (optional) gets
 * the summary or the error.
 */
export function exportStream(
  records: RecordSource,
  plan: ExportPlan,
  options: WriteExportOptions & { onDone?: (error: Error | undefined, summary?: ExportSummary) => void } = {},
): Readable {
  const stream = new PassThrough();
  run(records, stream, plan, options, (error) => stream.destroy(error)).then(
    (summary) => options.onDone?.(undefined, summary),
    (error: unknown) => options.onDone?.(error instanceof Error ? error : new Error(String(error))),
  );
  return stream;
}

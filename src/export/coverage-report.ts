/**
 * Coverage reports (docs/api.md#coverage-reports): for an export's columns, which records got each
 * field.
 *
 * CSV form (the default answer):
 * ```
 * DiffbotID,Name,<header of each exported column>
 * ,,<fraction of records that have the field>...      ← right after the header
 * <entity id>,<entity name>,1,0,...                    ← one row per record, in export order
 * ```
 * JSON form: `{"columns":["DiffbotID","Name",...headers],"coverage":{"<header>":fraction,...},
 * "rows":[["<id>","<name>",1,0,...],...]}` — `rows` aligned with `columns`.
 *
 * Definitions:
 * - the records are those the export contains (after `onlyMatches`), one report row each;
 * - a record "has" a field when the cell of that column is non-empty in the record's first
 *   export row, i.e. for its top match (the entity a caller would use), after `filter` /
 *   `filterExclude`. Query columns (`query.*`, `customId`) count what the query carried;
 * - a record without a match has empty DiffbotID and Name, 0 for every entity and score
 *   column, and still counts in the denominator (it is part of what the job returned);
 * - DiffbotID and Name are the top match's `id` and `name` before filtering;
 * - fractions are rounded to 4 decimal places (`0.6667`); with no record they are 0.
 *
 * Memory stays bounded: as records are added, their rows are written in final form (CSV rows
 * and JSON rows) to two temp files, copied after the header and fraction rows when the report
 * is written. Encoding each row once, as it comes, rather than spilling JSON and parsing it back
 * for each form, took a quarter of the report's cost off (profiled on bulk exports).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { isFilled } from './cell-value.ts';
import { csvField, csvText } from './csv-writer.ts';
import type { ExportPlan } from './export-plan.ts';
import type { ExportRow, PreparedRecord } from './export-rows.ts';
import { prepareRecord, preparedRows } from './export-rows.ts';
import { OutputSink } from './output-sink.ts';
import type { ResultRecord } from './result-record.ts';
import { SpillFile } from './spill-file.ts';

export interface CoverageReportOptions {
  /** Directory for the temp file holding per-record rows; default the OS temp directory. */
  tempDir?: string;
}

/**
 * Rows gathered before they are written to the spill files: one UTF-8 encoding of a few
 * hundred rows instead of one per row.
 */
const PENDING_ROWS = 256;

/** The two identification columns that precede the exported fields. */
export const COVERAGE_ID_COLUMNS: readonly string[] = Object.freeze(['DiffbotID', 'Name']);

/** Media types of the two forms. */
export const COVERAGE_CONTENT_TYPES = Object.freeze({
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
});

/** What a report has counted: records, and per exported column the records that have it. */
export interface CoverageCounts {
  readonly records: number;
  /** Aligned with the plan's columns. */
  readonly counts: readonly number[];
}

/**
 * Fraction of records having each column, rounded to 4 decimal places; 0 with no record. The
 * one rounding of every report, also used to merge the counts of reports on parts of an export.
 */
export function coverageFractions({ records, counts }: CoverageCounts): number[] {
  return counts.map((count) => (records === 0 ? 0 : Math.round((count / records) * 1e4) / 1e4));
}

/** The forms' columns: `DiffbotID`, `Name`, then the exported columns' headers. */
function coverageColumns(headers: readonly string[]): string[] {
  return [...COVERAGE_ID_COLUMNS, ...headers];
}

/** The CSV form's first two records: the columns, then the fractions of `headers`' columns. */
export function coverageCsvHead(headers: readonly string[], fractions: readonly number[]): string {
  return csvText([coverageColumns(headers), ['', '', ...fractions]]);
}

/** The JSON form up to its first row: columns, coverage by header, and the rows' opening `[`. */
export function coverageJsonHead(headers: readonly string[], fractions: readonly number[]): string {
  const coverage: Record<string, number> = {};
  headers.forEach((header, c) => {
    coverage[header] = fractions[c];
  });
  return `{"columns":${JSON.stringify(coverageColumns(headers))},"coverage":${JSON.stringify(coverage)},"rows":[`;
}

/** The JSON form after its last row, for a report of `records` rows. */
export function coverageJsonEnd(records: number): string {
  return records === 0 ? ']}\n' : '\n]}\n';
}

/**
 * Accumulates a coverage report while records are exported, then writes it (as often as
 * needed) as CSV or JSON. Feed it either through `writeExport(..., { coverage })` or with
 * `add(record)`; call `dispose()` when done to delete its temp files.
 */
export class CoverageReport {
  readonly #plan: ExportPlan;
  readonly #dir: string;
  /** The rows as CSV records (`id,name,1,0,...\r\n`). */
  readonly #csvRows: SpillFile;
  /** The rows as the JSON form's array elements, each after its separator (`\n[...]`, `,\n[...]`). */
  readonly #jsonRows: SpillFile;
  readonly #counts: number[];
  /** Scratch: per column, whether the record being added has it. */
  readonly #filled: boolean[];
  /** The flags text of each pattern of filled columns seen, by its bit mask (≤ 30 columns). */
  readonly #flags = new Map<number, string>();
  #records = 0;
  #disposed = false;
  /** Rows not yet in the spill files: gathered, then written in one piece per form. */
  #csvPending = '';
  #jsonPending = '';
  #pendingRows = 0;

  private constructor(plan: ExportPlan, dir: string, csvRows: SpillFile, jsonRows: SpillFile) {
    this.#plan = plan;
    this.#dir = dir;
    this.#csvRows = csvRows;
    this.#jsonRows = jsonRows;
    this.#counts = plan.columns.map(() => 0);
    this.#filled = plan.columns.map(() => false);
  }

  /** Starts an empty report for the columns (and filter, `onlyMatches`) of `plan`. */
  static async open(plan: ExportPlan, options: CoverageReportOptions = {}): Promise<CoverageReport> {
    const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), 'quarry-coverage-'));
    const csvRows = await SpillFile.create(join(dir, 'rows.csv'));
    return new CoverageReport(plan, dir, csvRows, await SpillFile.create(join(dir, 'rows.json')));
  }

  /** Records counted so far. */
  get records(): number {
    return this.#records;
  }

  /** Records so far, and per exported column those that have it. */
  counts(): CoverageCounts {
    return { records: this.#records, counts: [...this.#counts] };
  }

  /** Fraction of records having each exported column, in column order (rounded, see module doc). */
  fractions(): number[] {
    return coverageFractions({ records: this.#records, counts: this.#counts });
  }

  /** Adds one record as the export would (filter, `onlyMatches`, columns of the plan). */
  async add(record: ResultRecord): Promise<void> {
    const prepared = prepareRecord(record, this.#plan);
    if (prepared !== undefined) await this.addPrepared(prepared, preparedRows(prepared, this.#plan));
  }

  /**
   * Adds a record already prepared with this report's plan, with its rows (used by `writeExport`).
   * A promise to await when the report writes its temp files out, else `undefined` (see
   * `RowWriter.writeRow`).
   */
  addPrepared(prepared: PreparedRecord, rows: readonly ExportRow[]): Promise<void> | undefined {
    const first = rows[0];
    const filled = this.#filled;
    for (let c = 0; c < first.length; c++) filled[c] = isFilled(first[c]);
    const top = prepared.record.response.data.find((item) => item.entity != null)?.entity;
    const id = typeof top?.id === 'string' ? top.id : '';
    const name = typeof top?.name === 'string' ? top.name : '';
    return this.addRow(id, name, filled);
  }

  /**
   * Adds one exported record by its top match's `id` and `name` ('' without a match) and, per
   * column, whether its first row has the cell filled. See `addPrepared` for the promise.
   */
  addRow(id: string, name: string, filled: readonly boolean[]): Promise<void> | undefined {
    if (this.#disposed) throw new Error('CoverageReport: already disposed');
    const counts = this.#counts;
    // The flags text (`,1,0,…`) of each pattern is made once: a report sees few patterns.
    let mask = 0;
    for (let c = 0; c < counts.length; c++) {
      if (filled[c]) {
        counts[c]++;
        if (c < 30) mask |= 1 << c;
      }
    }
    let flags = counts.length <= 30 ? this.#flags.get(mask) : undefined;
    if (flags === undefined) {
      flags = '';
      for (let c = 0; c < counts.length; c++) flags += filled[c] ? ',1' : ',0';
      if (counts.length <= 30) this.#flags.set(mask, flags);
    }
    this.#csvPending += `${csvField(id)},${csvField(name)}${flags}\r\n`;
    this.#jsonPending += `${this.#records === 0 ? '\n' : ',\n'}[${JSON.stringify(id)},${JSON.stringify(name)}${flags}]`;
    this.#records++;
    if (++this.#pendingRows < PENDING_ROWS) return undefined;
    this.#writePending();
    return this.#csvRows.full || this.#jsonRows.full ? this.#flushRows() : undefined;
  }

  /** The rows gathered in `#csvPending` and `#jsonPending` into the spill files' buffers. */
  #writePending(): void {
    if (this.#pendingRows === 0) return;
    this.#csvRows.text(this.#csvPending);
    this.#jsonRows.text(this.#jsonPending);
    this.#csvPending = '';
    this.#jsonPending = '';
    this.#pendingRows = 0;
  }

  async #flushRows(): Promise<void> {
    await this.#csvRows.flushIfFull();
    await this.#jsonRows.flushIfFull();
  }

  /**
   * Moves the rows written so far to `files` as they are, without the forms' first lines and
   * the JSON form's end: a part of a report split by records, for `coverageCsvHead` and
   * `coverageJsonHead` of the summed counts to go before (`bulk/coverage-merge.ts`). The JSON
   * rows are the array's elements, each after its separator (`\n[…]`, then `,\n[…]`).
   * The report is disposed of after (it cannot be written any more).
   */
  async saveRows(files: { readonly csv: string; readonly json: string }): Promise<void> {
    if (this.#disposed) throw new Error('CoverageReport: already disposed');
    try {
      this.#writePending();
      await this.#csvRows.moveTo(files.csv);
      await this.#jsonRows.moveTo(files.json);
    } finally {
      await this.dispose();
    }
  }

  /** Writes the CSV form to `output` and ends it. */
  async writeCsv(output: Writable): Promise<void> {
    const sink = new OutputSink(output);
    sink.push(coverageCsvHead(this.#plan.headers, this.fractions()));
    for await (const chunk of this.#rows(this.#csvRows)) if (sink.push(chunk)) await sink.flush();
    await sink.end();
  }

  /** Writes the JSON form to `output` and ends it. */
  async writeJson(output: Writable): Promise<void> {
    const sink = new OutputSink(output);
    sink.push(coverageJsonHead(this.#plan.headers, this.fractions()));
    for await (const chunk of this.#rows(this.#jsonRows)) if (sink.push(chunk)) await sink.flush();
    sink.push(coverageJsonEnd(this.#records));
    await sink.end();
  }

  /** Deletes the temp files. Idempotent; the report cannot be written afterwards. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#csvRows.close().catch(() => {});
    await this.#jsonRows.close().catch(() => {});
    await rm(this.#dir, { recursive: true, force: true });
  }

  #rows(file: SpillFile): AsyncGenerator<Buffer> {
    if (this.#disposed) throw new Error('CoverageReport: already disposed');
    this.#writePending();
    return file.chunks();
  }
}

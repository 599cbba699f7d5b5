/**
 * Coverage reports (DECISIONS.md §3): for an export's columns, which records got each field.
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
 * Memory stays bounded: per-record rows go to a temp file (JSON Lines) as records are added,
 * and are streamed back after the header and fraction rows when the report is written.
 */
import { createInterface } from 'node:readline';
import { mkdtemp, rm } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { isFilled } from './cell-value.ts';
import { csvText } from './csv-writer.ts';
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

/** The two identification columns that precede the exported fields. */
export const COVERAGE_ID_COLUMNS: readonly string[] = Object.freeze(['DiffbotID', 'Name']);

/** Media types of the two forms. */
export const COVERAGE_CONTENT_TYPES = Object.freeze({
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
});

/**
 * Accumulates a coverage report while records are exported, then writes it (as often as
 * needed) as CSV or JSON. Feed it either through `writeExport(..., { coverage })` or with
 * `add(record)`; call `dispose()` when done to delete its temp file.
 */
export class CoverageReport {
  readonly #plan: ExportPlan;
  readonly #dir: string;
  readonly #rows: SpillFile;
  readonly #counts: number[];
  #records = 0;
  #disposed = false;

  private constructor(plan: ExportPlan, dir: string, rows: SpillFile) {
    this.#plan = plan;
    this.#dir = dir;
    this.#rows = rows;
    this.#counts = plan.columns.map(() => 0);
  }

  /** Starts an empty report for the columns (and filter, `onlyMatches`) of `plan`. */
  static async open(plan: ExportPlan, options: CoverageReportOptions = {}): Promise<CoverageReport> {
    const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), 'quarry-coverage-'));
    return new CoverageReport(plan, dir, await SpillFile.create(join(dir, 'rows.jsonl')));
  }

  /** Records counted so far. */
  get records(): number {
    return this.#records;
  }

  /** The CSV/JSON header: `DiffbotID`, `Name`, then the exported columns' headers. */
  get columns(): readonly string[] {
    return [...COVERAGE_ID_COLUMNS, ...this.#plan.headers];
  }

  /** Fraction of records having each exported column, in column order (rounded, see module doc). */
  fractions(): number[] {
    return this.#counts.map((count) =>
      this.#records === 0 ? 0 : Math.round((count / this.#records) * 1e4) / 1e4,
    );
  }

  /** Adds one record as the export would (filter, `onlyMatches`, columns of the plan). */
  async add(record: ResultRecord): Promise<void> {
    const prepared = prepareRecord(record, this.#plan);
    if (prepared !== undefined) await this.addPrepared(prepared, preparedRows(prepared, this.#plan));
  }

  /** Adds a record already prepared with this report's plan, with its rows (used by `writeExport`). */
  async addPrepared(prepared: PreparedRecord, rows: readonly ExportRow[]): Promise<void> {
    if (this.#disposed) throw new Error('CoverageReport: already disposed');
    const first = rows[0];
    const flags = first.map((cell, c) => {
      if (!isFilled(cell)) return 0;
      this.#counts[c]++;
      return 1;
    });
    this.#records++;
    const top = prepared.record.response.data.find((item) => item.entity != null)?.entity;
    const id = typeof top?.id === 'string' ? top.id : '';
    const name = typeof top?.name === 'string' ? top.name : '';
    this.#rows.text(`${JSON.stringify([id, name, ...flags])}\n`);
    await this.#rows.flushIfFull();
  }

  /** Writes the CSV form to `output` and ends it. */
  async writeCsv(output: Writable): Promise<void> {
    const sink = new OutputSink(output);
    sink.push(csvText([this.columns, ['', '', ...this.fractions()]]));
    let batch: (string | number)[][] = [];
    for await (const line of this.#lines()) {
      batch.push(JSON.parse(line));
      if (batch.length >= 512) {
        if (sink.push(csvText(batch))) await sink.flush();
        batch = [];
      }
    }
    if (batch.length > 0) sink.push(csvText(batch));
    await sink.end();
  }

  /** Writes the JSON form to `output` and ends it. */
  async writeJson(output: Writable): Promise<void> {
    const sink = new OutputSink(output);
    const fractions = this.fractions();
    const coverage: Record<string, number> = {};
    this.#plan.headers.forEach((header, c) => {
      coverage[header] = fractions[c];
    });
    sink.push(`{"columns":${JSON.stringify(this.columns)},"coverage":${JSON.stringify(coverage)},"rows":[`);
    let first = true;
    for await (const line of this.#lines()) {
      if (sink.push(first ? `\n${line}` : `,\n${line}`)) await sink.flush();
      first = false;
    }
    sink.push(first ? ']}\n' : '\n]}\n');
    await sink.end();
  }

  /** Deletes the temp file. Idempotent; the report cannot be written afterwards. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#rows.close().catch(() => {});
    await rm(this.#dir, { recursive: true, force: true });
  }

  async *#lines(): AsyncGenerator<string> {
    if (this.#disposed) throw new Error('CoverageReport: already disposed');
    await this.#rows.flush();
    const lines = createInterface({
      input: createReadStream(this.#rows.path),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const line of lines) if (line !== '') yield line;
  }
}

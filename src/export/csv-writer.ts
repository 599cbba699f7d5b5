/**
 * CSV per RFC 4180: UTF-8 (no byte-order mark), CRLF after every record including the last,
 * a field quoted when it contains a comma, a double quote, CR or LF, quotes doubled.
 * Rows are encoded in batches and written with backpressure.
 *
 * The encoding is these few lines rather than `csv-stringify`: on a bulk export of 50,000 rows
 * the library's per-field machinery (options, casts, transforms) took ~40% of the thread (330 of
 * 870 ms of a CSV export, profiled); the output is the same (the tests read it back with
 * csv-parse and compare cell by cell).
 */
import type { ExportRow } from './export-rows.ts';
import type { OutputSink } from './output-sink.ts';
import type { RowWriter } from './row-writer.ts';

/** Rows encoded per write: large enough to amortise the write, small in memory. */
const BATCH_ROWS = 512;

const NEEDS_QUOTES = /[",\r\n]/;
const QUOTE = /"/g;

/** One CSV field: as it is, or quoted (quotes doubled) when it holds a comma, quote, CR or LF. */
export function csvField(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(QUOTE, '""')}"` : text;
}

/** Encodes rows as RFC 4180 CSV text (each record followed by CRLF). */
export function csvText(rows: readonly (readonly (string | number)[])[]): string {
  let out = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) out += i === 0 ? csvField(row[i]) : `,${csvField(row[i])}`;
    out += '\r\n';
  }
  return out;
}

export function createCsvWriter(sink: OutputSink, headers: readonly string[]): RowWriter {
  return new CsvWriter(sink, headers);
}

class CsvWriter implements RowWriter {
  readonly #sink: OutputSink;
  #batch: ExportRow[];

  constructor(sink: OutputSink, headers: readonly string[]) {
    this.#sink = sink;
    this.#batch = [[...headers]];
  }

  async writeRow(row: ExportRow): Promise<void> {
    this.#batch.push(row);
    if (this.#batch.length >= BATCH_ROWS) await this.#flush();
  }

  async finish(): Promise<void> {
    await this.#flush();
    await this.#sink.flush();
  }

  async dispose(): Promise<void> {}

  async #flush(): Promise<void> {
    if (this.#batch.length === 0) return;
    const text = csvText(this.#batch);
    this.#batch = [];
    if (this.#sink.push(text)) await this.#sink.flush();
  }
}

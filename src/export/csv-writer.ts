/**
 * CSV per RFC 4180: UTF-8 (no byte-order mark), CRLF after every record including the last,
 * a field quoted when it contains a comma, a double quote, CR or LF, quotes doubled.
 * Rows are encoded in batches with `csv-stringify` and written with backpressure.
 */
import { stringify } from 'csv-stringify/sync';
import type { ExportRow } from './export-rows.ts';
import type { OutputSink } from './output-sink.ts';
import type { RowWriter } from './row-writer.ts';

/** Rows encoded per `csv-stringify` call: large enough to amortise the call, small in memory. */
const BATCH_ROWS = 512;

const OPTIONS = Object.freeze({ record_delimiter: '\r\n', eof: true });

/** Encodes rows as RFC 4180 CSV text (each record followed by CRLF). */
export function csvText(rows: readonly (readonly (string | number)[])[]): string {
  return stringify(rows as (string | number)[][], OPTIONS);
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

import type { CoverageCounts, ExportOptions } from '../export/index.ts';
import type { StoreLocator } from '../storage/index.ts';

/** What an export worker thread produces: an export file and/or the coverage report files. */
export interface ExportTask {
  /** The store, opened read-only. */
  readonly store: StoreLocator;
  readonly jobId: string;
  /** Download parameters as the export library takes them (already validated once). */
  readonly options: ExportOptions;
  /** Records `[offset, offset + limit)` by 0-based position; `limit` null = to the end. */
  readonly offset: number;
  readonly limit: number | null;
  /** Where to write the export; `null` for a report only. Written to `<path>.part`, then renamed. */
  readonly exportPath: string | null;
  /** Where to write the coverage report; `null` for an export only. */
  readonly reportCsvPath: string | null;
  readonly reportJsonPath: string | null;
  /**
   * Write the report's rows alone to `reportCsvPath` and `reportJsonPath` (`CoverageReport.saveRows`):
   * a part of a split export, merged with the other parts' by the parent thread.
   */
  readonly reportRowsOnly?: boolean;
  /** Directory for the library's temp files (xls sheets, report rows). */
  readonly tempDir: string;
  /** Nice value for the thread (see `enhance-worker.ts`). */
  readonly niceness: number;
  /**
   * Columnar formats: write the data rows as JSON lines, for another task to append, in files
   * `<exportPath>.<k>` of a few thousand records each, announced (`{rowsChunk: path}`) as each
   * is complete. Needs a `limit`.
   */
  readonly rowsOnly?: boolean;
  /** Records per row file of a `rowsOnly` task (default 10,000). */
  readonly rowsChunkRecords?: number;
  /**
   * Columnar formats: after its records, append the row files the parent thread announces
   * (`{rowsChunk: path}` messages, in order, then `{rowsComplete: true}`).
   */
  readonly appendRows?: boolean;
}

/** Posted by the worker when it is done. */
export interface ExportTaskResult {
  readonly records: number;
  readonly rows: number;
  /** Bytes of the export file (0 without one). */
  readonly bytes: number;
  /** What the coverage report counted (absent without one): to merge the reports of parts. */
  readonly coverage?: CoverageCounts;
}

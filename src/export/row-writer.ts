import type { ExportRow } from './export-rows.ts';

/** A columnar output (csv, xls, xlsx): a header then rows, streamed. */
export interface RowWriter {
  /**
   * Writes one data row, aligned with the header. A promise (to await: it applies backpressure)
   * when the row made the writer write out, `undefined` when it was only buffered: most rows,
   * and an await per row was ~4% of a CSV export thread (a microtask each).
   */
  writeRow(row: ExportRow): Promise<void> | undefined;
  /** Completes the file and flushes it to the sink (the sink is not ended). */
  finish(): Promise<void>;
  /** Releases temporary resources after a failure; safe to call after `finish`. */
  dispose(): Promise<void>;
}

/**
 * Longest text a spreadsheet cell holds (Excel's limit for both BIFF8 and Office Open XML);
 * longer cell texts are cut to it in xls / xlsx exports (CSV keeps them whole).
 */
export const SPREADSHEET_CELL_CHARS = 32_767;

/** Cuts `text` to the spreadsheet cell limit without splitting a surrogate pair. */
export function spreadsheetText(text: string): string {
  if (text.length <= SPREADSHEET_CELL_CHARS) return text;
  let end = SPREADSHEET_CELL_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}

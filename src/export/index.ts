/**
 * The export library: entity filters (`filter` / `filterExclude`), `exportspec` columns,
 * streaming json / jsonl / csv / xls / xlsx writers and coverage reports for bulk enhance
 * downloads (docs/api.md#downloads, #export-columns, #filters). Pure apart from the writers, which
 * write to a stream you pass (and, for xls and coverage reports, to temp files).
 *
 * A download route:
 * ```ts
 * const plan = createExportPlan(params);             // 400s: format, exportspec, filter, ...
 * const window = exportWindow(params);               // 400s: head, from, size
 * const fileName = sanitizeExportFileName(params.exportfile ?? jobId, plan.format);
 * return reply
 *   .header('content-type', EXPORT_FORMATS[plan.format].contentType)
 *   .header('content-disposition', contentDisposition(fileName))
 *   .send(exportStream(windowRecords(store.results(jobId), window), plan));
 * ```
 * (or `await writeExport(records, fileStream, plan)` to produce a file for later download).
 *
 * A coverage report, built in the same pass as an export or on its own:
 * ```ts
 * const report = await CoverageReport.open(plan);
 * await writeExport(records, fileStream, plan, { coverage: report });   // or report.add(record)
 * await report.writeCsv(csvFile);                    // and/or report.writeJson(jsonFile)
 * await report.dispose();
 * ```
 * `plan.key` identifies an export's settings: one report per distinct key.
 *
 * Entity filters alone (enhance responses): `parseEntityFilter(filter, filterExclude)` once
 * per request, then `applyEntityFilter(entity, compiled)` per entity.
 *
 * Where the decisions are documented: path notations (`entity-path.ts`), filter semantics
 * (`entity-filter.ts`), exportspec grammar, default and reserved columns (`export-spec.ts`),
 * how values become cells (`cell-value.ts`), rows (`export-rows.ts`), windowing
 * (`export-window.ts`), file names (`export-file-name.ts`), report format and "has the field"
 * (`coverage-report.ts`), sheet limits (`xls-writer.ts`, `xlsx-writer.ts`).
 */
export type { CellValue } from './cell-value.ts';
export { cellValue } from './cell-value.ts';
export type { CoverageCounts, CoverageReportOptions } from './coverage-report.ts';
export {
  COVERAGE_CONTENT_TYPES,
  COVERAGE_ID_COLUMNS,
  CoverageReport,
  coverageCsvHead,
  coverageFractions,
  coverageJsonEnd,
  coverageJsonHead,
} from './coverage-report.ts';
export type { EntityFilter } from './entity-filter.ts';
export { applyEntityFilter, parseEntityFilter } from './entity-filter.ts';
export type { EntityPath, PathLocation } from './entity-path.ts';
export { compileEntityPath } from './entity-path.ts';
export { contentDisposition, encodeRfc8187, sanitizeExportFileName } from './export-file-name.ts';
export type { ExportFormat, ExportFormatInfo } from './export-format.ts';
export { DEFAULT_EXPORT_FORMAT, EXPORT_FORMATS, parseExportFormat } from './export-format.ts';
export type { ExportOptions, ExportPlan, ExportSettings } from './export-plan.ts';
export { createExportPlan, isColumnar } from './export-plan.ts';
export type { ExportRow } from './export-rows.ts';
export { exportRows } from './export-rows.ts';
export type { ColumnSource, ExportColumn, RowContext } from './export-spec.ts';
export { exportColumns, parseExportSpec } from './export-spec.ts';
export type { ExportWindow, ExportWindowOptions } from './export-window.ts';
export { exportWindow, windowRecords } from './export-window.ts';
export { OutputClosedError } from './output-sink.ts';
export type { ExportEntity, ResultDataItem, ResultRecord, ResultResponse } from './result-record.ts';
export type { SummarisedResponse } from './result-summary.ts';
export {
  compactSummary,
  jsonSummary,
  parseSummary,
  responseSummary,
  SUMMARY_ENTITY_FIELDS,
  summaryServes,
} from './result-summary.ts';
export { hasMatch } from './result-record.ts';
export { SPREADSHEET_CELL_CHARS } from './row-writer.ts';
export type { ExportSummary, RecordSource, WriteExportOptions } from './write-export.ts';
export { exportStream, writeExport } from './write-export.ts';
export { XLS_SHEET_ROWS } from './xls-writer.ts';
export { XLSX_SHEET_ROWS } from './xlsx-writer.ts';
export { csvField, csvText, neutralizeFormula } from './csv-writer.ts';

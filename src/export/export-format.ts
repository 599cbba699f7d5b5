/**
 * Download formats of bulk enhance results (docs/api.md#downloads): media type and file extension.
 */
import { InvalidParameterError } from '../errors.ts';

export type ExportFormat = 'jsonl' | 'json' | 'csv' | 'xls' | 'xlsx';

export interface ExportFormatInfo {
  /** Value of the `Content-Type` header of a download in this format. */
  readonly contentType: string;
  /** File extension without the dot. */
  readonly extension: string;
  /** True for csv, xls and xlsx: rows and columns (`exportspec` applies). */
  readonly columnar: boolean;
}

/** Every format with its media type (as docs/api.md#downloads lists them) and extension. */
export const EXPORT_FORMATS: Readonly<Record<ExportFormat, ExportFormatInfo>> = Object.freeze({
  jsonl: Object.freeze({ contentType: 'application/json-lines', extension: 'jsonl', columnar: false }),
  json: Object.freeze({ contentType: 'application/json', extension: 'json', columnar: false }),
  csv: Object.freeze({ contentType: 'text/csv; charset=utf-8', extension: 'csv', columnar: true }),
  xls: Object.freeze({ contentType: 'application/ms-excel', extension: 'xls', columnar: true }),
  xlsx: Object.freeze({
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extension: 'xlsx',
    columnar: true,
  }),
});

/** The default download format: JSON Lines (docs/api.md#downloads). */
export const DEFAULT_EXPORT_FORMAT: ExportFormat = 'jsonl';

/**
 * Parses the `format` parameter (case-insensitive). Absent or empty means `jsonl`.
 * @throws InvalidParameterError('format') for anything else.
 */
export function parseExportFormat(format?: string): ExportFormat {
  if (format === undefined || format.trim() === '') return DEFAULT_EXPORT_FORMAT;
  const normalised = format.trim().toLowerCase();
  if (Object.hasOwn(EXPORT_FORMATS, normalised)) return normalised as ExportFormat;
  throw new InvalidParameterError(
    'format',
    `Invalid parameter 'format': '${format}' is not one of ${Object.keys(EXPORT_FORMATS).join(', ')}`,
  );
}

/**
 * An export plan: the validated download parameters of docs/api.md#downloads, compiled once and
 * shared by every record of the export (and by its coverage report).
 */
import { InvalidParameterError } from '../errors.ts';
import type { EntityFilter } from './entity-filter.ts';
import { parseEntityFilter } from './entity-filter.ts';
import type { ExportFormat } from './export-format.ts';
import { EXPORT_FORMATS, parseExportFormat } from './export-format.ts';
import type { ExportColumn } from './export-spec.ts';
import { exportColumns } from './export-spec.ts';

/** Raw download parameters, as they come from a query string or a POST body. */
export interface ExportOptions {
  /** `json`, `jsonl`, `csv`, `xls`, `xlsx`; default `jsonl`. */
  format?: string;
  /** Columns for csv / xls / xlsx (see `export-spec.ts`); ignored by json / jsonl. */
  exportspec?: string;
  /** Joins the values of multi-value cells; default `;`. */
  exportseparator?: string;
  /** `true` prefixes the columns with the query fields and `customId`; default false. */
  exportquery?: boolean | string;
  /** `;`-separated paths to keep in each entity. */
  filter?: string;
  /** `;`-separated paths to remove from each entity. */
  filterExclude?: string;
  /** `true` drops records without a match; default false. */
  onlyMatches?: boolean | string;
}

/** The normalised parameters of a plan; equal settings give equal exports. */
export interface ExportSettings {
  readonly format: ExportFormat;
  readonly exportspec: string | undefined;
  readonly exportseparator: string;
  readonly exportquery: boolean;
  readonly filter: string | undefined;
  readonly filterExclude: string | undefined;
  readonly onlyMatches: boolean;
}

export interface ExportPlan {
  readonly format: ExportFormat;
  /** The columns of csv / xls / xlsx exports and of the coverage report (computed for every format). */
  readonly columns: readonly ExportColumn[];
  readonly headers: readonly string[];
  readonly separator: string;
  readonly onlyMatches: boolean;
  /** Applied to every entity before export; undefined when there is nothing to filter. */
  readonly filter: EntityFilter | undefined;
  readonly settings: ExportSettings;
  /**
   * A stable string identifying what the export contains (all settings): two plans with the
   * same key produce the same file and the same coverage report. Use it to find an existing
   * report for "each export with a new spec/format" (docs/api.md#coverage-reports).
   */
  readonly key: string;
}

/** Most columns a sheet can hold: BIFF8 has 256 columns, Office Open XML 16,384. */
const MAX_COLUMNS: Partial<Record<ExportFormat, number>> = { xls: 256, xlsx: 16_384 };

/**
 * Validates and compiles download parameters.
 *
 * @throws InvalidParameterError naming the parameter: `format`, `exportspec` (unparsable
 *   column, duplicate header, more columns than the format holds), `filter`,
 *   `filterExclude`, `exportquery`, `onlyMatches` (not `true` / `false`).
 */
export function createExportPlan(options: ExportOptions = {}): ExportPlan {
  const format = parseExportFormat(options.format);
  const exportquery = parseFlag(options.exportquery, 'exportquery');
  const onlyMatches = parseFlag(options.onlyMatches, 'onlyMatches');
  const separator =
    options.exportseparator === undefined || options.exportseparator === '' ? ';' : options.exportseparator;
  const filter = parseEntityFilter(options.filter, options.filterExclude);
  const columns = exportColumns(options.exportspec, exportquery);
  const limit = MAX_COLUMNS[format];
  if (limit !== undefined && columns.length > limit) {
    throw new InvalidParameterError(
      'exportspec',
      `Invalid exportspec: ${columns.length} columns, but a ${format} sheet holds at most ${limit}`,
    );
  }
  const settings: ExportSettings = Object.freeze({
    format,
    exportspec: blankToUndefined(options.exportspec),
    exportseparator: separator,
    exportquery,
    filter: blankToUndefined(options.filter),
    filterExclude: blankToUndefined(options.filterExclude),
    onlyMatches,
  });
  return Object.freeze({
    format,
    columns,
    headers: Object.freeze(columns.map((column) => column.header)),
    separator,
    onlyMatches,
    filter,
    settings,
    key: JSON.stringify(settings),
  });
}

/** True when the plan's format writes rows and columns (csv, xls, xlsx). */
export function isColumnar(plan: ExportPlan): boolean {
  return EXPORT_FORMATS[plan.format].columnar;
}

function blankToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function parseFlag(value: boolean | string | undefined, parameter: string): boolean {
  if (value === undefined || typeof value === 'boolean') return value ?? false;
  const normalised = value.trim().toLowerCase();
  if (normalised === 'true') return true;
  if (normalised === 'false' || normalised === '') return false;
  throw new InvalidParameterError(
    parameter,
    `Invalid parameter '${parameter}': '${value}' is not true or false`,
  );
}

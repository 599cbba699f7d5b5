/**
 * `exportspec`: the columns of a csv / xls / xlsx export (docs/api.md#export-columns).
 *
 * Grammar: `;`-separated columns, each `path` or `path,Header`; empty elements are ignored
 * (`;` and `,` inside JSONPath brackets, parentheses or quotes do not separate). The header
 * defaults to the path as written. Paths are relative to the entity, in dot notation or
 * JSONPath (see `entity-path.ts`); list limits use slices: `allNames[:3]` or `$.allNames[:3]`
 * exports at most the first three names. A few paths are reserved:
 *
 * - `score`, `esscore`: the match's scores (from the `data` item, not the entity);
 * - `query.<path>`: a field of the submitted query record (`query.name`, `query.url[0]`);
 * - `customId`: the query's `customId`.
 *
 * Use JSONPath (`$.score`) to reach an entity field that has a reserved name.
 */
import { InvalidParameterError } from '../errors.ts';
// Not through kg/index.ts: that loads every normaliser (libphonenumber-js's 135 modules), and
// an export thread needs this list alone (thread start-up, bench/NOTES.md).
import { QUERY_FIELDS } from '../kg/query-fields.ts';
import type { EntityPath } from './entity-path.ts';
import { compileEntityPath } from './entity-path.ts';
import type { ExportEntity, ResultDataItem } from './result-record.ts';
import { splitTopLevel } from './split-expression.ts';

/** What a row is made from: one match (or none) of one record. */
export interface RowContext {
  readonly query: Readonly<Record<string, unknown>>;
  /** The `data` item of the match; undefined for the row of a record without a match. */
  readonly item: ResultDataItem | undefined;
  /** The (filtered) entity of the match; undefined for a record without a match. */
  readonly entity: ExportEntity | undefined;
}

/** Where a column reads its values. */
export type ColumnSource = 'entity' | 'match' | 'query';

/** One column of a columnar export. */
export interface ExportColumn {
  /** The header cell. */
  readonly header: string;
  /** The path as written in the spec (`query.name`, `score`, `$.locations[0]`, ...). */
  readonly path: string;
  readonly source: ColumnSource;
  /**
   * An entity column in dot notation: the entity member it reads under (`name` for `name`,
   * `name[0]`, `name.x`). Undefined for JSONPath, which may read anything, and other sources.
   */
  readonly entityMember?: string;
  /**
   * The one member the column reads when its path is a single name: of the match (`score`,
   * `esscore`), the query (`query.url`, `customId`) or the entity (`name`, not `name[0]` nor
   * JSONPath). Undefined otherwise. (Read by `summary-csv.ts`.)
   */
  readonly member?: string;
  /** The values this column selects for a row (empty when nothing). Never throws. */
  select(row: RowContext): unknown[];
}

const MATCH_FIELDS = new Set(['score', 'esscore']);
const DEFAULT_ENTITY_COLUMNS = ['id', 'name', 'type', 'score'];

/**
 * Parses `exportspec` into columns exactly as written. Returns `undefined` when the spec is
 * absent or has no column (the caller then uses the defaults, see `exportColumns`).
 *
 * @throws InvalidParameterError('exportspec') naming the bad column: an unparsable path, a
 *   column with more than one top-level `,`, or two columns with the same header.
 */
export function parseExportSpec(spec?: string): readonly ExportColumn[] | undefined {
  if (spec === undefined) return undefined;
  const columns: ExportColumn[] = [];
  const headers = new Set<string>();
  for (const element of splitTopLevel(spec, ';')) {
    if (element.trim() === '') continue;
    const parts = splitTopLevel(element, ',');
    if (parts.length > 2) {
      throw new InvalidParameterError(
        'exportspec',
        `Invalid exportspec column '${element.trim()}': expected 'path' or 'path,Header'`,
      );
    }
    const column = compileColumn(parts[0], parts[1]?.trim() || undefined);
    if (headers.has(column.header)) {
      throw new InvalidParameterError(
        'exportspec',
        `Invalid exportspec: duplicate column header '${column.header}'`,
      );
    }
    headers.add(column.header);
    columns.push(column);
  }
  return columns.length === 0 ? undefined : Object.freeze(columns);
}

/**
 * The final columns of an export:
 * - `exportquery=true`: the query fields (`query.type`, `query.name`, ..., `query.id`) and
 *   `customId` first, then the spec's columns (or `id`, `name`, `type`, `score`); a spec
 *   column whose header repeats a query column is dropped;
 * - otherwise the spec's columns, or by default `id`, `name`, `type`, `score` and the query
 *   fields, plus a `customId` column at the end when the spec has none, because `customId`
 *   appears in every export row (docs/api.md#enhance-query).
 *
 * @throws InvalidParameterError('exportspec') as `parseExportSpec`.
 */
export function exportColumns(spec: string | undefined, exportQuery: boolean): readonly ExportColumn[] {
  const parsed = parseExportSpec(spec);
  const queryColumns = [
    ...QUERY_FIELDS.map((field) => compileColumn(`query.${field}`)),
    compileColumn('customId'),
  ];
  let columns: ExportColumn[];
  if (exportQuery) {
    const body = parsed ?? DEFAULT_ENTITY_COLUMNS.map((path) => compileColumn(path));
    const prefix = new Set(queryColumns.map((column) => column.header));
    columns = [...queryColumns, ...body.filter((column) => !prefix.has(column.header))];
  } else {
    columns = parsed
      ? [...parsed]
      : [...DEFAULT_ENTITY_COLUMNS.map((path) => compileColumn(path)), ...queryColumns];
    if (!columns.some((column) => column.path === 'customId' || column.path === 'query.customId')) {
      columns.push(compileColumn('customId'));
    }
  }
  return Object.freeze(columns);
}

function compileColumn(rawPath: string, header?: string): ExportColumn {
  const path = rawPath.trim();
  if (path === '') throw new InvalidParameterError('exportspec', 'Invalid exportspec: a column has no path');
  const base = { header: header ?? path, path };
  if (MATCH_FIELDS.has(path)) {
    return Object.freeze({
      ...base,
      source: 'match' as const,
      member: path,
      select: (row: RowContext) => {
        const value = row.item?.[path];
        return value === undefined ? [] : [value];
      },
    });
  }
  if (path === 'customId' || path.startsWith('query.')) {
    const queryPath = compiled(path === 'customId' ? 'customId' : path.slice('query.'.length));
    return Object.freeze({
      ...base,
      source: 'query' as const,
      member: queryPath.member,
      select: (row: RowContext) => queryPath.values(row.query),
    });
  }
  const entityPath = compiled(path);
  return Object.freeze({
    ...base,
    source: 'entity' as const,
    entityMember: entityPath.notation === 'dot' ? path.split('.')[0].replace(/\[.*$/, '') : undefined,
    member: entityPath.member,
    select: (row: RowContext) => (row.entity === undefined ? [] : entityPath.values(row.entity)),
  });
}

function compiled(path: string): EntityPath {
  return compileEntityPath(path, 'exportspec');
}

/**
 * From result records to what the writers emit: filtered responses (json, jsonl) and rows
 * (csv, xls, xlsx, coverage report).
 */
import type { CellValue } from './cell-value.ts';
import { cellValue } from './cell-value.ts';
import { applyEntityFilter } from './entity-filter.ts';
import type { ExportPlan } from './export-plan.ts';
import type { RowContext } from './export-spec.ts';
import type { ExportEntity, ResultRecord, ResultResponse } from './result-record.ts';

/** One row of a columnar export, aligned with `plan.columns`. */
export type ExportRow = CellValue[];

/** A record with the plan's filter applied to each of its entities. */
export interface PreparedRecord {
  readonly record: ResultRecord;
  /** Aligned with `record.response.data`: the filtered entity, or null where the item has none. */
  readonly entities: readonly (ExportEntity | null)[];
}

/**
 * Applies the plan's filter to every entity of `record`. Returns `undefined` when the plan has
 * `onlyMatches` and the record has no match: the record is not exported.
 */
export function prepareRecord(record: ResultRecord, plan: ExportPlan): PreparedRecord | undefined {
  const filter = plan.filter;
  const entities = record.response.data.map((item) => {
    if (item.entity == null) return null;
    return filter === undefined ? item.entity : applyEntityFilter(item.entity, filter);
  });
  if (plan.onlyMatches && !entities.some((entity) => entity !== null)) return undefined;
  return { record, entities };
}

/** The response as json / jsonl exports write it: the original, with filtered entities. */
export function exportedResponse(prepared: PreparedRecord, plan: ExportPlan): ResultResponse {
  const response = prepared.record.response;
  if (plan.filter === undefined) return response;
  return {
    ...response,
    data: response.data.map((item, i) =>
      item.entity == null ? item : { ...item, entity: prepared.entities[i] },
    ),
  };
}

/**
 * The rows of a prepared record: one per matched entity, in response order; a record without
 * a match gives one row whose entity and score cells are empty (query cells are filled).
 */
export function preparedRows(prepared: PreparedRecord, plan: ExportPlan): ExportRow[] {
  const { record, entities } = prepared;
  const rows: ExportRow[] = [];
  for (let i = 0; i < entities.length; i++) {
    const entity = entities[i];
    if (entity !== null)
      rows.push(rowOf(plan, { query: record.query, item: record.response.data[i], entity }));
  }
  if (rows.length === 0) rows.push(rowOf(plan, { query: record.query, item: undefined, entity: undefined }));
  return rows;
}

/**
 * The rows `record` contributes to a columnar export under `plan` (filter, columns,
 * separator, `onlyMatches`): see `preparedRows`; none when `onlyMatches` drops the record.
 */
export function exportRows(record: ResultRecord, plan: ExportPlan): ExportRow[] {
  const prepared = prepareRecord(record, plan);
  return prepared === undefined ? [] : preparedRows(prepared, plan);
}

function rowOf(plan: ExportPlan, context: RowContext): ExportRow {
  const columns = plan.columns;
  const row: ExportRow = new Array(columns.length);
  for (let c = 0; c < columns.length; c++) row[c] = cellValue(columns[c].select(context), plan.separator);
  return row;
}

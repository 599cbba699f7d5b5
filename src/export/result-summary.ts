/**
 * The summary of a response: the part of it that the default export columns and the coverage
 * report read, kept beside a stored result so that a columnar export need not parse the whole
 * response (`JSON.parse` of each stored response was a third of a CSV export thread; a response
 * of an id job is ~1–3 KB, its summary ~0.2 KB).
 *
 * A summary is a response reduced to the query it echoes and, per `data` item, the scores and
 * the entity's `id`, `name` and `type` (an entity that is not an object is kept whole):
 * `{"request_ctx":{"query":…},"data":[{"score":…,"esscore":…,"entity":{"id":…,"name":…,"type":…}}]}`.
 * Every value in it is the value of the response, so a plan whose columns read nothing else
 * (`summaryServes`) makes the same rows, cells and coverage report from either.
 */
import type { ExportPlan } from './export-plan.ts';
import type { ResultResponse } from './result-record.ts';

/** The entity members a summary keeps. */
export const SUMMARY_ENTITY_FIELDS: readonly string[] = Object.freeze(['id', 'name', 'type']);
const KEPT = new Set(SUMMARY_ENTITY_FIELDS);

/** What a summary is made from: a response as it is serialised (the fields it reads). */
export interface SummarisedResponse {
  readonly request_ctx?: { readonly query?: unknown };
  readonly data?: readonly unknown[];
}

/**
 * The summary's JSON text. Built from the response object being stored, with `JSON.stringify`
 * on the very values the response's text holds, so parsing the summary gives what parsing the
 * response would for each of these members.
 */
export function responseSummary(response: SummarisedResponse): string {
  const data = Array.isArray(response.data) ? response.data : [];
  const items = new Array<unknown>(data.length);
  for (let i = 0; i < data.length; i++) items[i] = summaryItem(data[i]);
  return JSON.stringify({ request_ctx: { query: response.request_ctx?.query }, data: items });
}

function summaryItem(item: unknown): unknown {
  if (!isPlainObject(item)) return item;
  const { score, esscore, entity } = item as { score?: unknown; esscore?: unknown; entity?: unknown };
  return { score, esscore, entity: isPlainObject(entity) ? summaryEntity(entity) : entity };
}

/** The kept members as `JSON.stringify` sees them: own and enumerable. */
function summaryEntity(entity: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const field of SUMMARY_ENTITY_FIELDS)
    if (Object.prototype.propertyIsEnumerable.call(entity, field)) kept[field] = entity[field];
  return kept;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True when `plan` exports the same rows (and coverage report) from summaries as from whole
 * responses: no entity filter, and every column reads the match's scores, the query, or a dot
 * path into one of the entity members a summary keeps. A JSONPath column, a filter or any other
 * entity member needs the whole response.
 */
export function summaryServes(plan: ExportPlan): boolean {
  if (plan.filter !== undefined) return false;
  return plan.columns.every(
    (column) =>
      column.source !== 'entity' || (column.entityMember !== undefined && KEPT.has(column.entityMember)),
  );
}

/** A summary parsed: shaped as a response for the export's rows (only what a summary keeps). */
export function parseSummary(summary: string): ResultResponse {
  return JSON.parse(summary) as ResultResponse;
}

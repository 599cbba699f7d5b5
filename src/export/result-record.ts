/**
 * The records an export reads: bulk enhance results, one per input query, in input order.
 * Declared structurally so that `export/` depends on no other use case; anything shaped like
 * this (a stored bulk result, a synchronous enhance answer wrapped with its query) can be exported.
 */

/** An entity as the knowledge graph returns it (see `kg/entity.ts`): plain JSON with `id` and `type`. */
export type ExportEntity = Record<string, unknown>;

/** One match of an enhance response. `entity` is null when no entity was found. */
export interface ResultDataItem {
  score: number;
  esscore: number;
  entity: ExportEntity | null;
  errors?: string[];
  entity_ctx?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** A full enhance response (docs/api.md#enhance-response). */
export interface ResultResponse {
  version: number;
  hits: number;
  kgversion: string;
  request_ctx: { query: unknown; query_ctx: Record<string, unknown> };
  data: ResultDataItem[];
  errors: string[];
  searchInfo?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** One bulk enhance result: the submitted query and the enhance response it got. */
export interface ResultRecord {
  /** 0-based position of the query in the job. */
  index: number;
  /**
   * The submitted query record: `type`, `name` (string[]), `url` (string[]), `email` (string[]),
   * `phone`, `location`, `employer`, `title`, `school`, `description`, `ip`, `id`, `customId`;
   * any may be absent.
   */
  query: Record<string, unknown>;
  response: ResultResponse;
  /**
   * `JSON.stringify(response)`, when the reader has it already (a stored bulk result is JSON
   * text): json and jsonl exports without a filter write it as it is instead of serialising
   * `response` again, and need not read `response` at all when nothing else does.
   */
  text?: string;
  /**
   * The result's stored summary (`result-summary.ts`), when the reader read that instead of the
   * response (`response` is then the summary parsed): a CSV export reads a compact one directly
   * (`summary-csv.ts`).
   */
  summary?: string;
}

/** True when the record has at least one matched entity (what `onlyMatches` keeps). */
export function hasMatch(record: ResultRecord): boolean {
  return record.response.data.some((item) => item.entity != null);
}

/**
 * CSV rows straight from a result's compact summary (`result-summary.ts`), for plans whose
 * columns each read one member: of the entity (`id`, `name`, `type`: what a summary keeps), of
 * the match (`score`, `esscore`) or of the query (`query.<field>`, `customId`), with no filter:
 * the default columns of a bulk download. The summary's fields are encoded as CSV fields as they
 * are read, without the response objects, row arrays and cells of the general path
 * (`parseSummary`, `preparedRows`, `csvText`: ~2 µs of a CSV export thread's ~10 per row).
 *
 * The text is the very text of the general path: the same rows (one per matched entity, in
 * response order, or one without entity cells for a record without a match; none for such a
 * record under `onlyMatches`), each cell as `cellValue` then `csvField` make it:
 * - a string member is `csvField` of it (formula neutralised, quoted when needed);
 * - a number member (scores, a query's numbers) is the text the summary holds, `String` of the
 *   number when it was stored, which `String(Number(text))` gives back unchanged;
 * - a list member (`query.name`) is its non-empty strings joined with the separator, then `csvField`;
 * - a member the record does not have is empty.
 * A summary in JSON form is not read (`read` returns false): the caller takes the general path.
 */
import { csvField } from './csv-writer.ts';
import type { ExportPlan } from './export-plan.ts';

/** Where a column's cell comes from in a summary. */
const ID = 0;
const NAME = 1;
const TYPE = 2;
const SCORE = 3;
const ESSCORE = 4;
const QUERY = 5;

const ENTITY_KINDS: Readonly<Record<string, number>> = { id: ID, name: NAME, type: TYPE };
const MATCH_KINDS: Readonly<Record<string, number>> = { score: SCORE, esscore: ESSCORE };
const SEPARATOR = '\u001f';

/**
 * A reader of compact summaries into CSV text for one plan; `undefined` when a column reads
 * anything else than one member (see the module comment) or the plan has a filter.
 */
export function summaryCsv(plan: ExportPlan): SummaryCsv | undefined {
  if (plan.filter !== undefined) return undefined;
  const kinds: number[] = [];
  const queryColumns = new Map<string, number[]>();
  for (const column of plan.columns) {
    const member = column.member;
    if (member === undefined) return undefined;
    let kind: number | undefined;
    if (column.source === 'entity')
      kind = Object.hasOwn(ENTITY_KINDS, member) ? ENTITY_KINDS[member] : undefined;
    else if (column.source === 'match')
      kind = Object.hasOwn(MATCH_KINDS, member) ? MATCH_KINDS[member] : undefined;
    else kind = QUERY;
    if (kind === undefined) return undefined;
    if (kind === QUERY) {
      const columns = queryColumns.get(member);
      if (columns === undefined) queryColumns.set(member, [kinds.length]);
      else columns.push(kinds.length);
    }
    kinds.push(kind);
  }
  return new SummaryCsv(kinds, queryColumns, plan.separator, plan.onlyMatches);
}

/** See `summaryCsv`. After a `read` that returns true, its fields describe the record read. */
export class SummaryCsv {
  readonly #kinds: readonly number[];
  readonly #queryColumns: ReadonlyMap<string, readonly number[]>;
  readonly #separator: string;
  readonly #onlyMatches: boolean;
  /** The cells of the row being made, as CSV fields. */
  readonly #cells: string[];
  /** The record's rows, each followed by CRLF; '' when `onlyMatches` drops the record. */
  text = '';
  /** Rows in `text`. */
  rows = 0;
  /** The top match's (the first entity's) `id` and `name`, '' without a match (coverage reports). */
  topId = '';
  topName = '';
  /** Per column, whether the record's first row has the cell filled (coverage reports). */
  readonly filled: boolean[];

  constructor(
    kinds: readonly number[],
    queryColumns: ReadonlyMap<string, readonly number[]>,
    separator: string,
    onlyMatches: boolean,
  ) {
    this.#kinds = kinds;
    this.#queryColumns = queryColumns;
    this.#separator = separator;
    this.#onlyMatches = onlyMatches;
    this.#cells = kinds.map(() => '');
    this.filled = kinds.map(() => false);
  }

  /** Reads one stored summary; false (nothing read) when it is not in the compact form. */
  read(summary: string): boolean {
    if (summary.charCodeAt(0) !== 115 /* s */) return false;
    const fields = summary.split(SEPARATOR);
    if (fields[0] !== 's1') return false;
    const kinds = this.#kinds;
    const cells = this.#cells;
    for (let c = 0; c < kinds.length; c++) cells[c] = '';
    let at = 2;
    if (fields[1] === 't') at = 3;
    else at = this.#readQuery(fields);
    const items = Number(fields[at++]);
    let text = '';
    let rows = 0;
    this.topId = '';
    this.topName = '';
    for (let i = 0; i < items; i++) {
      if (fields[at] === 'z') {
        at += 3;
        continue;
      }
      for (let c = 0; c < kinds.length; c++) {
        const kind = kinds[c];
        if (kind < QUERY) cells[c] = kind >= SCORE ? fields[at + kind - 2] : csvField(fields[at + 3 + kind]);
      }
      if (rows === 0) {
        this.topId = fields[at + 3];
        this.topName = fields[at + 4];
        this.#markFilled();
      }
      text += `${cells.join(',')}\r\n`;
      rows++;
      at += 6;
    }
    if (rows === 0 && !this.#onlyMatches) {
      // A record without a match: one row, its entity and score cells empty.
      for (let c = 0; c < kinds.length; c++) if (kinds[c] < QUERY) cells[c] = '';
      this.#markFilled();
      text = `${cells.join(',')}\r\n`;
      rows = 1;
    }
    this.text = text;
    this.rows = rows;
    return true;
  }

  /** The query's members into their columns' cells; returns the index of the `data` count. */
  #readQuery(fields: readonly string[]): number {
    const cells = this.#cells;
    const count = Number(fields[2]);
    let at = 3;
    for (let m = 0; m < count; m++) {
      const columns = this.#queryColumns.get(fields[at]);
      const kind = fields[at + 1];
      let cell: string;
      if (kind === 's') {
        cell = columns === undefined ? '' : csvField(fields[at + 2]);
        at += 3;
      } else if (kind === 'n') {
        cell = fields[at + 2];
        at += 3;
      } else {
        const length = Number(fields[at + 2]);
        cell = columns === undefined ? '' : this.#listCell(fields, at + 3, length);
        at += 3 + length;
      }
      if (columns !== undefined) for (const c of columns) cells[c] = cell;
    }
    return at;
  }

  /** A list of strings as `cellValue` makes its cell (non-empty ones joined), as a CSV field. */
  #listCell(fields: readonly string[], from: number, length: number): string {
    if (length === 1) return csvField(fields[from]);
    let joined = '';
    let first = true;
    for (let i = from; i < from + length; i++) {
      const text = fields[i];
      if (text === '') continue;
      joined = first ? text : `${joined}${this.#separator}${text}`;
      first = false;
    }
    return csvField(joined);
  }

  #markFilled(): void {
    const cells = this.#cells;
    for (let c = 0; c < cells.length; c++) this.filled[c] = cells[c] !== '';
  }
}

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

/** Where the field starting at `from` ends: the next separator, or the end of the text. */
function fieldEnd(summary: string, from: number): number {
  const end = summary.indexOf(SEPARATOR, from);
  return end === -1 ? summary.length : end;
}

/** A count field (`String` of a length: decimal digits) between `from` and `end`. */
function count(summary: string, from: number, end: number): number {
  let value = 0;
  for (let i = from; i < end; i++) value = value * 10 + summary.charCodeAt(i) - 48;
  return value;
}

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
    // `s1` and a separator; a JSON summary starts with `{`. The fields are found with `indexOf`
    // rather than `split`: the kinds and counts are read where they are, not made into strings.
    if (summary.charCodeAt(0) !== 115 || summary.charCodeAt(1) !== 49 || summary.charCodeAt(2) !== 31)
      return false;
    const kinds = this.#kinds;
    const cells = this.#cells;
    for (let c = 0; c < kinds.length; c++) cells[c] = '';
    // The query: `t` and its text, or `o` and its members. Then the number of `data` items.
    let at = summary.charCodeAt(3) === 116 /* t */ ? fieldEnd(summary, 5) + 1 : this.#readQuery(summary);
    let end = fieldEnd(summary, at);
    const items = count(summary, at, end);
    at = end + 1;
    let text = '';
    let rows = 0;
    this.topId = '';
    this.topName = '';
    for (let i = 0; i < items; i++) {
      // `z`, score, esscore (an item whose entity is null), or `e`, score, esscore, id, name, type.
      const matched = summary.charCodeAt(at) === 101; /* e */
      const scoreEnd = fieldEnd(summary, at + 2);
      const esscoreEnd = fieldEnd(summary, scoreEnd + 1);
      if (!matched) {
        at = esscoreEnd + 1;
        continue;
      }
      const idEnd = fieldEnd(summary, esscoreEnd + 1);
      const nameEnd = fieldEnd(summary, idEnd + 1);
      end = fieldEnd(summary, nameEnd + 1);
      const id = summary.slice(esscoreEnd + 1, idEnd);
      const name = summary.slice(idEnd + 1, nameEnd);
      for (let c = 0; c < kinds.length; c++) {
        const kind = kinds[c];
        if (kind === ID) cells[c] = csvField(id);
        else if (kind === NAME) cells[c] = csvField(name);
        else if (kind === TYPE) cells[c] = csvField(summary.slice(nameEnd + 1, end));
        else if (kind === SCORE) cells[c] = summary.slice(at + 2, scoreEnd);
        else if (kind === ESSCORE) cells[c] = summary.slice(scoreEnd + 1, esscoreEnd);
      }
      if (rows === 0) {
        this.topId = id;
        this.topName = name;
        this.#markFilled();
      }
      text += `${cells.join(',')}\r\n`;
      rows++;
      at = end + 1;
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

  /** The query's members (from `o`) into their columns' cells; returns where the next field starts. */
  #readQuery(summary: string): number {
    const cells = this.#cells;
    let end = fieldEnd(summary, 5);
    const members = count(summary, 5, end);
    let at = end + 1;
    for (let m = 0; m < members; m++) {
      end = fieldEnd(summary, at);
      const columns = this.#queryColumns.get(summary.slice(at, end));
      // The member's kind: `s` and a string, `n` and a number, `a`, a count and that many strings.
      const kind = summary.charCodeAt(end + 1);
      at = end + 3;
      end = fieldEnd(summary, at);
      let cell = '';
      if (kind === 97 /* a */) {
        const length = count(summary, at, end);
        at = end + 1;
        if (columns !== undefined) {
          cell = this.#listCell(summary, at, length);
        }
        for (let i = 0; i < length; i++) at = fieldEnd(summary, at) + 1;
      } else {
        if (columns !== undefined) {
          const value = summary.slice(at, end);
          cell = kind === 115 /* s */ ? csvField(value) : value;
        }
        at = end + 1;
      }
      if (columns !== undefined) for (const c of columns) cells[c] = cell;
    }
    return at;
  }

  /** `length` strings from `at` as `cellValue` makes their cell (non-empty ones joined), as a CSV field. */
  #listCell(summary: string, at: number, length: number): string {
    let joined = '';
    let first = true;
    for (let i = 0; i < length; i++) {
      const end = fieldEnd(summary, at);
      if (end > at) {
        const text = summary.slice(at, end);
        joined = first ? text : `${joined}${this.#separator}${text}`;
        first = false;
      }
      at = end + 1;
    }
    return csvField(joined);
  }

  #markFilled(): void {
    const cells = this.#cells;
    for (let c = 0; c < cells.length; c++) this.filled[c] = cells[c] !== '';
  }
}

/**
 * CSV import: one record per row, turned into an entity record through a column mapping.
 *
 * - The first row holds the column headers. A column's *path* says where its cell goes in the
 *   entity: `name`, `homepageUri`, `location.city.name`, `employments.title`, … By default a
 *   column's path is its header, so a CSV whose headers already are field names needs no mapping.
 *   `--map "Company=name,Website=homepageUri,City=location.city.name"` gives paths to other
 *   headers; columns not in the map keep their header as path (unknown names become extra
 *   fields); `Header=-` ignores a column.
 * - Multi-value cells: in a list field (`allNames`, `allUris`, `origins`, `industries`,
 *   `ipRanges`, `phoneNumbers`, `emailAddresses`, `images`, `locations`, `employments`,
 *   `educations`, and `nameDetail.middleName`) a cell holds several values separated by `;`.
 *   For a list of objects the i-th value of every column of that list goes into its i-th
 *   element: `employments.employer.name` = `Acme;Globex` and `employments.title` = `CTO;Engineer`
 *   give two employments. `phoneNumbers`, `emailAddresses` and `images` alone are shorthands for
 *   `phoneNumbers.string`, `emailAddresses.contactString` and `images.url`.
 * - Numbers (`nbEmployees`, `importance`, latitudes, image sizes) and booleans (`isCurrent`,
 *   `primary`, `isCached`: true/false/yes/no/1/0) are converted; an unreadable cell rejects the
 *   row naming its column. Dates may be ISO dates (`1998`, `1998-05-17`).
 * - An empty cell states nothing. Without a `type` column (or with an empty one) rows take the
 *   import's `--type`.
 */
import { type Entity, EntityRejection, LIST_FIELDS } from '../kg/index.ts';

/** Where each column goes: header → path segments, or `null` to ignore the column. */
export type ColumnMapping = ReadonlyMap<string, readonly string[] | null>;

const SHORTHANDS: Readonly<Record<string, string>> = {
  phoneNumbers: 'string',
  emailAddresses: 'contactString',
  images: 'url',
};
const STRING_LISTS = new Set(['allNames', 'allUris', 'origins', 'industries', 'ipRanges']);
const NUMBER_LEAVES = new Set([
  'nbEmployees',
  'importance',
  'latitude',
  'longitude',
  'width',
  'height',
  'naturalWidth',
  'naturalHeight',
  'precision',
  'timestamp',
]);
const BOOLEAN_LEAVES = new Set(['isCurrent', 'isCached', 'primary']);

/**
 * Parses a `--map` spec: comma-separated `Header=path` pairs (`path` dotted, or `-` to ignore
 * the column). Throws a RangeError naming the bad pair.
 */
export function parseColumnMapping(spec: string): ColumnMapping {
  const mapping = new Map<string, readonly string[] | null>();
  for (const pair of spec.split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.lastIndexOf('=');
    if (eq <= 0 || eq === pair.length - 1) {
      throw new RangeError(`--map: "${pair.trim()}" is not Header=path`);
    }
    const header = pair.slice(0, eq).trim();
    const path = pair.slice(eq + 1).trim();
    mapping.set(header, path === '-' ? null : checkPath(path));
  }
  return mapping;
}

function checkPath(path: string): readonly string[] {
  const segments = path.split('.');
  if (segments.some((s) => s === '')) throw new RangeError(`--map: "${path}" is not a valid field path`);
  const [top] = segments;
  if (LIST_FIELDS.has(top) && !STRING_LISTS.has(top) && segments.length === 1 && !(top in SHORTHANDS)) {
    throw new RangeError(`--map: map ${top} to one of its fields, e.g. ${top}.${exampleField(top)}`);
  }
  return segments;
}

function exampleField(list: string): string {
  if (list === 'employments') return 'title';
  if (list === 'educations') return 'institution.name';
  return 'address';
}

/** The path of every column: the mapping's, else the header itself (`null`: ignored). */
export function columnPaths(
  headers: readonly string[],
  mapping: ColumnMapping,
): (readonly string[] | null)[] {
  return headers.map((header) => {
    const mapped = mapping.get(header);
    if (mapped !== undefined) return mapped;
    const trimmed = header.trim();
    if (trimmed === '') return null;
    try {
      return checkPath(trimmed);
    } catch {
      return [trimmed];
    }
  });
}

/**
 * Splits one CSV record (RFC 4180: `,` separated, `"` quoted, `""` an escaped quote, newlines
 * allowed inside quotes) into its cells. Throws EntityRejection on malformed quoting.
 */
export function parseCsvRecord(text: string): string[] {
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    if (text.charCodeAt(i) === 34) {
      let value = '';
      let from = i + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote === -1) throw new EntityRejection('unterminated quoted field');
        value += text.slice(from, quote);
        if (text.charCodeAt(quote + 1) === 34) {
          value += '"';
          from = quote + 2;
          continue;
        }
        i = quote + 1;
        break;
      }
      cells.push(value);
      if (i === text.length) return cells;
      if (text.charCodeAt(i) !== 44) {
        throw new EntityRejection(`unexpected character after a closing quote in cell ${cells.length}`);
      }
      i++;
    } else {
      const comma = text.indexOf(',', i);
      if (comma === -1) {
        cells.push(text.slice(i));
        return cells;
      }
      cells.push(text.slice(i, comma));
      i = comma + 1;
    }
  }
}

function convert(leaf: string, cell: string, header: string): unknown {
  if (NUMBER_LEAVES.has(leaf)) {
    const n = Number(cell);
    if (!Number.isFinite(n)) throw new EntityRejection(`column ${header}: "${cell}" is not a number`);
    return n;
  }
  if (BOOLEAN_LEAVES.has(leaf)) {
    const lower = cell.toLowerCase();
    if (lower === 'true' || lower === 'yes' || lower === '1') return true;
    if (lower === 'false' || lower === 'no' || lower === '0') return false;
    throw new EntityRejection(`column ${header}: "${cell}" is not a boolean (true/false)`);
  }
  return cell;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i++) {
    const next = node[path[i]];
    if (next === undefined || next === null || typeof next !== 'object' || Array.isArray(next)) {
      const created: Record<string, unknown> = {};
      node[path[i]] = created;
      node = created;
    } else {
      node = next as Record<string, unknown>;
    }
  }
  node[path[path.length - 1]] = value;
}

function splitValues(cell: string): string[] {
  return cell
    .split(';')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/**
 * Builds the entity record of one row. `defaultType` applies when the row has no type.
 * Throws EntityRejection naming the column whose cell cannot be converted.
 */
export function rowToRecord(
  headers: readonly string[],
  paths: readonly (readonly string[] | null)[],
  cells: readonly string[],
  defaultType: string | undefined,
): Record<string, unknown> {
  if (cells.length > headers.length) {
    throw new EntityRejection(`row has ${cells.length} cells but the header has ${headers.length} columns`);
  }
  const record: Record<string, unknown> = {};
  for (let c = 0; c < cells.length; c++) {
    const path = paths[c];
    const cell = cells[c].trim();
    if (path === null || cell === '') continue;
    const header = headers[c];
    const [top] = path;
    if (STRING_LISTS.has(top) && path.length === 1) {
      record[top] = [...((record[top] as string[] | undefined) ?? []), ...splitValues(cell)];
    } else if (LIST_FIELDS.has(top)) {
      const rest = path.length === 1 ? [SHORTHANDS[top]] : path.slice(1);
      if (!Array.isArray(record[top])) record[top] = [];
      const list = record[top] as Record<string, unknown>[];
      splitValues(cell).forEach((value, i) => {
        list[i] ??= {};
        setPath(list[i], rest, convert(rest[rest.length - 1], value, header));
      });
    } else if (path.length === 2 && top === 'nameDetail' && path[1] === 'middleName') {
      setPath(record, path, splitValues(cell));
    } else {
      setPath(record, path, convert(path[path.length - 1], cell, header));
    }
  }
  if ((record.type === undefined || record.type === '') && defaultType !== undefined)
    record.type = defaultType;
  return record as Entity;
}

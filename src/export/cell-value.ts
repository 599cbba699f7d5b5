/**
 * How selected values become one cell of a columnar export (csv, xls, xlsx).
 *
 * A column path selects zero or more values. They are flattened (lists inside lists too),
 * `null`/`undefined` and empty strings are skipped, and the rest are joined with the export
 * separator (`exportseparator`, default `;`):
 *
 * - nothing selected → empty cell (`''`);
 * - exactly one finite number → a numeric cell (written as a number in xls/xlsx, as
 *   JavaScript's shortest round-trip decimal in CSV, e.g. `0.87`);
 * - strings as they are; other numbers as decimals; booleans as `true` / `false`;
 * - an object is written as its label, the first that applies: `name` (linked entities:
 *   employer, city, institution), `contactString` (e-mail addresses), `string` (phone
 *   numbers), `url` (images), `address`, the names of `city`, `region`, `country` joined
 *   with `, ` (locations), `normalizedValue` (gender), `str` without its leading `d`
 *   (dates: `d1971-06-24` → `1971-06-24`); otherwise compact JSON (`{"a":1}`).
 *
 * Select inner fields explicitly (`employments.employer.name`) for anything else.
 */

/** A cell: text, or a number kept numeric for spreadsheets. `''` is an empty cell. */
export type CellValue = string | number;

/** Renders the values a column selected as one cell (see the module comment). */
export function cellValue(values: readonly unknown[], separator: string): CellValue {
  // Most cells of a bulk export select nothing (query fields the records do not have).
  if (values.length === 0) return '';
  if (values.length === 1) {
    const only = values[0];
    if (typeof only === 'number' && Number.isFinite(only)) return only;
    if (typeof only === 'string') return only;
  }
  const parts: string[] = [];
  for (const value of values) collect(value, parts);
  return parts.join(separator);
}

function collect(value: unknown, parts: string[]): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, parts);
    return;
  }
  const text = scalarText(value);
  if (text !== '') parts.push(text);
}

function scalarText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'object':
      return objectLabel(value as Record<string, unknown>);
    default:
      return '';
  }
}

const LABEL_FIELDS = ['name', 'contactString', 'string', 'url', 'address'] as const;
const PLACE_FIELDS = ['city', 'region', 'country'] as const;

function objectLabel(object: Record<string, unknown>): string {
  for (const field of LABEL_FIELDS) {
    const label = object[field];
    if (typeof label === 'string' && label !== '') return label;
  }
  const places = PLACE_FIELDS.map((field) => (object[field] as { name?: unknown } | undefined)?.name).filter(
    (name): name is string => typeof name === 'string' && name !== '',
  );
  if (places.length > 0) return places.join(', ');
  if (typeof object.normalizedValue === 'string') return object.normalizedValue;
  if (typeof object.str === 'string') return object.str.replace(/^d(?=[-\d])/, '');
  return JSON.stringify(object);
}

/** True when a cell holds something (what the coverage report counts as "has the field"). */
export function isFilled(cell: CellValue): boolean {
  return cell !== '';
}

/**
 * Turning an uploaded file into bulk enhance records (docs/console.md#bulk-jobs): CSV (with a
 * header row), a JSON array of objects, or JSON Lines; a mapping says which column holds each
 * query field, like the CLI's `--map` (`quarry bulk submit`).
 */

/** Query fields a bulk record may carry (docs/api.md#bulk-submission). */
export const RECORD_FIELDS = [
  'type',
  'id',
  'name',
  'url',
  'email',
  'phone',
  'location',
  'employer',
  'title',
  'school',
  'description',
  'ip',
  'customId',
] as const;

export type RecordField = (typeof RECORD_FIELDS)[number];

/** The rows of a file and the columns they have, in first-seen order. */
export interface Table {
  readonly columns: string[];
  readonly rows: Record<string, unknown>[];
}

function columnsOf(rows: Record<string, unknown>[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) columns.add(key);
  return [...columns];
}

function objectsOnly(values: unknown[], where: string): Record<string, unknown>[] {
  values.forEach((value, index) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      throw new Error(`${where} ${index + 1} is not an object`);
    }
  });
  return values as Record<string, unknown>[];
}

/**
 * Reads a file's text by its name: `.csv`, `.json`, `.jsonl`/`.ndjson`. The CSV parser is loaded
 * only when a CSV file comes (it is most of the console's code).
 */
export async function parseUpload(fileName: string, text: string): Promise<Table> {
  const extension = fileName.toLowerCase().split('.').pop() ?? '';
  if (extension === 'json') {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) throw new Error('A JSON file must hold an array of records');
    const rows = objectsOnly(value, 'Item');
    return { columns: columnsOf(rows), rows };
  }
  if (extension === 'jsonl' || extension === 'ndjson') {
    const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
    const rows = objectsOnly(
      lines.map((line, index) => {
        try {
          return JSON.parse(line) as unknown;
        } catch (error) {
          throw new Error(`Line ${index + 1} is not JSON: ${(error as Error).message}`);
        }
      }),
      'Line',
    );
    return { columns: columnsOf(rows), rows };
  }
  if (extension === 'csv' || extension === 'txt') {
    const { parse } = await import('csv-parse/browser/esm/sync');
    const rows = parse(text, {
      columns: true,
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
    }) as Record<string, string>[];
    return { columns: rows.length ? Object.keys(rows[0]) : [], rows };
  }
  throw new Error(`Cannot tell the format of "${fileName}": use .csv, .json or .jsonl`);
}

/** Each field taken from the column of the same name (case and spaces ignored), when there is one. */
export function defaultMapping(columns: readonly string[]): Partial<Record<RecordField, string>> {
  const mapping: Partial<Record<RecordField, string>> = {};
  for (const field of RECORD_FIELDS) {
    const column = columns.find((name) => name.trim().toLowerCase() === field.toLowerCase());
    if (column !== undefined) mapping[field] = column;
  }
  return mapping;
}

function cleaned(value: unknown): unknown {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    const items = value.map(cleaned).filter((item) => item !== undefined);
    return items.length ? items : undefined;
  }
  return undefined;
}

/**
 * The bulk records of `table`: each mapped field with a value; `type` from its column when it
 * says Organization or Person, otherwise `defaultType` (id records keep only what they carry).
 */
export function recordsOf(
  table: Table,
  mapping: Partial<Record<RecordField, string>>,
  defaultType: string,
): Record<string, unknown>[] {
  return table.rows.map((row) => {
    const record: Record<string, unknown> = {};
    for (const field of RECORD_FIELDS) {
      const column = mapping[field];
      const value = column === undefined ? undefined : cleaned(row[column]);
      if (value !== undefined) record[field] = value;
    }
    const type = typeof record.type === 'string' ? record.type.toLowerCase() : '';
    if (type === 'organization') record.type = 'Organization';
    else if (type === 'person') record.type = 'Person';
    else if (record.id === undefined) record.type = defaultType;
    else delete record.type;
    return record;
  });
}

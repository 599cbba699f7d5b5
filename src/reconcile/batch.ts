/**
 * Reading a batch of reconciliation queries (the 0.2 `queries` parameter, docs/reconcile.md#queries)
 * into enhance requests: the query text is a name, `properties` feed the enhance fields their
 * property maps to, `type` picks the entity types asked (both when absent), `limit` the number
 * of candidates. Bad input is a 400 naming the query key and the part that is wrong.
 */
import { type ParsedEnhanceRequest, parseEnhanceQuery, parseEntityType } from '../enhance/index.ts';
import { InvalidParameterError } from '../errors.ts';
import { jsonNestedDeeperThan, MAX_JSON_DEPTH } from '../json-depth.ts';
import { ENTITY_TYPES, type EntityType } from '../kg/index.ts';
import { propertyOf, type QueryField } from './properties.ts';

/** Candidates per query when the query gives no `limit`. */
export const DEFAULT_LIMIT = 5;
/** Most candidates per query. */
export const MAX_LIMIT = 25;
/** Most queries in one batch (OpenRefine sends 10). */
export const MAX_QUERIES = 100;

/** One query of a batch, ready to answer. */
export interface ReconcileQuery {
  /** Its key in the batch (`q0`…), which keys its result. */
  readonly key: string;
  readonly limit: number;
  /** One enhance request per entity type asked, size `limit`, threshold 0 (every candidate). */
  readonly requests: readonly ParsedEnhanceRequest[];
}

/** Fields that take several values; the others take the first (location: all, joined). */
const LIST_FIELDS = new Set<QueryField>(['name', 'url', 'email']);
/** Enhance fields a query of type Organization may not carry (`enhance/query.ts`). */
const PERSON_ONLY = new Set<QueryField>(['email', 'employer', 'title', 'school']);

function fail(parameter: string, message: string): never {
  throw new InvalidParameterError(parameter, `Invalid parameter '${parameter}': ${message}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Parses the `queries` parameter: JSON text of an object keyed by query key. */
export function parseBatch(raw: unknown): Map<string, unknown> {
  if (Array.isArray(raw) && raw.length === 1) return parseBatch(raw[0]);
  // A JSON body may carry the batch as an object rather than as JSON text.
  if (isObject(raw)) return batchOf(raw);
  if (typeof raw !== 'string' || raw.trim() === '')
    fail('queries', 'must be the JSON text of an object of queries');
  if (jsonNestedDeeperThan(raw, MAX_JSON_DEPTH))
    fail('queries', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    fail('queries', `not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(parsed)) fail('queries', 'must be a JSON object keyed by query key');
  return batchOf(parsed);
}

function batchOf(parsed: Record<string, unknown>): Map<string, unknown> {
  const entries = Object.entries(parsed);
  if (entries.length > MAX_QUERIES) fail('queries', `more than ${MAX_QUERIES} queries in one batch`);
  return new Map(entries);
}

/** The text of one property value (`{id, name}` of a reconciled cell: its name). */
function valueText(parameter: string, value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isObject(value)) {
    if (typeof value.name === 'string' && value.name.trim() !== '') return value.name.trim();
    if (typeof value.id === 'string' && value.id.trim() !== '') return value.id.trim();
  }
  return fail(parameter, 'a value must be a string, a number, a boolean or {id, name}');
}

function typesOf(parameter: string, value: unknown): EntityType[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  const types: EntityType[] = [];
  for (const item of items) {
    let type: EntityType | undefined;
    try {
      type = parseEntityType(item, { required: true });
    } catch {
      fail(parameter, `unknown type ${JSON.stringify(item)}: the types are Organization and Person`);
    }
    if (type && !types.includes(type)) types.push(type);
  }
  return types;
}

function limitOf(parameter: string, value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_LIMIT;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
    fail(parameter, `must be a positive integer (at most ${MAX_LIMIT} are returned)`);
  return Math.min(n, MAX_LIMIT);
}

/** The enhance fields a query's `properties` give, values in order. */
function fieldsOf(key: string, value: unknown): Map<QueryField, string[]> {
  const fields = new Map<QueryField, string[]>();
  if (value === undefined || value === null) return fields;
  if (!Array.isArray(value)) fail(`queries.${key}.properties`, 'must be an array of {pid, v}');
  value.forEach((item: unknown, i: number) => {
    const parameter = `queries.${key}.properties[${i}]`;
    if (!isObject(item) || typeof item.pid !== 'string') fail(parameter, 'must be an object {pid, v}');
    const property = propertyOf(item.pid);
    if (!property?.queryField) {
      fail(
        `${parameter}.pid`,
        `unknown property ${JSON.stringify(item.pid)}; GET /reconcile/suggest/property lists those a query may use`,
      );
    }
    const values = (Array.isArray(item.v) ? item.v : [item.v]).map((v) => valueText(`${parameter}.v`, v));
    const list = fields.get(property.queryField) ?? [];
    for (const text of values) if (text !== undefined && !list.includes(text)) list.push(text);
    fields.set(property.queryField, list);
  });
  return fields;
}

/** The enhance input of a query for one type. */
function enhanceInput(
  type: EntityType,
  text: string | undefined,
  fields: ReadonlyMap<QueryField, string[]>,
  limit: number,
): Record<string, unknown> {
  const input: Record<string, unknown> = { type, size: limit, threshold: 0 };
  const names = [...(text === undefined ? [] : [text]), ...(fields.get('name') ?? [])];
  if (names.length > 0) input.name = names;
  for (const [field, values] of fields) {
    if (field === 'name' || values.length === 0) continue;
    if (LIST_FIELDS.has(field)) input[field] = values;
    // "Mumbai" and "India" from two columns are one place to the matcher.
    else if (field === 'location') input.location = values.join(', ');
    else input[field] = values[0];
  }
  return input;
}

/** Reads one query of a batch. */
export function parseQuery(key: string, raw: unknown, maxSize: number): ReconcileQuery {
  if (!isObject(raw)) fail(`queries.${key}`, 'must be an object {query, type, limit, properties}');
  const text =
    raw.query === undefined || raw.query === null ? undefined : valueText(`queries.${key}.query`, raw.query);
  const limit = Math.min(limitOf(`queries.${key}.limit`, raw.limit), maxSize);
  const fields = fieldsOf(key, raw.properties);
  let types = typesOf(`queries.${key}.type`, raw.type);
  if (types.length === 0) {
    // No type: both, unless a field only a person has says which.
    const personOnly = [...fields.keys()].some((field) => PERSON_ONLY.has(field));
    types = personOnly ? ['Person'] : [...ENTITY_TYPES];
  }
  const requests = types.map((type) => {
    try {
      return parseEnhanceQuery(enhanceInput(type, text, fields, limit), 'post', { maxSize });
    } catch (error) {
      if (!(error instanceof InvalidParameterError)) throw error;
      throw new InvalidParameterError(`queries.${key}`, `Invalid query 'queries.${key}': ${error.message}`);
    }
  });
  return { key, limit, requests };
}

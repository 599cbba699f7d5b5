import ipaddr from 'ipaddr.js';
import { InvalidParameterError } from '../errors.ts';
import { CUSTOM_ID_FIELD, type EntityType, QUERY_LIST_FIELDS, QUERY_SCALAR_FIELDS } from '../kg/index.ts';

/**
 * An enhance query as submitted, validated and trimmed. List fields are always arrays (possibly
 * empty); absent scalar fields are `undefined`. This is what `request_ctx.query` echoes.
 */
export interface EnhanceQuery {
  /** Always present except on a bulk id record (`{"id": ...}`), whose entity decides it. */
  readonly type?: EntityType;
  readonly id?: string;
  readonly name: readonly string[];
  readonly url: readonly string[];
  readonly email: readonly string[];
  readonly phone?: string;
  readonly employer?: string;
  readonly title?: string;
  readonly school?: string;
  readonly location?: string;
  readonly description?: string;
  readonly ip?: string;
  readonly customId?: string;
}

/**
 * How a request searches the web (docs/api.md#refresh-and-search): `ON` (= `true`) merges
 * search evidence with the graph's candidates, `FALLBACK` searches only when the graph gives no
 * hit, `SEARCHONLY` ignores the graph, `OFF` (= `false`) never searches.
 */
export type SearchMode = 'ON' | 'OFF' | 'SEARCHONLY' | 'FALLBACK';

export const SEARCH_MODES: readonly SearchMode[] = ['ON', 'OFF', 'SEARCHONLY', 'FALLBACK'];

/**
 * A search mode from a parameter (`true`/`false`/`1`/`0` or a mode name, any case) or a stored
 * value (jobs stored before the modes kept a boolean). Throws a 400 naming `name` otherwise.
 */
export function parseSearchMode(value: unknown, name = 'search'): SearchMode {
  const raw = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (raw === undefined || raw === null || raw === '' || raw === false) return 'OFF';
  if (raw === true) return 'ON';
  if (typeof raw === 'string') {
    const upper = raw.trim().toUpperCase();
    if (upper === 'TRUE' || upper === '1') return 'ON';
    if (upper === 'FALSE' || upper === '0') return 'OFF';
    if ((SEARCH_MODES as readonly string[]).includes(upper)) return upper as SearchMode;
  }
  throw new InvalidParameterError(
    name,
    `Invalid parameter '${name}': must be true, false, ON, OFF, SEARCHONLY or FALLBACK`,
  );
}

/** Options of one enhance call (docs/api.md#enhance-query; defaults in #limits). */
export interface EnhanceOptions {
  /** Most results to return, 1–100 (default 1). */
  readonly size: number;
  /** Minimum score of a hit; `undefined` = the matcher's documented default. */
  readonly threshold?: number;
  readonly refresh: boolean;
  readonly search: SearchMode;
  readonly nonCanonicalFacts: boolean;
  readonly jsonmode?: 'extended';
  readonly filter?: string;
  readonly filterExclude?: string;
}

/** Where the parameters came from: decides which parameters are allowed and how they look. */
export type QuerySource = 'get' | 'post' | 'combine' | 'bulk-record';

export interface ParsedEnhanceRequest {
  readonly query: EnhanceQuery;
  readonly options: EnhanceOptions;
  /** Non-fatal remarks for the response's `errors` (e.g. ignored unknown parameters). */
  readonly warnings: readonly string[];
}

const LIST_FIELDS = QUERY_LIST_FIELDS;
const SCALAR_FIELDS = [...QUERY_SCALAR_FIELDS, CUSTOM_ID_FIELD] as const;
const PERSON_ONLY = new Set(['email', 'employer', 'title', 'school']);
const OPTION_FIELDS = [
  'size',
  'threshold',
  'refresh',
  'search',
  'nonCanonicalFacts',
  'jsonmode',
  'filter',
  'filterExclude',
] as const;
/** Parameters that travel with requests but are not query fields (auth, cache busters). */
const TRANSPORT_FIELDS = new Set(['token', 'type']);
/** Combine has no `id`, `size` or `description` (docs/api.md#combine). */
const NOT_IN_COMBINE = new Set(['id', 'size', 'description']);
/** Parameters a bulk record may carry (its options are the job's). */
const KNOWN_IN_RECORD: ReadonlySet<string> = new Set([...LIST_FIELDS, ...SCALAR_FIELDS, ...TRANSPORT_FIELDS]);
/** Parameters a request may carry: a record's and the options (built once, not per request). */
const KNOWN_IN_REQUEST: ReadonlySet<string> = new Set([...KNOWN_IN_RECORD, ...OPTION_FIELDS]);

/** Longest accepted value of one string field; longer input is a 400, not a slow query. */
export const MAX_FIELD_LENGTH = 2_000;
/** Most values in one list field. */
export const MAX_LIST_VALUES = 25;

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

function scalarString(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  let raw = value;
  if (Array.isArray(raw)) {
    if (raw.length === 0) return undefined;
    if (raw.length > 1)
      throw new InvalidParameterError(name, `Invalid parameter '${name}': give it only once`);
    raw = raw[0];
  }
  if (typeof raw === 'number' && Number.isFinite(raw) && (name === 'customId' || name === 'id')) {
    raw = String(raw);
  }
  if (typeof raw !== 'string') {
    throw new InvalidParameterError(
      name,
      `Invalid parameter '${name}': must be a string, got ${describe(raw)}`,
    );
  }
  const trimmed = raw.trim();
  if (trimmed.length > MAX_FIELD_LENGTH) {
    throw new InvalidParameterError(
      name,
      `Invalid parameter '${name}': longer than ${MAX_FIELD_LENGTH} characters`,
    );
  }
  return trimmed === '' ? undefined : trimmed;
}

function stringList(name: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  if (items.length > MAX_LIST_VALUES) {
    throw new InvalidParameterError(name, `Invalid parameter '${name}': more than ${MAX_LIST_VALUES} values`);
  }
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') {
      throw new InvalidParameterError(
        name,
        `Invalid parameter '${name}': must be a string or an array of strings, got ${describe(item)}`,
      );
    }
    const trimmed = item.trim();
    if (trimmed.length > MAX_FIELD_LENGTH) {
      throw new InvalidParameterError(
        name,
        `Invalid parameter '${name}': longer than ${MAX_FIELD_LENGTH} characters`,
      );
    }
    if (trimmed !== '' && !out.includes(trimmed)) out.push(trimmed);
  }
  return out;
}

function booleanParam(name: string, value: unknown): boolean {
  const raw = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (raw === undefined || raw === null || raw === '') return false;
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'string') {
    const lower = raw.trim().toLowerCase();
    if (lower === 'true' || lower === '1') return true;
    if (lower === 'false' || lower === '0') return false;
  }
  throw new InvalidParameterError(name, `Invalid parameter '${name}': must be true or false`);
}

function numberParam(name: string, value: unknown): number | undefined {
  const raw = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!Number.isFinite(n))
    throw new InvalidParameterError(name, `Invalid parameter '${name}': must be a number`);
  return n;
}

/** Parses `type` (case-insensitively, as clients vary) or throws a 400 naming it. */
export function parseEntityType(value: unknown, options: { required: boolean }): EntityType | undefined {
  const raw = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (raw === undefined || raw === null || raw === '') {
    if (options.required) {
      throw new InvalidParameterError('type', "Missing parameter 'type': must be Person or Organization");
    }
    return undefined;
  }
  if (typeof raw === 'string') {
    const lower = raw.trim().toLowerCase();
    if (lower === 'person') return 'Person';
    if (lower === 'organization' || lower === 'organisation') return 'Organization';
  }
  throw new InvalidParameterError(
    'type',
    `Invalid parameter 'type': must be Person or Organization, got ${JSON.stringify(raw)}`,
  );
}

/** Parses the options part (size, threshold, flags, filters) of a request. */
export function parseEnhanceOptions(input: Readonly<Record<string, unknown>>, maxSize = 100): EnhanceOptions {
  const size = numberParam('size', input.size) ?? 1;
  if (!Number.isInteger(size) || size < 1 || size > maxSize) {
    throw new InvalidParameterError(
      'size',
      `Invalid parameter 'size': must be an integer from 1 to ${maxSize}`,
    );
  }
  const threshold = numberParam('threshold', input.threshold);
  if (threshold !== undefined && (threshold < 0 || threshold > 1)) {
    throw new InvalidParameterError('threshold', "Invalid parameter 'threshold': must be between 0 and 1");
  }
  const jsonmodeRaw = scalarString('jsonmode', input.jsonmode);
  if (jsonmodeRaw !== undefined && jsonmodeRaw !== 'extended') {
    throw new InvalidParameterError('jsonmode', "Invalid parameter 'jsonmode': the only value is 'extended'");
  }
  return {
    size,
    threshold,
    refresh: booleanParam('refresh', input.refresh),
    search: parseSearchMode(input.search),
    nonCanonicalFacts: booleanParam('nonCanonicalFacts', input.nonCanonicalFacts),
    jsonmode: jsonmodeRaw === 'extended' ? 'extended' : undefined,
    filter: scalarString('filter', input.filter),
    filterExclude: scalarString('filterExclude', input.filterExclude),
  };
}

/**
 * Validates an enhance query from any source: GET query string, POST body, combine, or one
 * bulk record. Throws `InvalidParameterError` naming the parameter (docs/api.md#enhance-query):
 * unknown `type`, a Person-only field on an Organization, wrong value types, no identifying field,
 * `size` outside 1–100, `threshold` outside [0, 1].
 */
export function parseEnhanceQuery(
  input: Readonly<Record<string, unknown>>,
  source: QuerySource,
  options: { defaultType?: EntityType; maxSize?: number } = {},
): ParsedEnhanceRequest {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new InvalidParameterError('body', `The query must be a JSON object, got ${describe(input)}`);
  }
  const warnings: string[] = [];
  const type =
    parseEntityType(input.type, { required: source !== 'bulk-record' || input.id === undefined }) ??
    options.defaultType;
  if (source === 'combine' && type !== 'Person') {
    throw new InvalidParameterError('type', "Invalid parameter 'type': combine accepts only Person");
  }

  const known = source === 'bulk-record' ? KNOWN_IN_RECORD : KNOWN_IN_REQUEST;
  for (const name of Object.keys(input)) {
    if (source === 'combine' && NOT_IN_COMBINE.has(name)) {
      throw new InvalidParameterError(name, `Invalid parameter '${name}': combine does not accept it`);
    }
    if (!known.has(name)) warnings.push(`Unknown parameter '${name}' was ignored`);
  }

  // Plain loops (no entries arrays, closures or spreads): this runs on the main thread for
  // every enhance request and in the bulk workers for every record (bench/NOTES.md, issue 30).
  const lists = {} as Record<(typeof LIST_FIELDS)[number], string[]>;
  for (const name of LIST_FIELDS) lists[name] = stringList(name, input[name]);
  const scalars: Record<string, string | undefined> = {};
  for (const name of SCALAR_FIELDS) scalars[name] = scalarString(name, input[name]);

  if (type === 'Organization') {
    for (const name of PERSON_ONLY) {
      const present = name === 'email' ? lists.email.length > 0 : scalars[name] !== undefined;
      if (present) {
        throw new InvalidParameterError(name, `Invalid parameter '${name}': applies to type Person only`);
      }
    }
  }
  if (scalars.ip !== undefined && !ipaddr.isValid(scalars.ip)) {
    throw new InvalidParameterError(
      'ip',
      `Invalid parameter 'ip': ${JSON.stringify(scalars.ip)} is not an IP address`,
    );
  }
  const identifying =
    scalars.id !== undefined ||
    lists.name.length > 0 ||
    lists.url.length > 0 ||
    lists.email.length > 0 ||
    scalars.phone !== undefined ||
    scalars.ip !== undefined;
  if (!identifying) {
    throw new InvalidParameterError(
      'query',
      'The query has no identifying field: give at least one of id, name, url, email, phone or ip',
    );
  }

  // Keys in this order: type, id, name, url, email, then the other scalars as SCALAR_FIELDS lists them.
  const query: Record<string, unknown> = {};
  // Only an id record of a bulk job may omit its type (checked above): the entity decides it.
  if (type !== undefined) query.type = type;
  if (scalars.id !== undefined) query.id = scalars.id;
  query.name = lists.name;
  query.url = lists.url;
  query.email = lists.email;
  for (const name of SCALAR_FIELDS) {
    const value = scalars[name];
    if (name !== 'id' && value !== undefined) query[name] = value;
  }
  const parsedOptions =
    source === 'bulk-record'
      ? { size: 1, refresh: false, search: 'OFF' as const, nonCanonicalFacts: false }
      : parseEnhanceOptions(input, options.maxSize);
  return { query: query as unknown as EnhanceQuery, options: parsedOptions, warnings };
}

/** The query as echoed in `request_ctx.query`: absent and empty fields omitted. */
export function echoQuery(query: EnhanceQuery): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = value;
  }
  return out;
}

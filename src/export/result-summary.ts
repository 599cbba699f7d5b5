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
 *
 * It is stored in one of two forms, told apart by the first character:
 * - the compact form (`s1␟…`, see `compactSummary`), read by splitting the text on U+001F
 *   instead of by a JSON parser: what nearly every response is stored as since it exists
 *   (parsing JSON summaries was 16% of a CSV export thread; splitting costs a third of it);
 * - JSON (`{…}`, `jsonSummary`): results stored before the compact form, and responses it cannot
 *   represent (a member that is not a string, number or list of strings, a text holding U+001F).
 * `parseSummary` reads both into the same object.
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
 * The summary's text as stored: the compact form when it can represent the response, else
 * JSON. `parseSummary` of it gives what `JSON.parse(jsonSummary(response))` gives.
 */
export function responseSummary(response: SummarisedResponse): string {
  return compactSummary(response) ?? jsonSummary(response);
}

/**
 * The summary's JSON text (the only form before the compact one). Built from the response
 * object being stored, with `JSON.stringify` on the very values the response's text holds, so
 * parsing the summary gives what parsing the response would for each of these members.
 */
export function jsonSummary(response: SummarisedResponse): string {
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

/** Separates the fields of the compact form; a text holding it is stored as JSON instead. */
const SEPARATOR = '\u001f';
/** The compact form's first field: its name and version (a JSON summary starts with `{`). */
const COMPACT_MARK = 's1';

/**
 * The compact form, or `undefined` when it cannot represent the response. Fields joined by
 * U+001F: `s1`; the query, `t` and its text, or `o`, its member count, then per member its key
 * and `s` and a string, `n` and a finite number, or `a`, a count and that many strings; the
 * number of `data` items, then per item `e`, score, esscore, entity id, name and type (all
 * strings), or `z`, score, esscore for an item whose entity is null. Numbers are written with
 * `String` and read with `Number`: the same double (as `JSON.stringify`, `-0` reads as `0`).
 * Anything else (another value kind, a missing score or entity member, a key `__proto__`, a
 * text holding U+001F) gives `undefined`.
 */
export function compactSummary(response: SummarisedResponse): string | undefined {
  const parts: string[] = [COMPACT_MARK];
  const query = response.request_ctx?.query;
  if (typeof query === 'string') {
    if (!plainText(query)) return undefined;
    parts.push('t', query);
  } else if (isPlainObject(query)) {
    if (!compactQuery(query, parts)) return undefined;
  } else {
    return undefined;
  }
  const data = Array.isArray(response.data) ? response.data : [];
  parts.push(String(data.length));
  for (const item of data) if (!compactItem(item, parts)) return undefined;
  return parts.join(SEPARATOR);
}

function compactQuery(query: Record<string, unknown>, parts: string[]): boolean {
  const keys = Object.keys(query);
  parts.push('o', String(keys.length));
  for (const key of keys) {
    const value = query[key];
    if (key === '__proto__' || !plainText(key)) return false;
    if (typeof value === 'string') {
      if (!plainText(value)) return false;
      parts.push(key, 's', value);
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return false;
      parts.push(key, 'n', String(value));
    } else if (Array.isArray(value)) {
      parts.push(key, 'a', String(value.length));
      for (const text of value) {
        if (typeof text !== 'string' || !plainText(text)) return false;
        parts.push(text);
      }
    } else {
      return false;
    }
  }
  return true;
}

function compactItem(item: unknown, parts: string[]): boolean {
  if (!isPlainObject(item)) return false;
  const { score, esscore, entity } = item as { score?: unknown; esscore?: unknown; entity?: unknown };
  if (typeof score !== 'number' || !Number.isFinite(score)) return false;
  if (typeof esscore !== 'number' || !Number.isFinite(esscore)) return false;
  if (entity === null) {
    parts.push('z', String(score), String(esscore));
    return true;
  }
  if (!isPlainObject(entity)) return false;
  const id = ownText(entity, 'id');
  const name = ownText(entity, 'name');
  const type = ownText(entity, 'type');
  if (id === undefined || name === undefined || type === undefined) return false;
  parts.push('e', String(score), String(esscore), id, name, type);
  return true;
}

/** `entity[field]` when it is an own enumerable string without U+001F (what JSON would keep). */
function ownText(entity: Record<string, unknown>, field: string): string | undefined {
  if (!Object.prototype.propertyIsEnumerable.call(entity, field)) return undefined;
  const value = entity[field];
  return typeof value === 'string' && plainText(value) ? value : undefined;
}

function plainText(text: string): boolean {
  return !text.includes(SEPARATOR);
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

/**
 * A summary parsed, in either form: shaped as a response for the export's rows (only what a
 * summary keeps), the same object (members in the same order) as `JSON.parse` of its JSON form.
 */
export function parseSummary(summary: string): ResultResponse {
  if (summary.charCodeAt(0) === 123 /* { */) return JSON.parse(summary) as ResultResponse;
  return readCompact(summary.split(SEPARATOR));
}

function readCompact(fields: string[]): ResultResponse {
  if (fields[0] !== COMPACT_MARK) throw new Error(`not a result summary: ${fields[0].slice(0, 20)}`);
  let at = 2;
  let query: unknown;
  if (fields[1] === 't') {
    query = fields[at++];
  } else {
    const members: Record<string, unknown> = {};
    const count = Number(fields[at++]);
    for (let m = 0; m < count; m++) {
      const key = fields[at++];
      const kind = fields[at++];
      if (kind === 's') {
        members[key] = fields[at++];
      } else if (kind === 'n') {
        members[key] = Number(fields[at++]);
      } else {
        const texts = new Array<string>(Number(fields[at++]));
        for (let i = 0; i < texts.length; i++) texts[i] = fields[at++];
        members[key] = texts;
      }
    }
    query = members;
  }
  const data = new Array<unknown>(Number(fields[at++]));
  for (let i = 0; i < data.length; i++) {
    const kind = fields[at];
    const score = Number(fields[at + 1]);
    const esscore = Number(fields[at + 2]);
    if (kind === 'z') {
      data[i] = { score, esscore, entity: null };
      at += 3;
    } else {
      data[i] = {
        score,
        esscore,
        entity: { id: fields[at + 3], name: fields[at + 4], type: fields[at + 5] },
      };
      at += 6;
    }
  }
  return { request_ctx: { query }, data } as unknown as ResultResponse;
}

/**
 * Data extension (docs/reconcile.md#data-extension): the values of chosen properties for
 * reconciled ids, property proposals per type, and suggest over types and properties.
 */
import { InvalidParameterError } from '../errors.ts';
import { jsonNestedDeeperThan, MAX_JSON_DEPTH } from '../json-depth.ts';
import { ENTITY_TYPES, type Entity, type EntityType } from '../kg/index.ts';
import {
  type ExtensionValue,
  PROPERTIES,
  propertiesOfType,
  propertyOf,
  type ReconcileProperty,
} from './properties.ts';

/** Most ids in one extension request (OpenRefine sends batches of 10). */
export const MAX_EXTEND_IDS = 1_000;
/** Most properties in one extension request. */
export const MAX_EXTEND_PROPERTIES = 50;

/** A parsed `extend` request: the ids, and the properties in the order asked. */
export interface ExtendRequest {
  readonly ids: readonly string[];
  readonly properties: readonly ReconcileProperty[];
}

/** A data extension response (0.2 `data-extension-response.json`). */
export interface ExtendResponse {
  meta: { id: string; name: string; type?: { id: string; name: string } }[];
  rows: Record<string, Record<string, ExtensionValue[]>>;
}

function fail(parameter: string, message: string): never {
  throw new InvalidParameterError(parameter, `Invalid parameter '${parameter}': ${message}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function jsonOf(raw: unknown, parameter: string): unknown {
  if (Array.isArray(raw) && raw.length === 1) return jsonOf(raw[0], parameter);
  if (isObject(raw)) return raw;
  if (typeof raw !== 'string' || raw.trim() === '') fail(parameter, 'must be the JSON text of an object');
  if (jsonNestedDeeperThan(raw, MAX_JSON_DEPTH))
    fail(parameter, `JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(raw);
  } catch (error) {
    return fail(parameter, `not valid JSON (${(error as Error).message})`);
  }
}

/** Reads the `extend` parameter: `{"ids": [...], "properties": [{"id": ...}, ...]}`. */
export function parseExtendRequest(raw: unknown): ExtendRequest {
  const parsed = jsonOf(raw, 'extend');
  if (!isObject(parsed)) fail('extend', 'must be an object {ids, properties}');
  const { ids, properties } = parsed;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
    fail('extend.ids', 'must be an array of entity ids');
  if (ids.length > MAX_EXTEND_IDS) fail('extend.ids', `more than ${MAX_EXTEND_IDS} ids`);
  if (!Array.isArray(properties) || properties.length === 0)
    fail('extend.properties', 'must be a non-empty array of {id}');
  if (properties.length > MAX_EXTEND_PROPERTIES)
    fail('extend.properties', `more than ${MAX_EXTEND_PROPERTIES} properties`);
  const chosen = properties.map((item: unknown, i: number) => {
    const id = isObject(item) ? item.id : undefined;
    const property = typeof id === 'string' ? propertyOf(id) : undefined;
    if (!property?.extract) {
      fail(
        `extend.properties[${i}].id`,
        `unknown property ${JSON.stringify(id)}; GET /reconcile/properties?type=… lists them`,
      );
    }
    return property;
  });
  return { ids: [...new Set(ids as string[])], properties: chosen };
}

/** The extension of `request` over the entities found (absent ids get empty values). */
export function extendResponse(
  request: ExtendRequest,
  found: ReadonlyMap<string, { doc: Entity }>,
): ExtendResponse {
  const meta = request.properties.map((p) => ({
    // The id as the client sent it is how it finds the column: ours, normalised.
    id: p.id,
    name: p.name,
    ...(p.valueType ? { type: { id: p.valueType, name: p.valueType } } : {}),
  }));
  const rows = request.ids.map((id): [string, Record<string, ExtensionValue[]>] => {
    const entity = found.get(id)?.doc;
    const values = request.properties.map((p): [string, ExtensionValue[]] => [
      p.id,
      entity && p.types.includes(entity.type) ? p.extract!(entity) : [],
    ]);
    return [id, Object.fromEntries(values)];
  });
  // fromEntries defines own properties: an id such as `__proto__` stays data.
  return { meta, rows: Object.fromEntries(rows) };
}

/** A property as proposals and suggest list it. */
export interface PropertyEntry {
  id: string;
  name: string;
  description: string;
}

function entryOf(property: ReconcileProperty): PropertyEntry {
  return { id: property.id, name: property.name, description: property.description };
}

/** `GET /reconcile/properties?type=…&limit=…` (0.2 `data-extension-property-proposal.json`). */
export function proposeProperties(type: EntityType, limit: number | undefined) {
  const properties = propertiesOfType(type)
    .filter((p) => p.extract)
    .map(entryOf);
  return {
    type,
    ...(limit !== undefined ? { limit } : {}),
    properties: limit !== undefined ? properties.slice(0, limit) : properties,
  };
}

function startsWith(words: readonly string[], prefix: string): boolean {
  const folded = prefix.trim().toLowerCase();
  return folded === '' || words.some((word) => word.toLowerCase().startsWith(folded));
}

/** Properties whose id, name, a word of the name, or an alias starts with `prefix`. */
export function suggestProperties(prefix: string): PropertyEntry[] {
  return PROPERTIES.filter((p) =>
    startsWith([p.id, p.name, ...p.name.split(/\s+/), ...(p.aliases ?? [])], prefix),
  ).map(entryOf);
}

/** Types whose name starts with `prefix`. */
export function suggestTypes(prefix: string): { id: string; name: string }[] {
  return ENTITY_TYPES.filter((t) => startsWith([t], prefix)).map((t) => ({ id: t, name: t }));
}

/**
 * `refreshDelta` (docs/api.md#refresh-and-search): what a refresh changed in an entity, field by
 * field, against the entity as it was before. A list field whose elements only moved did not
 * change (each statement of a source puts its own first). Pure.
 */
import { type Entity, LIST_FIELDS, structuralKey } from '../kg/index.ts';

/** `{"added": {field: value}, "changed": {field: {old, new}}, "removed": [field]}`. */
export interface RefreshDelta {
  readonly added: Record<string, unknown>;
  readonly changed: Record<string, { readonly old: unknown; readonly new: unknown }>;
  readonly removed: string[];
}

/** Fields never reported: the identity, and what is derived from the other fields. */
const IGNORED = new Set(['id', 'type', 'nonCanonicalFacts']);

/** The fields `after` adds, changes and removes relative to `before` (top-level fields). */
export function refreshDelta(before: Entity, after: Entity): RefreshDelta {
  const delta: RefreshDelta = { added: {}, changed: {}, removed: [] };
  for (const field of Object.keys(after)) {
    if (IGNORED.has(field) || after[field] === undefined) continue;
    if (before[field] === undefined) delta.added[field] = after[field];
    else if (valueKey(field, before[field]) !== valueKey(field, after[field])) {
      delta.changed[field] = { old: before[field], new: after[field] };
    }
  }
  for (const field of Object.keys(before)) {
    if (!IGNORED.has(field) && before[field] !== undefined && after[field] === undefined)
      delta.removed.push(field);
  }
  return delta;
}

/** A value as comparable text; a list field's elements in any order (sources reorder them). */
function valueKey(field: string, value: unknown): string {
  if (LIST_FIELDS.has(field) && Array.isArray(value)) return value.map(structuralKey).sort().join('\n');
  return structuralKey(value);
}

/** True when a delta says nothing changed. */
export function isEmptyDelta(delta: RefreshDelta): boolean {
  return (
    Object.keys(delta.added).length === 0 &&
    Object.keys(delta.changed).length === 0 &&
    delta.removed.length === 0
  );
}

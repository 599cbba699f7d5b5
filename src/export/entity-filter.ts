/**
 * `filter` / `filterExclude` (docs/api.md#filters):
 * reduce an entity to what a list of paths selects, or remove what they select.
 */
import type { EntityPath, PathLocation } from './entity-path.ts';
import { compileEntityPath } from './entity-path.ts';
import type { ExportEntity } from './result-record.ts';
import { splitTopLevel } from './split-expression.ts';

/** A compiled `filter` / `filterExclude` pair. Immutable; apply it to any number of entities. */
export interface EntityFilter {
  /** Paths of `filter`: what to keep. Undefined when `filter` was empty. */
  readonly keep: readonly EntityPath[] | undefined;
  /** Paths of `filterExclude`: what to remove. Undefined when `filterExclude` was empty. */
  readonly remove: readonly EntityPath[] | undefined;
}

/**
 * Fields a filtered entity always keeps, so that results stay identifiable (docs/api.md#filters).
 */
const ALWAYS_KEPT = ['id', 'type'] as const;

/**
 * Compiles `filter` and `filterExclude`: each a `;`-separated list of paths relative to the
 * entity, in dot notation or JSONPath (see `entity-path.ts`). Empty elements (a trailing `;`)
 * are ignored. Returns `undefined` when both are absent or empty, meaning "no filtering".
 *
 * @throws InvalidParameterError (`filter` or `filterExclude`) quoting the first path that
 *   cannot be parsed.
 */
export function parseEntityFilter(filter?: string, filterExclude?: string): EntityFilter | undefined {
  const keep = compilePaths(filter, 'filter');
  const remove = compilePaths(filterExclude, 'filterExclude');
  if (keep === undefined && remove === undefined) return undefined;
  return Object.freeze({ keep, remove });
}

function compilePaths(list: string | undefined, parameter: string): readonly EntityPath[] | undefined {
  if (list === undefined) return undefined;
  const paths = splitTopLevel(list, ';')
    .filter((part) => part.trim() !== '')
    .map((part) => compileEntityPath(part, parameter));
  return paths.length === 0 ? undefined : Object.freeze(paths);
}

/**
 * Returns a new entity reduced by `filter`: `keep` first (only the selected values remain, in
 * their original place: nested objects and arrays are pruned to what the paths select, array
 * elements keep their relative order, object keys their order), then `remove` (the selected
 * values are deleted; an object or array that this leaves empty is deleted too, since entities
 * omit absent facts rather than carry empty ones). `id` and `type` are always kept.
 *
 * The input is not modified. The result shares unmodified sub-objects with the input, so treat
 * both as read-only (they are serialised straight away in practice).
 */
export function applyEntityFilter(entity: ExportEntity, filter: EntityFilter): ExportEntity {
  let result = entity;
  if (filter.keep !== undefined) {
    const selection = select(result, filter.keep);
    for (const field of ALWAYS_KEPT) if (Object.hasOwn(result, field)) insert(selection, [field]);
    result = keepSelected(result, selection) as ExportEntity;
  }
  if (filter.remove !== undefined) {
    const selection = select(result, filter.remove);
    if (selection.whole) {
      result = pick(result, ALWAYS_KEPT);
    } else {
      for (const field of ALWAYS_KEPT) selection.children?.delete(field);
      const reduced = removeSelected(result, selection);
      result = reduced === REMOVED ? pick(result, ALWAYS_KEPT) : (reduced as ExportEntity);
    }
  }
  return result;
}

/** A trie of selected locations; `whole` means everything below this node is selected. */
interface Selection {
  whole: boolean;
  children: Map<string | number, Selection> | undefined;
}

function select(entity: ExportEntity, paths: readonly EntityPath[]): Selection {
  const root: Selection = { whole: false, children: undefined };
  for (const path of paths) path.visit(entity, (location) => insert(root, location));
  return root;
}

function insert(root: Selection, location: PathLocation): void {
  let node = root;
  for (const key of location) {
    if (node.whole) return;
    node.children ??= new Map();
    let child = node.children.get(key);
    if (child === undefined) {
      child = { whole: false, children: undefined };
      node.children.set(key, child);
    }
    node = child;
  }
  node.whole = true;
  node.children = undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function keepSelected(value: unknown, selection: Selection): unknown {
  const children = selection.children;
  if (selection.whole || children === undefined) return value;
  if (Array.isArray(value)) {
    const indices = [...children.keys()]
      .filter((k): k is number => typeof k === 'number')
      .sort((a, b) => a - b);
    return indices.map((i) => keepSelected(value[i], children.get(i)!));
  }
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const child = children.get(key);
      if (child !== undefined) out[key] = keepSelected(value[key], child);
    }
    return out;
  }
  return value;
}

const REMOVED: unique symbol = Symbol('removed');

function removeSelected(value: unknown, selection: Selection): unknown {
  const children = selection.children;
  if (selection.whole) return REMOVED;
  if (children === undefined || children.size === 0) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const child = children.get(i);
      const kept = child === undefined ? value[i] : removeSelected(value[i], child);
      if (kept !== REMOVED) out.push(kept);
    }
    return out.length === 0 ? REMOVED : out;
  }
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    let size = 0;
    for (const key of Object.keys(value)) {
      const child = children.get(key);
      const kept = child === undefined ? value[key] : removeSelected(value[key], child);
      if (kept !== REMOVED) {
        out[key] = kept;
        size++;
      }
    }
    return size === 0 ? REMOVED : out;
  }
  return value;
}

function pick(entity: ExportEntity, fields: readonly string[]): ExportEntity {
  const out: ExportEntity = {};
  for (const field of fields) if (Object.hasOwn(entity, field)) out[field] = entity[field];
  return out;
}

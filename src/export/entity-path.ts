/**
 * Paths into an entity, as `filter`, `filterExclude` and `exportspec` write them
 * (docs/api.md#filters, #export-columns). Two notations:
 *
 * - **JSONPath** (RFC 9535), any path starting with `$`, evaluated by `json-p3` (no `eval`):
 *   `$.locations[0]`, `$.employments[?@.isCurrent]`, `$..name`, `$.allNames[:3]`. `$` is the entity. Note RFC 9535 filter semantics: a bare
 *   `[?@.isCurrent]` tests that the member *exists* (`isCurrent: false` matches too); write
 *   `[?@.isCurrent == true]` for "current".
 * - **Dot paths**, anything else: names separated by dots, relative to the entity
 *   (`name`, `location.city.name`). A name applied to an array applies to each element, so
 *   `employments.title` selects the title of every employment. Any name may be followed by
 *   bracketed array steps: an index `[0]` / `[-1]`, a slice `[:3]` / `[1:4]` (RFC 9535 slice
 *   semantics, step 1) or `[*]` — `allNames[:3]` selects the first three names,
 *   `employments[0].employer.name` the first employer's name. A bracket step on a value that
 *   is not an array selects nothing.
 *
 * A path that selects nothing is not an error; a path that cannot be parsed is.
 */
import { JSONPathError } from 'json-p3';
import type { JSONValue } from 'json-p3';
import { InvalidParameterError } from '../errors.ts';
import { checkJsonPathPatterns, createSafeJsonPathEnvironment } from '../user-pattern/index.ts';

/** json-p3 with `match()` / `search()` on the linear-time engine (issue 28: no ReDoS in filters). */
const JSONPATH = createSafeJsonPathEnvironment();

/** Where a selected value sits: object keys and array indices from the entity down. */
export type PathLocation = readonly (string | number)[];

/**
 * Receives each selected node. `location` is only valid during the call (it may be reused):
 * copy it to keep it.
 */
export type PathVisitor = (location: PathLocation, value: unknown) => void;

/** A compiled path. Compile once, evaluate many times; evaluation never throws on data. */
export interface EntityPath {
  /** The path as written (trimmed). */
  readonly text: string;
  readonly notation: 'dot' | 'jsonpath';
  /**
   * The member a dot path of one name reads (`name` for `name`; undefined for `name[0]`,
   * `name.x` and JSONPath): its value, when the root has it as its own, is the one value selected.
   */
  readonly member?: string;
  /** The selected values in document order; empty when nothing matches. */
  values(root: unknown): unknown[];
  /** Calls `visitor` for every selected node, in document order. */
  visit(root: unknown, visitor: PathVisitor): void;
}

type Step =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'slice'; readonly start: number | undefined; readonly end: number | undefined }
  | { readonly kind: 'all' };

const NAME = /^[^\s'"()[\]*?,;]+$/u;
const SEGMENT = /^([^[\]]*)((?:\[[^\]]*\])*)$/;
const BRACKET = /\[([^\]]*)\]/g;
const INDEX = /^-?\d+$/;
const SLICE = /^(-?\d+)?:(-?\d+)?$/;

/**
 * Compiles one path. `parameter` names the request parameter the path came from; a path that
 * cannot be parsed throws `InvalidParameterError(parameter)` whose message quotes it.
 */
export function compileEntityPath(text: string, parameter: string): EntityPath {
  const path = text.trim();
  if (path === '') throw invalidPath(parameter, text, 'the path is empty');
  if (path.startsWith('$')) return compileJsonPath(path, parameter);
  return compileDotPath(path, parameter);
}

function invalidPath(parameter: string, path: string, reason: string): InvalidParameterError {
  return new InvalidParameterError(parameter, `Invalid ${parameter} path '${path}': ${reason}`);
}

function compileJsonPath(path: string, parameter: string): EntityPath {
  let query: ReturnType<typeof JSONPATH.compile>;
  try {
    query = JSONPATH.compile(path);
  } catch (error) {
    if (error instanceof JSONPathError) throw invalidPath(parameter, path, error.message);
    throw error;
  }
  const badPattern = checkJsonPathPatterns(path);
  if (badPattern !== undefined) throw invalidPath(parameter, path, badPattern);
  return Object.freeze({
    text: path,
    notation: 'jsonpath' as const,
    values: (root: unknown) => query.query(root as JSONValue).values(),
    visit(root: unknown, visitor: PathVisitor) {
      for (const node of query.query(root as JSONValue).nodes) visitor(node.location, node.value);
    },
  });
}

function compileDotPath(path: string, parameter: string): EntityPath {
  const steps: Step[] = [];
  for (const segment of path.split('.')) {
    const parts = SEGMENT.exec(segment);
    if (segment === '') throw invalidPath(parameter, path, 'empty name between dots');
    if (parts === null) throw invalidPath(parameter, path, `unbalanced brackets in '${segment}'`);
    const [, name, brackets] = parts;
    if (!NAME.test(name)) {
      throw invalidPath(parameter, path, `'${name}' is not a field name (JSONPath must start with '$')`);
    }
    steps.push({ kind: 'name', name });
    for (const [, inner] of brackets.matchAll(BRACKET))
      steps.push(bracketStep(inner.trim(), path, parameter));
  }
  const only = steps.length === 1 ? steps[0] : undefined;
  const values =
    only?.kind === 'name'
      ? (root: unknown) => {
          // The common column `name`: one property read, no walk.
          const value = isObject(root) && Object.hasOwn(root, only.name) ? root[only.name] : undefined;
          return value === undefined ? [] : [value];
        }
      : (root: unknown) => {
          const out: unknown[] = [];
          walk(root, steps, 0, [], (_, value) => out.push(value));
          return out;
        };
  return Object.freeze({
    text: path,
    notation: 'dot' as const,
    member: only?.kind === 'name' ? only.name : undefined,
    values,
    visit: (root: unknown, visitor: PathVisitor) => walk(root, steps, 0, [], visitor),
  });
}

function bracketStep(inner: string, path: string, parameter: string): Step {
  if (inner === '*') return { kind: 'all' };
  if (INDEX.test(inner)) return { kind: 'index', index: Number(inner) };
  const slice = SLICE.exec(inner);
  if (slice !== null) {
    return {
      kind: 'slice',
      start: slice[1] === undefined ? undefined : Number(slice[1]),
      end: slice[2] === undefined ? undefined : Number(slice[2]),
    };
  }
  throw invalidPath(parameter, path, `'[${inner}]' is not an index, a slice or [*]`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(
  value: unknown,
  steps: readonly Step[],
  i: number,
  location: (string | number)[],
  visitor: PathVisitor,
) {
  if (i === steps.length) {
    visitor(location, value);
    return;
  }
  const step = steps[i];
  if (step.kind === 'name') {
    if (Array.isArray(value)) {
      // A name applied to a list applies to each element (`employments.title`).
      for (let k = 0; k < value.length; k++) {
        location.push(k);
        walk(value[k], steps, i, location, visitor);
        location.pop();
      }
    } else if (isObject(value) && Object.hasOwn(value, step.name)) {
      location.push(step.name);
      walk(value[step.name], steps, i + 1, location, visitor);
      location.pop();
    }
    return;
  }
  if (!Array.isArray(value)) return;
  const [from, to] = arrayRange(step, value.length);
  for (let k = from; k < to; k++) {
    location.push(k);
    walk(value[k], steps, i + 1, location, visitor);
    location.pop();
  }
}

/** The half-open index range a bracket step selects in an array of `length` (RFC 9535 §2.3.4). */
function arrayRange(step: Exclude<Step, { kind: 'name' }>, length: number): [number, number] {
  if (step.kind === 'all') return [0, length];
  if (step.kind === 'index') {
    const k = step.index < 0 ? length + step.index : step.index;
    return k >= 0 && k < length ? [k, k + 1] : [0, 0];
  }
  const bound = (n: number | undefined, fallback: number) => {
    if (n === undefined) return fallback;
    return Math.min(Math.max(n < 0 ? length + n : n, 0), length);
  };
  return [bound(step.start, 0), bound(step.end, length)];
}

/**
 * The fact ledger: which source stated what about an entity, and the canonical document that
 * results (pure functions, no I/O).
 *
 * - A *source* states an entity wholesale. Its identity is the import's `--source` label, else the
 *   record's `origins` (sorted, de-duplicated, space-joined), else `import:<file name>`
 *   (`sourceOf`). A source's new statement of an id replaces its previous one; different sources
 *   accumulate.
 * - The facts of a statement are supported by its *attribution origins*: the record's `origins`
 *   when it has any, else the source identity itself (e.g. `crm` or `import:orgs.jsonl`).
 * - Canonical document (`mergeStatements`):
 *   - a list field (`LIST_FIELDS`) is the de-duplicated union of the sources' lists, newest source
 *     first; `allNames` also receives the `name` of every source; `origins` is thereby the union of
 *     all sources' origins;
 *   - any other field holds the value stated by the most sources (values compared structurally),
 *     ties going to the most recent statement; every losing value becomes a non-canonical fact
 *     `{field, value, origins}` (docs/api.md#non-canonical-facts), listed in `nonCanonicalFacts`.
 * - Storage: the ledger is `null` when one source stated the entity and its identity is the
 *   document's own origins; `{sources:[{source}]}` for one source with another identity (its
 *   statement *is* the document: no second copy); with several sources, every source's statement.
 *   Sources are kept in recency order, oldest first.
 */
import { DERIVED_FIELDS, type Entity, LIST_FIELDS, type NonCanonicalFact } from './entity.ts';

/** One source's statement in a stored ledger; `statement` is absent when it is the document. */
export interface LedgerEntry {
  readonly source: string;
  readonly statement?: Entity;
}

/** The per-entity ledger as stored (JSON-serialisable). `null` means "one source: the doc's origins". */
export interface FactLedger {
  /** Oldest first: the last entry is the most recent statement. */
  readonly sources: readonly LedgerEntry[];
}

/** A source's statement with its identity, as the merge consumes it. */
export interface SourceStatement {
  readonly source: string;
  readonly statement: Entity;
}

/** The result of applying a statement to an entity: its new canonical document and ledger. */
export interface LedgerState {
  readonly doc: Entity;
  readonly ledger: FactLedger | null;
}

/** Identity of a set of origins: sorted, de-duplicated, space-joined ('' when there are none). */
export function originsKey(origins: readonly string[] | undefined): string {
  if (!origins || origins.length === 0) return '';
  if (origins.length === 1) return origins[0];
  return [...new Set(origins)].sort().join(' ');
}

/**
 * The source identity of a statement: `label` (the import's `--source`) when given, else the
 * record's origins, else `import:<fileName>`.
 */
export function sourceOf(statement: Entity, context: { label?: string; fileName: string }): string {
  if (context.label !== undefined && context.label !== '') return context.label;
  const key = originsKey(statement.origins);
  return key !== '' ? key : `import:${context.fileName}`;
}

/** The origins that support the facts of a statement: its own origins, else its source. */
export function attributionOf(entry: SourceStatement): string[] {
  const origins = entry.statement.origins;
  if (origins && origins.length > 0) return origins;
  return entry.source === '' ? [] : [entry.source];
}

/** Canonical JSON of a value (object keys sorted), for structural comparison. */
export function structuralKey(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map(structuralKey).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${structuralKey((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** The identity of a list element: two elements with the same identity are one fact. */
function elementKey(field: string, element: unknown): string {
  if (typeof element === 'string') return element;
  if (element !== null && typeof element === 'object') {
    const item = element as Record<string, unknown>;
    if (field === 'emailAddresses' && typeof item.contactString === 'string') {
      return `e:${item.contactString.toLowerCase()}`;
    }
    if (field === 'phoneNumbers') {
      if (typeof item.digits === 'string') return `p:${item.digits}`;
      if (typeof item.string === 'string') return `p:${item.string}`;
    }
    if (field === 'images' && typeof item.url === 'string') return `i:${item.url}`;
    // Objects of lists (locations, employments, …) are one fact when their JSON is identical:
    // validated statements list keys in their source's order, and JSON.stringify is native-fast.
    return JSON.stringify(element);
  }
  return structuralKey(element);
}

function listOf(statement: Entity, field: string): unknown[] {
  const value = statement[field];
  return Array.isArray(value) ? value : [];
}

/** The names a statement contributes to `allNames`: its `allNames` and its `name`. */
function namesOf(statement: Entity): unknown[] {
  const names = listOf(statement, 'allNames');
  return typeof statement.name === 'string' ? [...names, statement.name] : names;
}

function unionList(field: string, newestFirst: readonly SourceStatement[]): unknown[] | undefined {
  if (newestFirst.length === 1 && field !== 'allNames') {
    // One source, at most one element: nothing to de-duplicate (the common, cheap case).
    const items = listOf(newestFirst[0].statement, field);
    if (items.length <= 1) return items.length === 1 ? items : undefined;
  }
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const entry of newestFirst) {
    const items = field === 'allNames' ? namesOf(entry.statement) : listOf(entry.statement, field);
    for (const item of items) {
      const key = elementKey(field, item);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(item);
    }
  }
  return out.length > 0 ? out : undefined;
}

function unionOrigins(lists: readonly (readonly string[])[]): string[] {
  return [...new Set(lists.flat())];
}

/** The fields of the merged document, in the order the newest statements list them. */
function fieldOrder(newestFirst: readonly SourceStatement[]): string[] {
  const fields = new Set<string>(['id', 'type']);
  for (const entry of newestFirst) {
    for (const field in entry.statement) if (!DERIVED_FIELDS.has(field)) fields.add(field);
    if (typeof entry.statement.name === 'string') fields.add('allNames');
  }
  return [...fields];
}

/**
 * Merges the statements of one entity (oldest first, one per source, all of the same id and
 * type) into its canonical document, `nonCanonicalFacts` included when sources disagree.
 * Deterministic: the same statements in the same order give the same document.
 */
export function mergeStatements(sources: readonly SourceStatement[]): Entity {
  if (sources.length === 0) throw new Error('mergeStatements needs at least one statement');
  const newestFirst = [...sources].reverse();
  const latest = newestFirst[0].statement;
  const doc: Entity = { id: latest.id, type: latest.type };
  const nonCanonical: NonCanonicalFact[] = [];
  for (const field of fieldOrder(newestFirst)) {
    if (field === 'id' || field === 'type') continue;
    if (LIST_FIELDS.has(field)) {
      const union = unionList(field, newestFirst);
      if (union !== undefined) doc[field] = union;
      continue;
    }
    if (newestFirst.length === 1) {
      // One source: its value is canonical, nothing to compare (the common, cheap case).
      const value = latest[field];
      if (value !== undefined) doc[field] = value;
      continue;
    }
    // Tally the distinct values: count of sources, recency of the newest stating it, origins.
    const tallies = new Map<
      string,
      { value: unknown; count: number; recency: number; origins: string[][] }
    >();
    for (let recency = newestFirst.length - 1; recency >= 0; recency--) {
      const entry = newestFirst[recency];
      const value = entry.statement[field];
      if (value === undefined) continue;
      const key = structuralKey(value);
      const tally = tallies.get(key);
      const origins = attributionOf(entry);
      if (tally) {
        tally.count++;
        tally.recency = newestFirst.length - 1 - recency;
        tally.origins.push(origins);
      } else {
        tallies.set(key, { value, count: 1, recency: newestFirst.length - 1 - recency, origins: [origins] });
      }
    }
    if (tallies.size === 0) continue;
    const ranked = [...tallies.values()].sort((a, b) => b.count - a.count || b.recency - a.recency);
    doc[field] = ranked[0].value;
    for (const loser of ranked.slice(1)) {
      nonCanonical.push({ field, value: loser.value, origins: unionOrigins(loser.origins) });
    }
  }
  const withOwn = addOwnAlternatives(doc, nonCanonical, newestFirst);
  if (withOwn.length > 0) doc.nonCanonicalFacts = withOwn;
  return doc;
}

/** A statement's own non-canonical facts (see the module comment); `[]` when it has none. */
function ownAlternativesOf(statement: Entity): NonCanonicalFact[] {
  const stated = statement.nonCanonicalFacts;
  return Array.isArray(stated) ? stated : [];
}

/** Whether `value` is the canonical value of `field` in `doc` (or an element of its list). */
function isCanonical(doc: Entity, field: string, value: unknown): boolean {
  const current = doc[field];
  if (current === undefined) return false;
  if (LIST_FIELDS.has(field) && Array.isArray(current)) {
    const key = elementKey(field, value);
    return current.some((element) => elementKey(field, element) === key);
  }
  return structuralKey(current) === structuralKey(value);
}

/**
 * `losers` followed by the statements' own non-canonical facts (newest statement first), those
 * equal to a canonical value left out and repeated values listed once with their origins united.
 */
function addOwnAlternatives(
  doc: Entity,
  losers: NonCanonicalFact[],
  newestFirst: readonly SourceStatement[],
): NonCanonicalFact[] {
  let byKey: Map<string, NonCanonicalFact> | undefined;
  for (const entry of newestFirst) {
    const own = ownAlternativesOf(entry.statement);
    if (own.length === 0) continue;
    if (byKey === undefined) {
      byKey = new Map();
      for (const loser of losers) byKey.set(`${loser.field}\u0000${structuralKey(loser.value)}`, loser);
    }
    for (const alternative of own) {
      if (isCanonical(doc, alternative.field, alternative.value)) continue;
      const origins =
        Array.isArray(alternative.origins) && alternative.origins.length > 0
          ? alternative.origins
          : attributionOf(entry);
      const key = `${alternative.field}\u0000${structuralKey(alternative.value)}`;
      const known = byKey.get(key);
      if (known) {
        known.origins = unionOrigins([known.origins, origins]);
        continue;
      }
      const fact = { field: alternative.field, value: alternative.value, origins };
      byKey.set(key, fact);
      losers.push(fact);
    }
  }
  return losers;
}

/**
 * The single-source canonical form of a freshly validated statement (`cleanEntity` output), made
 * in place: what `mergeStatements([{source, statement}])` returns, without copying (the import's
 * hot path). Lists are de-duplicated and `allNames` receives the `name`.
 */
export function canonicalStatement(statement: Entity): Entity {
  canonicalizeInPlace(statement);
  return statement;
}

/** `canonicalStatement`, returning whether it changed the statement. */
export function canonicalizeInPlace(statement: Entity): boolean {
  let changed = false;
  if (statement.nonCanonicalFacts !== undefined) {
    // The statement's own alternatives in the form `mergeStatements` gives them (after its lists
    // are canonical, below): the order of fields in the document is the statement's.
    changed = canonicalizeLists(statement) || changed;
    const before = JSON.stringify(statement.nonCanonicalFacts);
    const own = addOwnAlternatives(statement, [], [{ source: '', statement }]);
    if (own.length > 0) statement.nonCanonicalFacts = own;
    else delete statement.nonCanonicalFacts;
    if (JSON.stringify(statement.nonCanonicalFacts) !== before) changed = true;
    return changed;
  }
  return canonicalizeLists(statement);
}

/** The list part of `canonicalizeInPlace`: lists de-duplicated, the name in `allNames`. */
function canonicalizeLists(statement: Entity): boolean {
  let changed = false;
  for (const field in statement) {
    if (field === 'allNames' || !LIST_FIELDS.has(field)) continue;
    const list = statement[field];
    if (Array.isArray(list) && list.length > 1) {
      const union = unionList(field, [{ source: '', statement }])!;
      if (union.length !== list.length) {
        statement[field] = union;
        changed = true;
      }
    }
  }
  const names = statement.allNames;
  if (typeof statement.name === 'string' || (Array.isArray(names) && names.length > 0)) {
    if (!(Array.isArray(names) && names.length === 1 && names[0] === statement.name)) {
      const union = unionList('allNames', [{ source: '', statement }]) as string[];
      // Equal lengths may still hide a removed duplicate and an added name: compare items.
      if (!Array.isArray(names) || union.length !== names.length || union.some((n, i) => n !== names[i])) {
        changed = true;
      }
      statement.allNames = union;
    }
  }
  return changed;
}

/**
 * The statements behind a stored document, oldest first. For a single-source ledger the
 * statement is the document itself: its `nonCanonicalFacts` can only be the source's own (one
 * source has no losing values), so they stay with it.
 */
export function statementsOf(doc: Entity, ledger: FactLedger | null | undefined): SourceStatement[] {
  if (!ledger || ledger.sources.length === 0) {
    return [{ source: originsKey(doc.origins), statement: doc }];
  }
  if (ledger.sources.length === 1 && ledger.sources[0].statement === undefined) {
    return [{ source: ledger.sources[0].source, statement: doc }];
  }
  return ledger.sources.map((entry) => ({
    source: entry.source,
    statement: entry.statement ?? withoutDerived(doc),
  }));
}

function withoutDerived(doc: Entity): Entity {
  if (doc.nonCanonicalFacts === undefined) return doc;
  const { nonCanonicalFacts: _derived, ...rest } = doc;
  return rest as Entity;
}

/** The ledger to store for the given statements (oldest first) and their merged document. */
export function ledgerFor(sources: readonly SourceStatement[], doc: Entity): FactLedger | null {
  if (sources.length === 1) {
    const only = sources[0];
    return only.source === originsKey(doc.origins) ? null : { sources: [{ source: only.source }] };
  }
  return { sources: sources.map((entry) => ({ source: entry.source, statement: entry.statement })) };
}

/**
 * The stored type of an entity differs from the type a statement gives it. Internal, not in the
 * error registry: import, refresh and search catch it and skip that statement.
 */
export class TypeConflict extends Error {
  readonly storedType: string;
  readonly statedType: string;
  constructor(storedType: string, statedType: string) {
    super(`type ${statedType} differs from the stored entity's type ${storedType}`);
    this.name = 'TypeConflict';
    this.storedType = storedType;
    this.statedType = statedType;
  }
}

/**
 * Applies `source`'s new statement of an entity to its stored state (`undefined` when the entity
 * is new): the source's previous statement is replaced, others are kept. A statement identical
 * to the source's previous one returns `stored` itself (nothing changes, not even recency). Throws `TypeConflict`
 * when the statement's type differs from the stored entity's.
 */
export function applyStatement(
  stored: LedgerState | undefined,
  source: string,
  statement: Entity,
): LedgerState {
  // A statement is kept in its single-source canonical form (lists de-duplicated, its name in
  // allNames), which is also what a single-source ledger recovers from the document.
  const canonical = mergeStatements([{ source, statement }]);
  if (stored === undefined) {
    const sources = [{ source, statement: canonical }];
    return { doc: canonical, ledger: ledgerFor(sources, canonical) };
  }
  if (stored.doc.type !== statement.type) throw new TypeConflict(stored.doc.type, statement.type);
  const previous = statementsOf(stored.doc, stored.ledger);
  const own = previous.find((entry) => entry.source === source);
  // Restating the very same thing changes nothing, not even recency (re-imports are no-ops).
  if (own && JSON.stringify(own.statement) === JSON.stringify(canonical)) return stored;
  const sources = previous.filter((entry) => entry.source !== source);
  sources.push({ source, statement: canonical });
  const doc = mergeStatements(sources);
  return { doc, ledger: ledgerFor(sources, doc) };
}

/**
 * For `jsonmode=extended`: each top-level field of `doc` (except `id`, `type` and
 * `nonCanonicalFacts`) → the origins supporting its canonical value. A list field is supported
 * by every source stating any of its elements; `allNames` also by the sources stating a `name`.
 * A field no origin supports (a document written without origins or source) maps to `[]`.
 */
export function factOriginsOf(doc: Entity, ledger: FactLedger | null | undefined): Record<string, string[]> {
  const sources = statementsOf(doc, ledger);
  const out: Record<string, string[]> = {};
  if (sources.length === 1) {
    const origins = attributionOf(sources[0]);
    for (const field in doc)
      if (field !== 'id' && field !== 'type' && !DERIVED_FIELDS.has(field)) out[field] = origins;
    return out;
  }
  for (const field in doc) {
    if (field === 'id' || field === 'type' || DERIVED_FIELDS.has(field)) continue;
    const supporting: string[][] = [];
    if (LIST_FIELDS.has(field)) {
      for (const entry of sources) {
        const states = field === 'allNames' ? namesOf(entry.statement) : listOf(entry.statement, field);
        if (states.length > 0) supporting.push(attributionOf(entry));
      }
    } else {
      const key = structuralKey(doc[field]);
      for (const entry of sources) {
        const value = entry.statement[field];
        if (value !== undefined && structuralKey(value) === key) supporting.push(attributionOf(entry));
      }
    }
    out[field] = unionOrigins(supporting);
  }
  return out;
}

/**
 * For a list field of `doc`: the origins of each element, parallel to `doc[field]` (an element
 * stated by several sources has all their origins). `[]` when the field is absent.
 */
export function elementOriginsOf(
  doc: Entity,
  ledger: FactLedger | null | undefined,
  field: string,
): string[][] {
  const elements = doc[field];
  if (!Array.isArray(elements)) return [];
  const byKey = new Map<string, string[][]>();
  for (const entry of statementsOf(doc, ledger)) {
    const items = field === 'allNames' ? namesOf(entry.statement) : listOf(entry.statement, field);
    const origins = attributionOf(entry);
    for (const item of items) {
      const key = elementKey(field, item);
      const list = byKey.get(key);
      if (list) list.push(origins);
      else byKey.set(key, [origins]);
    }
  }
  return elements.map((element) => unionOrigins(byKey.get(elementKey(field, element)) ?? []));
}

/**
 * `kgIngest=1`: extracted Organization and Person objects merged into the knowledge graph, each
 * page a source stating its entities (docs/api.md#fact-origins), through the fact ledger
 * of `kg/` — so the page URL becomes an origin of every fact it states, and values that lose
 * against other sources are kept as non-canonical facts, exactly as for imported entities.
 *
 * Which entity a page speaks of: the graph entity the matcher finds with a score of at least
 * `MERGE_SCORE` (the same company already imported or crawled elsewhere), else a new entity
 * whose id is derived from its name and homepage (or page), so crawling the page again — in a
 * later round, another job, after a restart — updates that entity instead of adding another.
 * Re-stating is idempotent: a source's new statement replaces its previous one.
 */
import { prepareRecord } from '../import/index.ts';
import {
  applyStatement,
  type Entity,
  EntityRejection,
  type LedgerState,
  normalizeOrganizationName,
  normalizePersonName,
} from '../kg/index.ts';
import { createMatcher, indexEntity, type Matcher } from '../match/index.ts';
import type { EntityStore, EntityWrite } from '../storage/index.ts';
import type { ExtractedObject, GraphIngester } from './dependencies.ts';
import {
  crawledEntityId,
  type EntityStatement,
  entityAnchor,
  entityStatement,
  type IdentityEvidence,
  identityEvidence,
} from './graph-entity.ts';

/** Lowest match score at which a crawled entity is taken for an entity of the graph. */
export const MERGE_SCORE = 0.9;

/** Whether two person names cannot be one person's: different surnames, or given names. */
function personNamesConflict(a: string, b: string): boolean {
  const x = normalizePersonName(a);
  const y = normalizePersonName(b);
  if (x.last && y.last && x.last !== y.last) return true;
  if (x.first && y.first && x.first !== y.first) {
    // An initial is compatible with the name it abbreviates ("M. Gonzalez", "Maria Gonzalez").
    const [short, long] = x.first.length <= y.first.length ? [x.first, y.first] : [y.first, x.first];
    return !(short.length === 1 && long.startsWith(short));
  }
  return false;
}

/** Whether two organization names share no identifying word (nor one is the other's acronym). */
function organizationNamesConflict(a: string, b: string): boolean {
  const x = normalizeOrganizationName(a);
  const y = normalizeOrganizationName(b);
  if (x.significant.length === 0 || y.significant.length === 0) return false;
  if (x.significant.some((token) => y.significant.includes(token))) return false;
  const initials = (n: typeof x) => n.significant.map((token) => token[0]).join('');
  return !(x.key === initials(y) || y.key === initials(x));
}

/**
 * Whether the entity a page names `name` cannot be `stored`: its name conflicts with every name
 * the graph knows for it. A match on a shared contact never overrides this (issue 24 §1).
 */
export function namesConflict(type: Entity['type'], name: string, stored: Entity): boolean {
  const known = [stored.name, ...(stored.allNames ?? [])].filter(
    (n): n is string => typeof n === 'string' && n !== '',
  );
  if (known.length === 0) return false;
  const conflict = type === 'Person' ? personNamesConflict : organizationNamesConflict;
  return known.every((other) => conflict(name, other));
}

/** Merges crawled statements into the graph; runs inside the caller's transaction. */
export class GraphIngest implements GraphIngester {
  readonly #store: EntityStore;
  readonly #matcher: Matcher;

  constructor(store: EntityStore, matcher: Matcher = createMatcher(store)) {
    this.#store = store;
    this.#matcher = matcher;
  }

  /**
   * The id of the entity `statement` speaks of (see the module comment). Only `evidence` (the
   * page's own contacts, not the site's) helps find it, and a candidate whose names conflict
   * with the statement's is never taken, whatever its score.
   */
  resolve(statement: EntityStatement, origin: string, evidence: IdentityEvidence): string {
    const candidates = this.#matcher.match(
      {
        type: statement.type,
        names: [statement.name],
        urls: typeof statement.homepageUri === 'string' ? [statement.homepageUri] : [],
        emails: evidence.emails,
        phones: evidence.phones,
      },
      { limit: 3 },
    );
    for (const candidate of candidates) {
      if (candidate.type !== statement.type || candidate.score < MERGE_SCORE) continue;
      const stored = this.#store.getById(candidate.id);
      if (stored && namesConflict(statement.type, statement.name, stored.doc as Entity)) continue;
      return candidate.id;
    }
    return crawledEntityId(statement.type, statement.name, entityAnchor(statement, origin));
  }

  /**
   * States the organizations and people of `objects` with the page `origin` as their source.
   * Objects the graph's validation refuses are skipped (an extraction quirk must not lose the
   * page); the rest is written as one batch.
   */
  ingest(objects: readonly ExtractedObject[], origin: string): void {
    const states = new Map<string, LedgerState | undefined>();
    const changed = new Set<string>();
    for (const object of objects) {
      const statement = entityStatement(object, origin);
      if (!statement) continue;
      const id = this.resolve(statement, origin, identityEvidence(object));
      let entity: Entity;
      try {
        // Validation and the canonical form of a statement, as an import line would get them.
        const prepared = prepareRecord({ ...statement, id }, 0, {
          format: 'jsonl',
          source: origin,
          fileName: origin,
        });
        entity = JSON.parse(prepared.json.doc) as Entity;
      } catch (error) {
        if (error instanceof EntityRejection) continue;
        throw error;
      }
      if (!states.has(id)) {
        const stored = this.#store.getById(id);
        states.set(
          id,
          stored ? { doc: stored.doc, ledger: stored.ledger as LedgerState['ledger'] } : undefined,
        );
      }
      const before = states.get(id);
      // A page stating a Person where the graph has an Organization (or the reverse), or a name
      // that cannot be the stored entity's (a derived id shared by chance), is refused.
      if (before && before.doc.type !== entity.type) continue;
      if (before && namesConflict(entity.type, statement.name, before.doc as Entity)) continue;
      const after = applyStatement(before, origin, entity);
      states.set(id, after);
      if (after !== before) changed.add(id);
    }
    const writes: EntityWrite[] = [];
    for (const [id, state] of states) {
      // Unchanged (the page says what it said last time): nothing to write.
      if (!state || !changed.has(id)) continue;
      writes.push({
        id,
        type: state.doc.type,
        doc: state.doc,
        ledger: state.ledger,
        ...indexEntity(state.doc),
      });
    }
    // Keys indexed at once (no deferral): the page's entities are found by enhance as soon as
    // the page's outcome is committed.
    this.#store.writeBatch(writes);
  }
}

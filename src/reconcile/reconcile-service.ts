/**
 * The reconciliation use cases (W3C Entity Reconciliation API 0.2, docs/reconcile.md): batches
 * of queries answered by the enhance matcher, suggest, preview and data extension. Candidates
 * carry the calibrated score × 100, the matcher's per-feature contributions, and `match` only
 * for a clear winner.
 */
import type { CreditCosts } from '../config.ts';
import type { EnhanceResponse, EnhanceService } from '../enhance/index.ts';
import { NotFoundError } from '../errors.ts';
import type { Entity, EntityType } from '../kg/index.ts';
import type { EntityStore, StoredEntity } from '../storage/index.ts';
import { parseBatch, parseQuery, type ReconcileQuery } from './batch.ts';
import { entitiesByPrefix } from './prefix-search.ts';

/**
 * `match` needs the runner-up at most this share of the winner's score: a winner above the
 * threshold with a close second is a namesake to judge, not a match to take.
 */
export const RUNNER_UP_MAX_SHARE = 0.5;
/**
 * Candidates below this score (×100) are left out of results: under the choice model a
 * candidate at 0.1 % is one the matcher all but rules out, and listing them only buries the
 * plausible ones (and would make a query with nothing plausible a paid one).
 */
export const CANDIDATE_FLOOR = 0.1;
/** Candidates of the matcher below this score (×100) are noise in a suggestion list. */
const SUGGEST_FLOOR = 1;
/** Most entities suggest returns. */
export const MAX_SUGGEST = 50;

/** A type as the protocol writes it. */
export interface ReconcileType {
  readonly id: string;
  readonly name: string;
}

/** One candidate of a query's result (0.2 `reconciliation-result-batch.json`). */
export interface ReconcileCandidate {
  id: string;
  name: string;
  description?: string;
  score: number;
  match: boolean;
  type: ReconcileType[];
  features: { id: string; value: number }[];
}

export type ReconcileResults = Record<string, { result: ReconcileCandidate[] }>;

/** A suggested entity (0.2 `suggest-entities-response.json`). */
export interface SuggestedEntity {
  id: string;
  name: string;
  description?: string;
  notable: ReconcileType[];
}

export interface ReconcileDeps {
  readonly enhance: Pick<EnhanceService, 'answerUnpaid' | 'charge' | 'enhancer'>;
  readonly entities: Pick<EntityStore, 'getById' | 'getByIds' | 'getByRefs' | 'refsForKeys' | 'termCounts'>;
  readonly credits: CreditCosts;
  /** Most candidates a query may ask for (`limits.maxSize`). */
  readonly maxSize: number;
}

function typeOf(type: EntityType): ReconcileType {
  return { id: type, name: type };
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** A short text telling namesakes apart: where the entity is, else its description. */
export function descriptionOf(entity: Entity): string | undefined {
  const place = [entity.location?.city?.name, entity.location?.country?.name].filter(
    (p): p is string => typeof p === 'string' && p !== '',
  );
  if (place.length > 0) return place.join(', ');
  return typeof entity.description === 'string' ? entity.description.slice(0, 200) : undefined;
}

/** The candidates of one enhance answer: its hits, with their features from `searchInfo`. */
function candidatesOf(type: EntityType, response: EnhanceResponse): ReconcileCandidate[] {
  const out: ReconcileCandidate[] = [];
  for (const hit of response.data) {
    const entity = hit.entity as Entity | null;
    if (!entity || typeof entity.id !== 'string') continue;
    const contributions = response.searchInfo[entity.id]?.debugInfo.contributions ?? {};
    const description = descriptionOf(entity);
    out.push({
      id: entity.id,
      name: typeof entity.name === 'string' ? entity.name : entity.id,
      ...(description ? { description } : {}),
      score: round(hit.score * 100, 2),
      match: false,
      type: [typeOf(type)],
      features: Object.entries(contributions).map(([id, value]) => ({ id, value: round(value, 4) })),
    });
  }
  return out;
}

/** The reconciliation service. */
export class ReconcileService {
  readonly #deps: ReconcileDeps;

  constructor(deps: ReconcileDeps) {
    this.#deps = deps;
  }

  /**
   * Answers a batch (`queries`: the JSON text of the 0.2 query batch) for `tokenId`. Every query
   * is read first (a bad one is a 400, nothing answered); each query with a candidate costs
   * `perMatch` credits, charged at once for the batch (429, charging nothing, when the balance
   * cannot pay).
   */
  async reconcile(queries: unknown, tokenId: string): Promise<ReconcileResults> {
    const parsed = [...parseBatch(queries)].map(([key, raw]) => parseQuery(key, raw, this.#deps.maxSize));
    const answered = await Promise.all(parsed.map((query) => this.#answer(query)));
    const paid = answered.filter((candidates) => candidates.length > 0).length;
    await this.#deps.enhance.charge(tokenId, paid * this.#deps.credits.perMatch);
    return Object.fromEntries(parsed.map((query, i) => [query.key, { result: answered[i] }]));
  }

  async #answer(query: ReconcileQuery): Promise<ReconcileCandidate[]> {
    const responses = await Promise.all(query.requests.map((r) => this.#deps.enhance.answerUnpaid(r)));
    const candidates = responses
      .flatMap((response, i) => candidatesOf(query.requests[i].query.type ?? 'Organization', response))
      .filter((candidate) => candidate.score >= CANDIDATE_FLOOR)
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
      .slice(0, query.limit);
    const [first, second] = candidates;
    if (first) {
      const threshold = 100 * this.#deps.enhance.enhancer.defaultThresholdFor(first.type[0].id as EntityType);
      first.match =
        first.score >= threshold && (!second || second.score <= first.score * RUNNER_UP_MAX_SHARE);
    }
    return candidates;
  }

  /**
   * Entities whose names start with `prefix` (word by word), then the matcher's candidates for
   * it as a name, at most `limit` (docs/reconcile.md#suggest).
   */
  async suggestEntities(
    prefix: string,
    types: readonly EntityType[],
    limit: number,
  ): Promise<SuggestedEntity[]> {
    const byPrefix = entitiesByPrefix(this.#deps.entities, prefix, types, limit);
    const out = byPrefix.map((entity) => suggested(entity.doc));
    if (out.length < limit && prefix.trim() !== '') {
      const seen = new Set(out.map((s) => s.id));
      for (const type of types) {
        const query = parseQuery('prefix', { query: prefix, type, limit }, this.#deps.maxSize);
        for (const candidate of await this.#answer(query)) {
          if (candidate.score < SUGGEST_FLOOR || seen.has(candidate.id)) continue;
          seen.add(candidate.id);
          out.push({
            id: candidate.id,
            name: candidate.name,
            notable: candidate.type,
            ...describe(candidate),
          });
        }
      }
    }
    return out.slice(0, limit);
  }

  /** The stored entity `id`; 404 naming it when the graph has none. */
  entity(id: string): StoredEntity {
    const stored = this.#deps.entities.getById(id);
    if (!stored) throw new NotFoundError(`No entity with id ${JSON.stringify(id)} in the knowledge graph`);
    return stored;
  }

  /** The entities among `ids`, keyed by id (absent ids left out). */
  entities(ids: readonly string[]): Map<string, StoredEntity> {
    return this.#deps.entities.getByIds(ids);
  }
}

function describe(candidate: ReconcileCandidate): { description?: string } {
  return candidate.description ? { description: candidate.description } : {};
}

function suggested(entity: Entity): SuggestedEntity {
  const description = descriptionOf(entity);
  return {
    id: entity.id,
    name: typeof entity.name === 'string' ? entity.name : entity.id,
    ...(description ? { description } : {}),
    notable: [typeOf(entity.type)],
  };
}

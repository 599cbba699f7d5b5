/**
 * Refresh and search around the graph's answer (docs/api.md#refresh-and-search), enhance's
 * `WebEvidence`: search first (by mode), so that the entities it finds are stored with their
 * pages as origins; then refresh of every returned entity (fresh origins are not fetched again,
 * so an entity search just found is not fetched twice); then the query is scored again, and
 * `searchInfo` tells the score before (`baseMlScore`) and after (`mlScore`) the evidence.
 */
import {
  type AnswerKind,
  candidateLimit,
  type EnhanceHit,
  type EnhanceOptions,
  type EnhanceResponse,
  type Enhancer,
  matchQueryOf,
  NO_CURRENT_EMPLOYER,
  type ParsedEnhanceRequest,
  type SearchCandidate,
  searchCandidate,
  type WebAnswer,
  type WebContext,
  type WebEvidence,
  wantsWeb,
} from '../enhance/index.ts';
import type { EntityType } from '../kg/index.ts';
import type { Matcher } from '../match/index.ts';
import { isEmptyDelta, type RefreshService } from '../refresh/index.ts';
import type { EntityStore, StoredEntity } from '../storage/index.ts';
import type { SearchRun, SearchService } from './search-service.ts';

/** The note of a request asking for search on a server with no search provider. */
export const SEARCH_NOT_CONFIGURED =
  'search is not configured on this server (QUARRY_SEARCH_URL is unset): the answer comes from the knowledge graph only';
/** The note of an `id` query asking for search. */
export const SEARCH_NOT_FOR_ID = 'search does not apply to id queries: the entity is answered by its id';

/** Candidates below this score are not listed in `searchInfo` (as for graph answers). */
const SEARCH_INFO_FLOOR = 0.01;
/** How long a person's request may spend on searches and fetches. */
export const INTERACTIVE_BUDGET_MS = 20_000;

export interface WebEnhancerDeps {
  readonly enhancer: Enhancer;
  readonly entities: Pick<EntityStore, 'getById' | 'getByIds' | 'version'>;
  /** A matcher over the graph as it is now, for the scores after refresh (see `SearchDeps`). */
  readonly rescorer: () => Matcher;
  readonly refresh: RefreshService;
  /** `undefined` when no search provider is configured. */
  readonly search: SearchService | undefined;
  /** Time a person's request may spend fetching, ms (default `INTERACTIVE_BUDGET_MS`). */
  readonly budgetMs?: number;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function entityIdOf(hit: EnhanceHit): string | undefined {
  const id = hit.entity?.id;
  return typeof id === 'string' ? id : undefined;
}

/** See the module comment. */
export class WebEnhancer implements WebEvidence {
  readonly #deps: WebEnhancerDeps;

  constructor(deps: WebEnhancerDeps) {
    this.#deps = deps;
  }

  wanted(options: EnhanceOptions): boolean {
    return wantsWeb(options);
  }

  async complete(
    kind: AnswerKind,
    request: ParsedEnhanceRequest,
    graph: EnhanceResponse,
    context: WebContext,
  ): Promise<WebAnswer> {
    const response = graph;
    const { query, options } = request;
    const deadline =
      context.priority === 'interactive'
        ? Date.now() + (this.#deps.budgetMs ?? INTERACTIVE_BUDGET_MS)
        : undefined;
    /** Entities web work was done for: a page about them was fetched by this request. */
    const premium = new Set<string>();
    const pages = { fetched: 0, failed: 0, fresh: 0 };
    /** Scores before any web evidence, by entity id. */
    const baseScores = new Map<string, number>();
    for (const [id, info] of Object.entries(response.searchInfo)) baseScores.set(id, info.mlScore);

    if (options.search !== 'OFF') {
      if (query.id !== undefined) response.errors.push(SEARCH_NOT_FOR_ID);
      else if (!this.#deps.search) response.errors.push(SEARCH_NOT_CONFIGURED);
      else {
        const type: EntityType = kind === 'combine' ? 'Person' : (query.type ?? 'Organization');
        const primary = response.data.filter((hit) => hit.entity_ctx?.role !== 'currentEmployer');
        if (options.search !== 'FALLBACK' || primary.length === 0) {
          const run = await this.#deps.search.gather(query, type, { priority: context.priority, deadline });
          pages.fetched += run.fetched;
          pages.failed += run.failed;
          this.#applySearch(kind, request, type, run, response, baseScores, premium);
        }
      }
    }
    const rescore = options.refresh
      ? await this.#refreshHits(request, response, baseScores, premium, pages, context, deadline)
      : false;
    response.kgversion = this.#deps.entities.version();
    let paid = 0;
    for (const hit of response.data) {
      const id = entityIdOf(hit);
      if (id !== undefined && premium.has(id)) paid++;
    }
    return { response, premium: paid, pages, rescore };
  }

  /** Replaces the answer's candidates by those scored with the search evidence. */
  #applySearch(
    kind: AnswerKind,
    request: ParsedEnhanceRequest,
    type: EntityType,
    run: SearchRun,
    response: EnhanceResponse,
    baseScores: ReadonlyMap<string, number>,
    premium: Set<string>,
  ): void {
    const search = this.#deps.search!;
    const { query, options } = request;
    response.errors.push(...run.errors);
    const sizeOf = kind === 'combine' ? 1 : options.size;
    let scored = search.score(matchQueryOf({ ...query, type }), run.evidence, candidateLimit(options));
    if (options.search === 'SEARCHONLY') scored = scored.filter((s) => s.evidence !== undefined);
    const threshold = options.threshold ?? this.#deps.enhancer.defaultThresholdFor(type);
    const winners = scored.filter((s) => s.candidate.score >= threshold).slice(0, sizeOf);
    // Only what an answer returns reaches the graph.
    const stored = search.persist(winners.flatMap((w) => (w.evidence ? [w.evidence] : [])));
    const graphOnly = winners.filter((w) => !w.evidence).map((w) => w.candidate.id);
    for (const [id, entity] of this.#deps.entities.getByIds(graphOnly)) stored.set(id, entity);

    const data: EnhanceHit[] = [];
    for (const { candidate, evidence } of winners) {
      const entity = stored.get(candidate.id);
      if (!entity) continue;
      data.push(this.#deps.enhancer.hitFor(entity, candidate.score, candidate.esscore, options));
      if (evidence) premium.add(candidate.id);
    }
    if (kind === 'combine') {
      const errors = response.errors.filter((e) => e !== NO_CURRENT_EMPLOYER);
      response.errors.length = 0;
      response.errors.push(...errors);
      const person = data[0] ? stored.get(entityIdOf(data[0])!) : undefined;
      if (person) {
        const employer = this.#deps.enhancer.employerHitFor(person, options);
        if (employer) data.push(employer);
        else response.errors.push(NO_CURRENT_EMPLOYER);
      }
    }
    response.data = data;
    response.hits = data.length;

    if (!winners.some((w) => w.evidence)) {
      response.errors.push(
        `search: no page described the ${type === 'Organization' ? 'organization' : 'person'} (${run.results} results, ${run.fetched} pages read)`,
      );
    }
    const listed = new Set(winners.map((w) => w.candidate.id));
    const info: Record<string, SearchCandidate> = {};
    for (const { candidate, evidence } of scored) {
      if (candidate.score < SEARCH_INFO_FLOOR && !listed.has(candidate.id)) continue;
      const record = searchCandidate(candidate, listed.has(candidate.id));
      record.baseMlScore = round(baseScores.get(candidate.id) ?? 0);
      if (evidence) {
        const pages = evidence.pages.map((p) => p.url);
        record.debugInfo.url = pages[0];
        record.debugInfo.lastCrawlTime = evidence.pages[0].fetchedAt;
        record.debugInfo.pages = pages;
        record.debugInfo.message = `${record.debugInfo.message}; stated by ${pages.length} search result page${pages.length === 1 ? '' : 's'}`;
      }
      info[candidate.id] = record;
    }
    response.searchInfo = info;
  }

  /**
   * Refreshes every returned entity, rebuilds its hit, and scores the query again (here, or by
   * the caller when deferred: then it returns true when scores are wanted).
   */
  async #refreshHits(
    request: ParsedEnhanceRequest,
    response: EnhanceResponse,
    baseScores: ReadonlyMap<string, number>,
    premium: Set<string>,
    pages: { fetched: number; failed: number; fresh: number },
    context: WebContext,
    deadline: number | undefined,
  ): Promise<boolean> {
    const { query, options } = request;
    const targets = response.data.filter((hit) => entityIdOf(hit) !== undefined);
    const reports = await Promise.all(
      targets.map((hit) =>
        this.#deps.refresh.refresh(entityIdOf(hit)!, { priority: context.priority, deadline }),
      ),
    );
    let changed = false;
    targets.forEach((hit, i) => {
      const report = reports[i];
      hit.refreshInfo = report.info;
      hit.refreshDelta = report.delta;
      if (report.errors.length > 0) hit.errors = [...(hit.errors ?? []), ...report.errors];
      if (report.fetched > 0) premium.add(report.entityId);
      pages.fetched += report.fetched;
      pages.failed += report.failed;
      pages.fresh += report.fresh;
      if (!report.entity || isEmptyDelta(report.delta)) return;
      if (report.matchChanged) changed = true;
      this.#rebuild(hit, report.entity, options);
    });
    // Scores after the new facts; an id query's hit is the entity itself (score 1).
    if (!changed || query.id !== undefined) return false;
    if (context.rescore === 'deferred') return true;
    const scored = this.#deps.rescorer().match(matchQueryOf(query), { limit: candidateLimit(options) });
    applyScores(response, new Map(scored.map((c) => [c.id, searchCandidate(c, true)])), baseScores);
    return false;
  }

  rescored(response: EnhanceResponse, fresh: EnhanceResponse): void {
    applyScores(response, new Map(Object.entries(fresh.searchInfo)), new Map());
  }

  /** The hit's entity as stored now (same score; its `entity_ctx` role kept). */
  #rebuild(hit: EnhanceHit, entity: StoredEntity, options: EnhanceOptions): void {
    const rebuilt = this.#deps.enhancer.hitFor(entity, hit.score, hit.esscore, options);
    hit.entity = rebuilt.entity;
    const role = hit.entity_ctx?.role;
    if (rebuilt.entity_ctx || role !== undefined) {
      hit.entity_ctx = { ...rebuilt.entity_ctx, ...(role !== undefined ? { role } : {}) };
    }
  }
}

/**
 * The hits' scores after web evidence: `scores` by entity id (`searchInfo` records of an answer
 * over the graph as it is now). `baseMlScore` stays the score before (`baseScores` where the
 * answer has none). Hits are sorted again; combine's employer stays last.
 */
function applyScores(
  response: EnhanceResponse,
  scores: ReadonlyMap<string, SearchCandidate>,
  baseScores: ReadonlyMap<string, number>,
): void {
  for (const hit of response.data) {
    const id = entityIdOf(hit);
    const after = id === undefined ? undefined : scores.get(id);
    if (!after || hit.entity_ctx?.role === 'currentEmployer') continue;
    const previous = response.searchInfo[id!];
    const record: SearchCandidate = {
      ...after,
      baseMlScore: round(previous?.baseMlScore ?? baseScores.get(id!) ?? hit.score),
      debugInfo: { ...after.debugInfo, hasResult: true },
    };
    if (previous?.debugInfo.pages) {
      Object.assign(record.debugInfo, {
        url: previous.debugInfo.url,
        lastCrawlTime: previous.debugInfo.lastCrawlTime,
        pages: previous.debugInfo.pages,
      });
    }
    hit.score = after.mlScore;
    response.searchInfo[id!] = record;
  }
  const employer = response.data.filter((hit) => hit.entity_ctx?.role === 'currentEmployer');
  const primary = response.data.filter((hit) => hit.entity_ctx?.role !== 'currentEmployer');
  primary.sort((a, b) => b.score - a.score);
  response.data = [...primary, ...employer];
}

import type { TokenService } from '../accounts/index.ts';
import type { CreditCosts } from '../config.ts';
import { InsufficientCreditsError } from '../errors.ts';
import { applyEntityFilter, type EntityFilter } from '../export/index.ts';
import { type Entity, type EntityType, type FactLedger, factOriginsOf } from '../kg/index.ts';
import type { Matcher, MatchQuery, ScoredCandidate } from '../match/index.ts';
import type { ChargedOperation, EnhanceMetrics } from '../metrics/index.ts';
import type { EntityStore, StoredEntity } from '../storage/index.ts';
import { CompiledFilters } from './compiled-filters.ts';
import { type AnswerKind, answerJson, type EncodedAnswer, type EnhanceThreads } from './enhance-threads.ts';
import { type EnhanceOptions, type EnhanceQuery, echoQuery, type ParsedEnhanceRequest } from './query.ts';
import {
  type EnhanceHit,
  type EnhanceResponse,
  matchSummary,
  RESPONSE_VERSION,
  type SearchCandidate,
} from './response.ts';
import type { WebEvidence } from './web-evidence.ts';

/** Candidates listed in `searchInfo` below this score are noise, not explanation. */
const SEARCH_INFO_FLOOR = 0.01;
/** `searchInfo` lists at least this many candidates (when plausible), whatever `size` is. */
const SEARCH_INFO_MIN_CANDIDATES = 5;

/** What answering needs: read access to the graph and a matcher. */
export interface EnhancerDeps {
  readonly entities: Pick<EntityStore, 'getById' | 'getByRefs' | 'version'>;
  readonly matcher: Matcher;
}

export interface EnhanceDeps extends EnhancerDeps {
  readonly tokens: TokenService;
  readonly credits: CreditCosts;
  /**
   * Runs an answer over one consistent snapshot of the store (`Storage.readSnapshot`): the
   * graph cannot change under a query, and its many reads share one read transaction instead
   * of one each (profiled: the graph version alone was re-read ~10 times per request).
   * Default: no snapshot.
   */
  readonly readSnapshot?: <T>(fn: () => T) => T;
  /**
   * Threads that answer requests off the main thread (`respond`); default: none, every answer
   * is computed on the calling thread.
   */
  readonly threads?: EnhanceThreads;
  /**
   * Refresh and search (fetching pages on the main thread around the graph's answer), made
   * with this service's `Enhancer`; default: none, and requests asking for them are answered
   * from the graph alone.
   */
  readonly web?: (enhancer: Enhancer) => WebEvidence;
  /** Where answers and charges are reported (docs/metrics.md); default: nowhere. */
  readonly metrics?: EnhanceMetrics;
}

/** Per-call context: who pays and what was submitted (echoed in `request_ctx.query_ctx`). */
export interface EnhanceContext {
  readonly tokenId: string;
  readonly queryCtx: Record<string, unknown>;
}

/**
 * Credits an answer costs (docs/api.md#credits): `perMatch` per returned matched entity, and
 * `perMatchRefresh` instead for the `premium` ones, those web work was done for (a page fetched
 * by their refresh or by the search that found them); a response without matches costs nothing.
 */
export function creditCost(matched: number, premium: number, costs: CreditCosts): number {
  const paid = Math.min(premium, matched);
  return (matched - paid) * costs.perMatch + paid * costs.perMatchRefresh;
}

/** Matched entities a response returns (what its credits are counted on). */
export function matchedCount(response: EnhanceResponse): number {
  let n = 0;
  for (const hit of response.data) if (hit.entity !== null) n++;
  return n;
}

/**
 * The enhance use case with payment: answers (see `Enhancer`) and charges the token atomically.
 * Throws 429, charging nothing, when the balance cannot pay.
 */
export class EnhanceService {
  readonly #enhancer: Enhancer;
  readonly #tokens: TokenService;
  readonly #credits: CreditCosts;
  readonly #snapshot: <T>(fn: () => T) => T;
  readonly #threads: EnhanceThreads | undefined;
  readonly #web: WebEvidence | undefined;
  readonly #metrics: EnhanceMetrics | undefined;

  constructor(deps: EnhanceDeps) {
    this.#metrics = deps.metrics;
    this.#enhancer = new Enhancer(deps);
    this.#tokens = deps.tokens;
    this.#credits = deps.credits;
    // Charging happens after the snapshot ends, in a transaction of its own.
    this.#snapshot = deps.readSnapshot ?? ((fn) => fn());
    this.#threads = deps.threads;
    this.#web = deps.web?.(this.#enhancer);
  }

  /** Refresh and search, when configured (bulk jobs use them too). */
  get web(): WebEvidence | undefined {
    return this.#web;
  }

  /**
   * Answers `kind` for an HTTP request, on an answering thread when there are threads (the
   * response comes back as UTF-8 JSON, `EncodedAnswer.body`), else here; charged either way.
   * Throws 429, charging nothing, when the balance cannot pay; a bad `filter` is a 400 raised
   * before any thread works.
   */
  async respond(
    kind: AnswerKind,
    request: ParsedEnhanceRequest,
    context: EnhanceContext,
  ): Promise<EnhanceResponse | EncodedAnswer> {
    if (this.#web?.wanted(request.options)) return this.#respondWithWeb(this.#web, kind, request, context);
    if (!this.#threads)
      return kind === 'combine' ? this.combine(request, context) : this.enhance(request, context);
    this.#enhancer.checkOptions(request.options);
    const answer = await this.#threads.answer({ kind, request, queryCtx: context.queryCtx });
    await this.#charge(kind, creditCost(answer.matched, 0, this.#credits), context);
    this.#metrics?.matchAnswered(kind, answer.summary.candidates, answer.summary.bestScore);
    return answer;
  }

  /** The graph's answer (on a thread when there are threads), then refresh and search. */
  async #respondWithWeb(
    web: WebEvidence,
    kind: AnswerKind,
    request: ParsedEnhanceRequest,
    context: EnhanceContext,
  ): Promise<EnhanceResponse> {
    this.#enhancer.checkOptions(request.options);
    const graph = this.#threads
      ? (JSON.parse(
          answerJson(await this.#threads.answer({ kind, request, queryCtx: context.queryCtx })),
        ) as EnhanceResponse)
      : this.#snapshot(() =>
          kind === 'combine'
            ? this.#enhancer.combine(request, context.queryCtx)
            : this.#enhancer.enhance(request, context.queryCtx),
        );
    const { response, premium } = await web.complete(kind, request, graph, { priority: 'interactive' });
    await this.#charge(kind, creditCost(matchedCount(response), premium, this.#credits), context);
    this.#reportMatch(kind, response);
    return response;
  }

  /**
   * Answers one enhance request from the graph alone, without payment: on an answering thread
   * when there are threads, else here in one read snapshot. For callers that price their
   * answers on their own terms and charge with `charge` (reconciliation, docs/reconcile.md).
   */
  async answerUnpaid(request: ParsedEnhanceRequest): Promise<EnhanceResponse> {
    this.#enhancer.checkOptions(request.options);
    if (!this.#threads) return this.#snapshot(() => this.#enhancer.enhance(request, {}));
    const answer = await this.#threads.answer({ kind: 'enhance', request, queryCtx: {} });
    return JSON.parse(answerJson(answer)) as EnhanceResponse;
  }

  /** Charges `cost` credits to the token, atomically; throws 429, charging nothing, when it cannot pay. */
  charge(tokenId: string, cost: number): Promise<void> {
    return this.#charge('reconcile', cost, { tokenId, queryCtx: {} });
  }

  /** The answering part, without payment (bulk jobs charge per record themselves). */
  get enhancer(): Enhancer {
    return this.#enhancer;
  }

  /** `GET`/`POST /kg/v3/enhance`. */
  enhance(request: ParsedEnhanceRequest, context: EnhanceContext): Promise<EnhanceResponse> {
    const answer = this.#snapshot(() => this.#enhancer.enhance(request, context.queryCtx));
    return this.#paid('enhance', answer, context);
  }

  /** `GET /kg/v3/enhance/combine`. */
  combine(request: ParsedEnhanceRequest, context: EnhanceContext): Promise<EnhanceResponse> {
    const answer = this.#snapshot(() => this.#enhancer.combine(request, context.queryCtx));
    return this.#paid('combine', answer, context);
  }

  async #paid(
    kind: AnswerKind,
    response: EnhanceResponse,
    context: EnhanceContext,
  ): Promise<EnhanceResponse> {
    await this.#charge(kind, creditCost(matchedCount(response), 0, this.#credits), context);
    this.#reportMatch(kind, response);
    return response;
  }

  async #charge(kind: ChargedOperation, cost: number, context: EnhanceContext): Promise<void> {
    if (cost > 0 && !(await this.#tokens.tryCharge(context.tokenId, cost)))
      throw new InsufficientCreditsError();
    this.#metrics?.creditsCharged(kind, cost);
  }

  #reportMatch(kind: AnswerKind, response: EnhanceResponse): void {
    if (!this.#metrics) return;
    const { candidates, bestScore } = matchSummary(response);
    this.#metrics.matchAnswered(kind, candidates, bestScore);
  }
}

/**
 * Answers enhance and combine queries from the graph: finds the entity a query describes and
 * shapes the response. Read-only and free of payment, so bulk workers can run it in threads.
 */
export class Enhancer {
  readonly #deps: EnhancerDeps;
  /** Compiled `filter`/`filterExclude` pairs: bulk jobs apply the same pair to every record. */
  readonly #filters = new CompiledFilters();

  constructor(deps: EnhancerDeps) {
    this.#deps = deps;
  }

  /** The threshold applied to `type` when a request gives none. */
  defaultThresholdFor(type: EntityType): number {
    return this.#deps.matcher.defaultThresholdFor(type);
  }

  /** Loads the matcher's vocabularies now rather than on the first query (see `Matcher.warmUp`). */
  warmUp(): void {
    this.#deps.matcher.warmUp();
  }

  /** Checks what can be checked before answering: compiles `filter`/`filterExclude` (400). */
  checkOptions(options: EnhanceOptions): void {
    this.#filterOf(options);
  }

  /** Answers one enhance query. */
  enhance(request: ParsedEnhanceRequest, queryCtx: Record<string, unknown>): EnhanceResponse {
    this.#filterOf(request.options);
    const response = this.#baseResponse(request, queryCtx);
    const { query, options } = request;
    if (query.id !== undefined) {
      this.#answerById(query, options, response);
    } else {
      const candidates = this.#candidates(query, options, response);
      this.#fillFromCandidates(query.type ?? 'Organization', candidates, options, response);
    }
    return response;
  }

  /**
   * `GET /kg/v3/enhance/combine`: `data[0]` is the matched Person and, when their current
   * employer resolves to a graph Organization, `data[1]` is it with
   * `entity_ctx.role = "currentEmployer"`. No current employer: a note in `errors`.
   */
  combine(request: ParsedEnhanceRequest, queryCtx: Record<string, unknown>): EnhanceResponse {
    this.#filterOf(request.options);
    const response = this.#baseResponse(request, queryCtx);
    const { query, options } = request;
    const combineOptions: EnhanceOptions = { ...options, size: 1 };
    const candidates = this.#candidates(query, combineOptions, response);
    this.#fillFromCandidates('Person', candidates, combineOptions, response);
    const person = response.data[0];
    if (person) {
      const stored = this.#deps.entities.getById(String(person.entity?.id));
      const employer = stored ? this.employerHitFor(stored, options) : undefined;
      if (!employer) {
        response.errors.push(NO_CURRENT_EMPLOYER);
      } else {
        response.data.push(employer);
        response.hits = response.data.length;
      }
    }
    return response;
  }

  /**
   * Combine's `data[1]`: the hit of `person`'s current employer when it resolves to a graph
   * Organization (`entity_ctx.role = "currentEmployer"`), else `undefined`.
   */
  employerHitFor(person: StoredEntity, options: EnhanceOptions): EnhanceHit | undefined {
    const employer = this.#currentEmployer(person.doc);
    if (!employer) return undefined;
    const hit = this.#hit(employer.stored, employer.score, employer.esscore, options);
    hit.entity_ctx = { ...hit.entity_ctx, role: 'currentEmployer' };
    return hit;
  }

  /** The hit of a stored entity as a response returns it (`filter`, `jsonmode`, `nonCanonicalFacts`). */
  hitFor(stored: StoredEntity, score: number, esscore: number, options: EnhanceOptions): EnhanceHit {
    return this.#hit(stored, score, esscore, options);
  }

  #baseResponse(request: ParsedEnhanceRequest, queryCtx: Record<string, unknown>): EnhanceResponse {
    const errors = [...request.warnings];
    return {
      version: RESPONSE_VERSION,
      hits: 0,
      kgversion: this.#deps.entities.version(),
      request_ctx: { query: echoQuery(request.query), query_ctx: queryCtx },
      data: [],
      errors,
      searchInfo: {},
    };
  }

  /**
   * The candidates of `query`, best first. What the matcher noted on the query's fields (a
   * field it could not read, a phone number read in several countries, a field it does not
   * use) goes to the response's `errors`.
   */
  #candidates(query: EnhanceQuery, options: EnhanceOptions, response: EnhanceResponse): ScoredCandidate[] {
    const { candidates, notes } = this.#deps.matcher.search(matchQueryOf(query), {
      limit: candidateLimit(options),
    });
    response.errors.push(...notes);
    return candidates;
  }

  #fillFromCandidates(
    type: EntityType,
    candidates: ScoredCandidate[],
    options: EnhanceOptions,
    response: EnhanceResponse,
  ): void {
    const threshold = options.threshold ?? this.#deps.matcher.defaultThresholdFor(type);
    const winners = candidates.filter((c) => c.score >= threshold).slice(0, options.size);
    const stored = new Map(this.#deps.entities.getByRefs(winners.map((c) => c.ref)).map((e) => [e.ref, e]));
    for (const candidate of winners) {
      const entity = stored.get(candidate.ref);
      if (entity) response.data.push(this.#hit(entity, candidate.score, candidate.esscore, options));
    }
    response.hits = response.data.length;
    const listed = new Set(winners.map((c) => c.id));
    for (const candidate of candidates) {
      if (candidate.score < SEARCH_INFO_FLOOR && !listed.has(candidate.id)) continue;
      response.searchInfo[candidate.id] = searchCandidate(candidate, listed.has(candidate.id));
    }
  }

  #answerById(query: EnhanceQuery, options: EnhanceOptions, response: EnhanceResponse): void {
    const stored = this.#deps.entities.getById(query.id!);
    if (!stored) {
      response.errors.push(`No entity with id ${JSON.stringify(query.id)} in the knowledge graph`);
      return;
    }
    if (query.type !== undefined && stored.type !== query.type) {
      response.errors.push(`Entity ${stored.id} is a ${stored.type}, not a ${query.type}`);
      return;
    }
    response.data.push(this.#hit(stored, 1, 0, options));
    response.hits = 1;
  }

  /** Resolves a person's current employer: by linked id, else by matching the employer name. */
  #currentEmployer(person: Entity): { stored: StoredEntity; score: number; esscore: number } | undefined {
    const current = (person.employments ?? []).filter((e) => e.isCurrent === true && e.employer);
    for (const employment of current) {
      const link = employment.employer!;
      if (typeof link.id === 'string') {
        const stored = this.#deps.entities.getById(link.id);
        if (stored && stored.type === 'Organization') return { stored, score: 1, esscore: 0 };
      }
      if (typeof link.name === 'string' && link.name.trim() !== '') {
        const [best] = this.#deps.matcher.match(
          { type: 'Organization', names: [link.name], urls: [], emails: [], phones: [] },
          { limit: 1 },
        );
        if (best && best.score >= this.#deps.matcher.defaultThresholdFor('Organization')) {
          const [stored] = this.#deps.entities.getByRefs([best.ref]);
          if (stored) return { stored, score: best.score, esscore: best.esscore };
        }
      }
    }
    return undefined;
  }

  /** Compiles (once) the request's filters; throws a 400 naming a bad path. */
  #filterOf(options: EnhanceOptions): EntityFilter | undefined {
    if (options.filter === undefined && options.filterExclude === undefined) return undefined;
    return this.#filters.of(options.filter, options.filterExclude);
  }

  #hit(stored: StoredEntity, score: number, esscore: number, options: EnhanceOptions): EnhanceHit {
    let entity: Record<string, unknown> = { ...stored.doc };
    if (!options.nonCanonicalFacts) delete entity.nonCanonicalFacts;
    const filter = this.#filterOf(options);
    if (filter) entity = applyEntityFilter(entity, filter);
    const hit: EnhanceHit = { score: round(score), esscore: round(esscore), entity };
    if (options.jsonmode === 'extended') {
      hit.entity_ctx = { factOrigins: factOriginsOf(stored.doc, stored.ledger as FactLedger | null) };
    }
    return hit;
  }
}

/** The note of a combine answer whose person has no current employer in the graph. */
export const NO_CURRENT_EMPLOYER = 'The person has no current employer in the knowledge graph';

/** Candidates an answer asks the matcher for: `size`, and enough to explain in `searchInfo`. */
export function candidateLimit(options: EnhanceOptions): number {
  return Math.max(options.size, SEARCH_INFO_MIN_CANDIDATES);
}

/** What the matcher is asked for an enhance query. */
export function matchQueryOf(query: EnhanceQuery): MatchQuery {
  return {
    type: query.type ?? 'Organization',
    names: query.name,
    urls: query.url,
    emails: query.email,
    phones: query.phone === undefined ? [] : [query.phone],
    location: query.location,
    employer: query.employer,
    title: query.title,
    school: query.school,
    description: query.description,
    ip: query.ip,
  };
}

/** A candidate's `searchInfo` record (docs/api.md#searchinfo); `mlScore` = `baseMlScore` here. */
export function searchCandidate(candidate: ScoredCandidate, returned: boolean): SearchCandidate {
  return {
    mlScore: round(candidate.score),
    baseMlScore: round(candidate.score),
    debugInfo: {
      message: candidate.explanation.summary,
      hasResult: returned,
      // The explanation's own objects: built for this answer alone (copies were pure garbage).
      features: candidate.explanation.features,
      contributions: candidate.explanation.contributions,
    },
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

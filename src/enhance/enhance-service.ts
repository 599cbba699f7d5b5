import type { TokenService } from '../accounts/index.ts';
import type { CreditCosts } from '../config.ts';
import { InsufficientCreditsError } from '../errors.ts';
import type { Entity } from '../kg/index.ts';
import type { Matcher, MatchQuery, ScoredCandidate } from '../match/index.ts';
import type { EntityStore, StoredEntity } from '../storage/index.ts';
import { type EnhanceOptions, type EnhanceQuery, echoQuery, type ParsedEnhanceRequest } from './query.ts';
import { type EnhanceHit, type EnhanceResponse, RESPONSE_VERSION, type SearchCandidate } from './response.ts';

/** Candidates listed in `searchInfo` below this score are noise, not explanation. */
const SEARCH_INFO_FLOOR = 0.01;
/** `searchInfo` lists at least this many candidates (when plausible), whatever `size` is. */
const SEARCH_INFO_MIN_CANDIDATES = 5;

export const REFRESH_UNAVAILABLE =
  'refresh is not available yet: the entity was answered from the knowledge graph without recrawling its origins';
export const SEARCH_UNAVAILABLE =
  'search is not available yet: the answer comes from the knowledge graph only, without a web search';

export interface EnhanceDeps {
  readonly entities: Pick<EntityStore, 'getById' | 'getByRefs' | 'version'>;
  readonly matcher: Matcher;
  readonly tokens: TokenService;
  readonly credits: CreditCosts;
}

/** Per-call context: who pays and what was submitted (echoed in `request_ctx.query_ctx`). */
export interface EnhanceContext {
  readonly tokenId: string;
  readonly queryCtx: Record<string, unknown>;
}

/**
 * The enhance and combine use cases: find the entity a query describes, shape the response,
 * charge credits (DECISIONS.md §1: per returned matched entity; nothing for no match or error).
 */
export class EnhanceService {
  readonly #deps: EnhanceDeps;

  constructor(deps: EnhanceDeps) {
    this.#deps = deps;
  }

  /** The threshold applied when a request gives none. */
  get defaultThreshold(): number {
    return this.#deps.matcher.defaultThreshold;
  }

  /** `GET`/`POST /kg/v3/enhance`. Throws 429 (charging nothing) when credits do not cover it. */
  enhance(request: ParsedEnhanceRequest, context: EnhanceContext): EnhanceResponse {
    const response = this.#baseResponse(request, context);
    const { query, options } = request;
    if (query.id !== undefined) {
      this.#answerById(query, options, response);
    } else {
      const candidates = this.#candidates(query, options);
      this.#fillFromCandidates(candidates, options, response);
    }
    this.#charge(context.tokenId, response.data, options);
    return response;
  }

  /**
   * `GET /kg/v3/enhance/combine`: `data[0]` is the matched Person and, when their current
   * employer resolves to a graph Organization, `data[1]` is it with
   * `entity_ctx.role = "currentEmployer"`. No current employer: a note in `errors`.
   */
  combine(request: ParsedEnhanceRequest, context: EnhanceContext): EnhanceResponse {
    const response = this.#baseResponse(request, context);
    const { query, options } = request;
    const combineOptions: EnhanceOptions = { ...options, size: 1 };
    const candidates = this.#candidates(query, combineOptions);
    this.#fillFromCandidates(candidates, combineOptions, response);
    const person = response.data[0];
    if (person) {
      const stored = this.#deps.entities.getById(String(person.entity?.id));
      const employer = stored ? this.#currentEmployer(stored.doc) : undefined;
      if (!employer) {
        response.errors.push('The person has no current employer in the knowledge graph');
      } else {
        const hit = this.#hit(employer.stored, employer.score, employer.esscore, options);
        hit.entity_ctx = { ...hit.entity_ctx, role: 'currentEmployer' };
        response.data.push(hit);
        response.hits = response.data.length;
      }
    }
    this.#charge(context.tokenId, response.data, options);
    return response;
  }

  #baseResponse(request: ParsedEnhanceRequest, context: EnhanceContext): EnhanceResponse {
    const errors = [...request.warnings];
    if (request.options.refresh) errors.push(REFRESH_UNAVAILABLE);
    if (request.options.search) errors.push(SEARCH_UNAVAILABLE);
    return {
      version: RESPONSE_VERSION,
      hits: 0,
      kgversion: this.#deps.entities.version(),
      request_ctx: { query: echoQuery(request.query), query_ctx: context.queryCtx },
      data: [],
      errors,
      searchInfo: {},
    };
  }

  #candidates(query: EnhanceQuery, options: EnhanceOptions): ScoredCandidate[] {
    const matchQuery: MatchQuery = {
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
    return this.#deps.matcher.match(matchQuery, {
      limit: Math.max(options.size, SEARCH_INFO_MIN_CANDIDATES),
    });
  }

  #fillFromCandidates(
    candidates: ScoredCandidate[],
    options: EnhanceOptions,
    response: EnhanceResponse,
  ): void {
    const threshold = options.threshold ?? this.#deps.matcher.defaultThreshold;
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
        if (best && best.score >= this.#deps.matcher.defaultThreshold) {
          const [stored] = this.#deps.entities.getByRefs([best.ref]);
          if (stored) return { stored, score: best.score, esscore: best.esscore };
        }
      }
    }
    return undefined;
  }

  #hit(stored: StoredEntity, score: number, esscore: number, options: EnhanceOptions): EnhanceHit {
    const entity: Record<string, unknown> = { ...stored.doc };
    if (!options.nonCanonicalFacts) delete entity.nonCanonicalFacts;
    const hit: EnhanceHit = { score: round(score), esscore: round(esscore), entity };
    if (options.jsonmode === 'extended') hit.entity_ctx = { factOrigins: factOrigins(stored) };
    return hit;
  }

  #charge(tokenId: string, data: readonly EnhanceHit[], options: EnhanceOptions): void {
    const matched = data.filter((hit) => hit.entity !== null).length;
    if (matched === 0) return;
    const unit = options.refresh ? this.#deps.credits.perMatchRefresh : this.#deps.credits.perMatch;
    if (!this.#deps.tokens.tryCharge(tokenId, matched * unit)) throw new InsufficientCreditsError();
  }
}

function searchCandidate(candidate: ScoredCandidate, returned: boolean): SearchCandidate {
  return {
    mlScore: round(candidate.score),
    baseMlScore: round(candidate.score),
    debugInfo: {
      message: candidate.explanation.summary,
      hasResult: returned,
      features: { ...candidate.explanation.features },
      contributions: { ...candidate.explanation.contributions },
    },
  };
}

/** Origins supporting each top-level field; a single-source entity's facts share its origins. */
function factOrigins(stored: StoredEntity): Record<string, string[]> {
  const origins = stored.doc.origins ?? [];
  const out: Record<string, string[]> = {};
  for (const field of Object.keys(stored.doc)) {
    if (field === 'id' || field === 'type' || field === 'nonCanonicalFacts') continue;
    out[field] = [...origins];
  }
  return out;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

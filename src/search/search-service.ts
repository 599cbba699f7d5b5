/**
 * Search (docs/api.md#refresh-and-search): the entities web pages describe, as candidates the
 * matcher scores beside the graph's.
 *
 * 1. `gather`: the query is planned into web searches (`query-plan.ts`) sent to the provider;
 *    the results are ranked (how many searches returned them and how high, whether they mention
 *    the name) and the best pages are fetched politely (`refresh/`'s `OriginFetcher`: SSRF rule,
 *    robots.txt at every redirect hop, per-host delay) and read by the built-in extractor of the
 *    query's type. Each page's statement is taken for the graph entity the matcher finds for it
 *    (score ≥ `MERGE_SCORE`, as bulk extract jobs ingest pages), else for a new entity (pages
 *    naming the same entity are grouped). Nothing is stored yet.
 * 2. `score`: the graph with that evidence added (`OverlaySource`) is matched against the
 *    query, so search candidates and graph candidates compete under the same calibrated model.
 * 3. `persist`: the evidence of the candidates an answer returns is stored through the fact
 *    ledger (each page a source `web:<url>`); an entity found on the web alone gets a new id
 *    and its pages as origins. Irrelevant and hostile results never reach the graph.
 */
import { crawledEntityId, type EntityStatement, MERGE_SCORE } from '../crawl/index.ts';
import type { EnhanceQuery } from '../enhance/index.ts';
import {
  applyStatement,
  type Entity,
  type EntityType,
  type FactLedger,
  type LedgerState,
  normalizeOrganizationName,
  normalizePersonName,
  TypeConflict,
} from '../kg/index.ts';
import {
  type CandidateSource,
  indexEntity,
  type Matcher,
  type MatchQuery,
  type ScoredCandidate,
} from '../match/index.ts';
import {
  type EntityPageReader,
  type FetchPriority,
  type OriginFetcher,
  type OriginPage,
  pageSource,
  type RefreshDebugRecord,
  statementEntity,
} from '../refresh/index.ts';
import type { EntityStore, OriginFetchRecord, OriginFetchStore, StoredEntity } from '../storage/index.ts';
import { type OverlayEntity, OverlaySource } from './overlay-source.ts';
import type { SearchProvider, SearchResult } from './provider.ts';
import { planQueries } from './query-plan.ts';

/** Result pages fetched per search at most. */
export const MAX_SEARCH_PAGES = 6;

/** One page's statement about an entity. */
export interface PageStatement {
  readonly url: string;
  readonly fetchedAt: number;
  /** The statement as an entity of the evidence's id. */
  readonly statement: Entity;
}

/** What the pages say about one entity. */
export interface SearchEvidence {
  /** A graph entity's id, or the new id of an entity found on the web alone. */
  readonly id: string;
  readonly type: EntityType;
  readonly isNew: boolean;
  /** The graph's ref, or a negative ref for a new entity (the overlay's). */
  readonly ref: number;
  readonly pages: readonly PageStatement[];
  /** The entity with the pages merged in (not stored). */
  readonly state: LedgerState;
}

/** What a search found. */
export interface SearchRun {
  readonly queries: readonly string[];
  /** Distinct result URLs. */
  readonly results: number;
  /** Per page fetched (or tried), keyed by URL. */
  readonly pages: Readonly<Record<string, RefreshDebugRecord>>;
  /** Pages fetched (a 2xx answer read). */
  readonly fetched: number;
  /** Result pages tried that gave no page (refused, disallowed, gone, too large…). */
  readonly failed: number;
  readonly evidence: readonly SearchEvidence[];
  /** Notes for the response (provider failures). */
  readonly errors: readonly string[];
}

/** A scored candidate and, when search pages state it, its evidence. */
export interface SearchCandidateScore {
  readonly candidate: ScoredCandidate;
  readonly evidence: SearchEvidence | undefined;
}

export interface SearchDeps {
  readonly provider: SearchProvider;
  readonly fetcher: OriginFetcher;
  readonly reader: EntityPageReader;
  readonly fetches: OriginFetchStore;
  readonly entities: Pick<EntityStore, 'getById' | 'getByIds' | 'exclusively' | 'writeBatch'>;
  /** What matchers read: the graph (through a `LaggingVersionSource` in a server). */
  readonly candidates: CandidateSource;
  /**
   * A matcher over a source (made per use: the graph changes between uses), sharing the
   * vocabularies of the others so made.
   */
  readonly matcherOver: (source: CandidateSource) => Matcher;
  readonly maxPages?: number;
}

/** A page read, and the entity it states. */
interface PageFinding {
  readonly page: Extract<OriginPage, { ok: true }>;
  readonly statement: EntityStatement;
}

/** Options of one search. */
export interface GatherOptions {
  readonly priority?: FetchPriority;
  /** Epoch ms after which no new search or fetch starts. */
  readonly deadline?: number;
}

function nameKey(type: EntityType, name: string): string {
  if (type === 'Organization') return normalizeOrganizationName(name).key;
  return [...normalizePersonName(name).tokens].sort().join(' ');
}

function nameWords(type: EntityType, names: readonly string[]): string[] {
  return names.flatMap((name) =>
    type === 'Organization'
      ? [...normalizeOrganizationName(name).significant]
      : [...normalizePersonName(name).tokens],
  );
}

/** Result URLs best first: by how many searches returned them and how high, names mentioned. */
function rankResults(lists: readonly (readonly SearchResult[])[], words: readonly string[]): string[] {
  const score = new Map<string, number>();
  for (const list of lists) {
    list.forEach((result, rank) => {
      let url: string;
      try {
        const parsed = new URL(result.url);
        parsed.hash = '';
        url = parsed.href;
      } catch {
        return;
      }
      const text = `${result.title} ${result.content} ${url}`.toLowerCase();
      const mentions = words.some((word) => word.length > 1 && text.includes(word)) ? 1 : 0;
      score.set(url, (score.get(url) ?? 0) + 1 / (rank + 1) + mentions);
    });
  }
  return [...score.entries()].sort((a, b) => b[1] - a[1]).map(([url]) => url);
}

/** Search; see the module comment. */
export class SearchService {
  readonly #deps: SearchDeps;

  constructor(deps: SearchDeps) {
    this.#deps = deps;
  }

  /** The provider's name, for messages. */
  get providerName(): string {
    return this.#deps.provider.name;
  }

  /** Searches, fetches and reads the pages about `query` (a `type` entity). Never rejects. */
  async gather(query: EnhanceQuery, type: EntityType, options: GatherOptions = {}): Promise<SearchRun> {
    const queries = planQueries({ ...query, type });
    const errors: string[] = [];
    if (queries.length === 0) {
      return {
        queries,
        results: 0,
        pages: {},
        fetched: 0,
        failed: 0,
        evidence: [],
        errors: ['search: the query has nothing to search for'],
      };
    }
    const remaining = options.deadline === undefined ? undefined : Math.max(1, options.deadline - Date.now());
    const signal = remaining === undefined ? undefined : AbortSignal.timeout(remaining);
    const lists = await Promise.all(
      queries.map((q) =>
        this.#deps.provider.search(q, { signal }).catch((error: Error) => {
          errors.push(`search: ${error.message}`);
          return [] as SearchResult[];
        }),
      ),
    );
    // One note when every search failed the same way.
    const notes = [...new Set(errors)];
    const ranked = rankResults(lists, nameWords(type, query.name));
    // Pages that fail (refused, disallowed, too large, gone) do not use up the budget of pages
    // read: the next results are tried, up to twice the budget in all.
    const budget = this.#deps.maxPages ?? MAX_SEARCH_PAGES;
    const fetched: OriginPage[] = [];
    let next = 0;
    for (;;) {
      const read = fetched.filter((p) => p.ok).length;
      const room = Math.min(budget - read, 2 * budget - fetched.length, ranked.length - next);
      if (room <= 0) break;
      const batch = ranked.slice(next, next + room);
      next += batch.length;
      fetched.push(
        ...(await Promise.all(
          batch.map((url) =>
            this.#deps.fetcher.fetchPage(url, { priority: options.priority, deadline: options.deadline }),
          ),
        )),
      );
    }
    const pages: Record<string, RefreshDebugRecord> = {};
    const records: OriginFetchRecord[] = [];
    const statements: PageFinding[] = [];
    for (const page of fetched) {
      let hasResult = false;
      let message: string;
      if (!page.ok) {
        message = page.message;
      } else {
        try {
          const statement = await this.#deps.reader.read(type, page);
          if (statement) {
            statements.push({ page, statement });
            hasResult = true;
            message = `fetched: the page describes ${JSON.stringify(statement.name)}`;
          } else {
            message = `no ${type === 'Organization' ? 'organization' : 'person'} found on the page`;
          }
        } catch (error) {
          message = `the page could not be read: ${(error as Error).message}`;
        }
      }
      pages[page.url] = { url: page.url, hasResult, lastCrawlTime: page.fetchedAt, message };
      records.push({
        url: page.url,
        fetchedAt: page.fetchedAt,
        hasResult,
        httpStatus: page.ok ? page.status : page.httpStatus,
        message,
      });
    }
    await this.#deps.fetches.record(records);
    return {
      queries,
      results: ranked.length,
      pages,
      fetched: fetched.filter((p) => p.ok).length,
      failed: fetched.filter((p) => !p.ok).length,
      evidence: this.#evidence(type, statements),
      errors: notes,
    };
  }

  /** Groups page statements by the entity they speak of (see the module comment). */
  #evidence(type: EntityType, statements: readonly PageFinding[]): SearchEvidence[] {
    const groups = new Map<
      string,
      { id: string; stored: StoredEntity | undefined; pages: PageStatement[] }
    >();
    const newByName = new Map<string, string>();
    for (const { page, statement } of statements) {
      let id = this.#resolve(statement, page.url);
      let stored = this.#deps.entities.getById(id);
      if (stored && stored.type !== type) continue;
      if (!stored) {
        // Pages naming the same new entity are one entity, whatever site each page is on.
        const key = `${type}\n${nameKey(type, statement.name)}`;
        id = newByName.get(key) ?? id;
        newByName.set(key, id);
        stored = undefined;
      }
      const valid = statementEntity(statement, id);
      if ('refused' in valid) continue;
      const group = groups.get(id) ?? { id, stored, pages: [] };
      group.pages.push({ url: page.url, fetchedAt: page.fetchedAt, statement: valid.entity });
      groups.set(id, group);
    }
    const out: SearchEvidence[] = [];
    let nextRef = -1;
    for (const group of groups.values()) {
      const start: LedgerState | undefined = group.stored
        ? { doc: group.stored.doc, ledger: group.stored.ledger as FactLedger | null }
        : undefined;
      const state = mergePages(start, group.pages);
      if (!state) continue;
      out.push({
        id: group.id,
        type,
        isNew: group.stored === undefined,
        ref: group.stored ? group.stored.ref : nextRef--,
        pages: group.pages,
        state,
      });
    }
    return out;
  }

  /**
   * The id of the entity `statement` speaks of: the graph entity the matcher finds for it with
   * a score of at least `MERGE_SCORE` (as bulk extract jobs decide), else the id a crawl of the
   * page would give it (`crawl-o-…`/`crawl-p-…`), so either way finds the other's entity.
   */
  #resolve(statement: EntityStatement, url: string): string {
    const strings = (value: unknown, pick: (item: Record<string, unknown>) => unknown): string[] =>
      (Array.isArray(value) ? value : [])
        .map((item) => (item && typeof item === 'object' ? pick(item as Record<string, unknown>) : item))
        .filter((item): item is string => typeof item === 'string' && item !== '');
    const [best] = this.#deps.matcherOver(this.#deps.candidates).match(
      {
        type: statement.type,
        names: [statement.name],
        urls: typeof statement.homepageUri === 'string' ? [statement.homepageUri] : [],
        emails: strings(statement.emailAddresses, (item) => item.contactString),
        phones: strings(statement.phoneNumbers, (item) => item.digits ?? item.string),
        ...placeOf(statement),
      },
      { limit: 1 },
    );
    if (best && best.type === statement.type && best.score >= MERGE_SCORE) return best.id;
    const anchor = typeof statement.homepageUri === 'string' ? statement.homepageUri : url;
    return crawledEntityId(statement.type, statement.name, anchor);
  }

  /**
   * The query's candidates with `evidence` added to the graph, best first (at most `limit`),
   * each with its evidence when pages state it.
   */
  score(query: MatchQuery, evidence: readonly SearchEvidence[], limit: number): SearchCandidateScore[] {
    const overlay: OverlayEntity[] = evidence.map((e) => ({
      ref: e.ref,
      id: e.id,
      type: e.type,
      ...indexEntity(e.state.doc),
    }));
    const matcher = this.#deps.matcherOver(new OverlaySource(this.#deps.candidates, overlay));
    const byId = new Map(evidence.map((e) => [e.id, e]));
    return matcher
      .match(query, { limit })
      .map((candidate) => ({ candidate, evidence: byId.get(candidate.id) }));
  }

  /**
   * Stores `evidence` through the fact ledger (over what is stored now, under the write lock) and
   * returns the stored entities by id.
   */
  persist(evidence: readonly SearchEvidence[]): Map<string, StoredEntity> {
    const { entities } = this.#deps;
    if (evidence.length === 0) return new Map();
    const ids = evidence.map((e) => e.id);
    entities.exclusively(() => {
      const current = entities.getByIds(ids);
      const writes = [];
      for (const e of evidence) {
        const stored = current.get(e.id);
        if (stored && stored.type !== e.type) continue;
        const start: LedgerState | undefined = stored
          ? { doc: stored.doc, ledger: stored.ledger as FactLedger | null }
          : undefined;
        const state = mergePages(start, e.pages);
        if (!state || state === start) continue;
        writes.push({
          id: e.id,
          type: state.doc.type,
          doc: state.doc,
          ledger: state.ledger,
          ...indexEntity(state.doc),
        });
      }
      entities.writeBatch(writes);
    });
    return entities.getByIds(ids);
  }
}

/** `start` with each page's statement applied as the source `web:<url>`. */
function mergePages(
  start: LedgerState | undefined,
  pages: readonly PageStatement[],
): LedgerState | undefined {
  let state = start;
  for (const page of pages) {
    try {
      state = applyStatement(state, pageSource(page.url), page.statement);
    } catch (error) {
      if (!(error instanceof TypeConflict)) throw error;
    }
  }
  return state;
}

/** Where a page says the entity is, as a query's `location` (city, region, country). */
function placeOf(statement: EntityStatement): { location?: string } {
  const location = (statement as { location?: Record<string, { name?: unknown } | undefined> }).location;
  const parts = ['city', 'region', 'country']
    .map((part) => location?.[part]?.name)
    .filter((name): name is string => typeof name === 'string' && name !== '');
  return parts.length ? { location: parts.join(', ') } : {};
}

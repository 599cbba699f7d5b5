/**
 * `refresh=true` (docs/api.md#refresh-and-search): an entity rebuilt from what its pages say
 * today. Every origin URL of the entity (its `origins`, and for an Organization its
 * `homepageUri`) is fetched politely (`OriginFetcher`) unless it was fetched less than the
 * freshness window ago, read by the built-in extractor of the entity's type, and each page's
 * statement is merged into the entity through the fact ledger (`kg/`): the page is a source of
 * its own (`web:<url>`), its new statement replaces what it said last time, facts other
 * sources state are kept, and values that lose go to `nonCanonicalFacts`. The rebuilt entity is
 * stored with its match index, so enhance finds it by its new facts at once.
 *
 * Many requests refreshing one entity at the same time share one refresh (single flight).
 */
import {
  applyStatement,
  type Entity,
  type FactLedger,
  type LedgerState,
  structuralKey,
  TypeConflict,
} from '../kg/index.ts';
import { indexEntity } from '../match/index.ts';
import type { EntityStore, OriginFetchRecord, OriginFetchStore, StoredEntity } from '../storage/index.ts';
import { type RefreshDelta, refreshDelta } from './delta.ts';
import type { FetchPriority } from './host-turns.ts';
import type { OriginFetcher, OriginPage } from './origin-fetcher.ts';
import { describesEntity, type EntityPageReader, statementEntity } from './page-statements.ts';

/** One URL's line of `refreshInfo` (SPEC's refresh debug record). */
export interface RefreshDebugRecord {
  readonly url: string;
  readonly hasResult: boolean;
  /** When the URL was last fetched, epoch ms (0: never). */
  readonly lastCrawlTime: number;
  /** What happened: why the URL gave nothing, or what it gave. */
  readonly message: string;
}

/** What a refresh did. */
export interface RefreshReport {
  readonly entityId: string;
  /** The entity after the refresh (as before when nothing changed); `undefined` when unknown. */
  readonly entity: StoredEntity | undefined;
  /** Per URL, keyed by URL. */
  readonly info: Record<string, RefreshDebugRecord>;
  readonly delta: RefreshDelta;
  /**
   * Whether what the matcher reads of the entity (its match profile) changed: when it did not,
   * every query scores it as before (scoring it again is wasted work).
   */
  readonly matchChanged: boolean;
  /** Pages fetched now (a 2xx answer read): the work credits are charged for. */
  readonly fetched: number;
  /** URLs tried that gave no page (gone, refused, disallowed, unreachable). */
  readonly failed: number;
  /** URLs not fetched because they were fetched within the freshness window. */
  readonly fresh: number;
  /** Notes for the hit's `errors` (no origin to refresh, unknown entity). */
  readonly errors: readonly string[];
}

/** Options of one refresh. */
export interface RefreshOptions {
  readonly priority?: FetchPriority;
  /** Epoch ms after which no new fetch starts (interactive requests). */
  readonly deadline?: number;
}

export interface RefreshDeps {
  readonly entities: Pick<EntityStore, 'getById' | 'exclusively' | 'writeBatch'>;
  readonly fetches: OriginFetchStore;
  readonly fetcher: OriginFetcher;
  readonly reader: EntityPageReader;
  /** An origin fetched (2xx) less than this long ago is not fetched again, ms. */
  readonly maxAgeMs: number;
  readonly now?: () => number;
}

/** URLs fetched per refresh at most (the homepage and the first origins). */
export const MAX_REFRESH_URLS = 10;

/** The source identity of what a page said when refresh or search read it (fact ledger). */
export function pageSource(url: string): string {
  return `web:${url}`;
}

function isHttpUrl(value: unknown): value is string {
  return typeof value === 'string' && /^https?:\/\//i.test(value);
}

/**
 * The URLs a refresh fetches for `entity`: its http(s) origins and, for an Organization, its
 * homepage (`http://<homepageUri>/`, which redirects to https where a site has it) unless an
 * origin is already that site's root; at most `MAX_REFRESH_URLS`, the homepage kept first.
 */
export function refreshUrls(entity: Entity): string[] {
  const origins: string[] = [];
  for (const origin of Array.isArray(entity.origins) ? entity.origins : []) {
    if (!isHttpUrl(origin)) continue;
    try {
      const href = new URL(origin).href;
      if (!origins.includes(href)) origins.push(href);
    } catch {
      // Not a URL after all: nothing to fetch.
    }
  }
  const homepage = entity.type === 'Organization' ? homepageUrl(entity.homepageUri) : undefined;
  if (!homepage) return origins.slice(0, MAX_REFRESH_URLS);
  const site = new URL(homepage).hostname;
  const rootKnown = origins.some((origin) => {
    const url = new URL(origin);
    return url.hostname.replace(/^www\./, '') === site && url.pathname === '/' && url.search === '';
  });
  if (rootKnown) return origins.slice(0, MAX_REFRESH_URLS);
  return [homepage, ...origins.slice(0, MAX_REFRESH_URLS - 1)];
}

function homepageUrl(homepageUri: unknown): string | undefined {
  if (typeof homepageUri !== 'string' || homepageUri.trim() === '') return undefined;
  const raw = homepageUri.trim();
  try {
    const url = new URL(isHttpUrl(raw) ? raw : `http://${raw}/`);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** What the matcher reads of an entity, as comparable text. */
function matchProfileKey(entity: Entity): string {
  return structuralKey(indexEntity(entity).profile);
}

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

function ago(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'less than a minute ago';
  if (minutes < 120) return `${minutes} min ago`;
  return `${Math.round(minutes / 60)} h ago`;
}

/** A page's outcome before merging. */
interface PageResult {
  readonly url: string;
  readonly record: OriginFetchRecord;
  readonly statement?: Entity;
}

/** A refresh's pages waiting to be merged and recorded. */
interface PendingMerge {
  readonly id: string;
  readonly results: readonly PageResult[];
  resolve(entity: StoredEntity | undefined): void;
  reject(error: unknown): void;
}

/** Refreshes entities; see the module comment. */
export class RefreshService {
  readonly #deps: RefreshDeps;
  readonly #now: () => number;
  readonly #inFlight = new Map<string, Promise<RefreshReport>>();
  /** Refreshes waiting for the next write (see `#store`). */
  readonly #pending: PendingMerge[] = [];

  constructor(deps: RefreshDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /**
   * Refreshes the entity `id`. A refresh of the same entity already under way is joined: its
   * report is this call's too (one fetch per URL however many ask at once).
   */
  refresh(id: string, options: RefreshOptions = {}): Promise<RefreshReport> {
    const running = this.#inFlight.get(id);
    if (running) return running;
    const refresh = this.#refresh(id, options).finally(() => this.#inFlight.delete(id));
    this.#inFlight.set(id, refresh);
    return refresh;
  }

  async #refresh(id: string, options: RefreshOptions): Promise<RefreshReport> {
    const stored = this.#deps.entities.getById(id);
    const empty: RefreshDelta = { added: {}, changed: {}, removed: [] };
    if (!stored) {
      return {
        entityId: id,
        entity: undefined,
        info: {},
        delta: empty,
        matchChanged: false,
        fetched: 0,
        failed: 0,
        fresh: 0,
        errors: [`No entity ${id} to refresh`],
      };
    }
    const urls = refreshUrls(stored.doc);
    if (urls.length === 0) {
      return {
        entityId: id,
        entity: stored,
        info: {},
        delta: empty,
        matchChanged: false,
        fetched: 0,
        failed: 0,
        fresh: 0,
        errors: ['refresh: the entity has no origin URL to fetch'],
      };
    }
    const now = this.#now();
    const last = await this.#deps.fetches.lastFetches(urls);
    const info: Record<string, RefreshDebugRecord> = {};
    const due: string[] = [];
    for (const url of urls) {
      const previous = last.get(url);
      const fresh =
        previous !== undefined &&
        isSuccess(previous.httpStatus) &&
        now - previous.fetchedAt < this.#deps.maxAgeMs;
      if (fresh) {
        info[url] = {
          url,
          hasResult: previous.hasResult,
          lastCrawlTime: previous.fetchedAt,
          message: `not fetched: fresh (fetched ${ago(now - previous.fetchedAt)})`,
        };
      } else {
        due.push(url);
      }
    }
    const results = await Promise.all(due.map((url) => this.#fetchStatement(url, stored.doc, options)));
    const before = stored.doc;
    const after = await this.#store(id, results);
    for (const result of results) {
      info[result.url] = {
        url: result.url,
        hasResult: result.record.hasResult,
        lastCrawlTime: result.record.fetchedAt,
        message: result.record.message,
      };
    }
    const fetched = results.filter((r) => isSuccess(r.record.httpStatus)).length;
    return {
      entityId: id,
      entity: after ?? stored,
      info,
      delta: after ? refreshDelta(before, after.doc) : empty,
      matchChanged: after !== undefined && matchProfileKey(before) !== matchProfileKey(after.doc),
      fetched,
      failed: results.length - fetched,
      fresh: urls.length - due.length,
      errors: [],
    };
  }

  /** Fetches and reads one URL of `entity`. Never throws. */
  async #fetchStatement(url: string, entity: Entity, options: RefreshOptions): Promise<PageResult> {
    const page: OriginPage = await this.#deps.fetcher.fetchPage(url, {
      priority: options.priority,
      deadline: options.deadline,
    });
    const record = (hasResult: boolean, message: string): OriginFetchRecord => ({
      url,
      fetchedAt: page.fetchedAt,
      hasResult,
      httpStatus: page.ok ? page.status : page.httpStatus,
      message,
    });
    if (!page.ok) return { url, record: record(false, page.message) };
    const kind = entity.type === 'Organization' ? 'organization' : 'person';
    let statement: Awaited<ReturnType<EntityPageReader['read']>>;
    try {
      statement = await this.#deps.reader.read(entity.type, page);
    } catch (error) {
      return { url, record: record(false, `the page could not be read: ${(error as Error).message}`) };
    }
    if (!statement) return { url, record: record(false, `no ${kind} found on the page`) };
    if (!describesEntity(statement, entity)) {
      return {
        url,
        record: record(
          false,
          `the page is about ${JSON.stringify(statement.name)}, not ${JSON.stringify(entity.name)}: its facts were not merged`,
        ),
      };
    }
    const valid = statementEntity(statement, entity.id);
    if ('refused' in valid)
      return { url, record: record(false, `the page's facts were refused: ${valid.refused}`) };
    const fields = Object.keys(valid.entity).filter((f) => f !== 'id' && f !== 'type' && f !== 'origins');
    return {
      url,
      record: record(true, `fetched: ${fields.length} fields (${fields.join(', ')})`),
      statement: valid.entity,
    };
  }

  /**
   * Merges the pages' statements into the stored entity and records the fetches. Refreshes
   * ending in the same turn of the event loop are written together (one transaction for their
   * entities, one for their fetches: a bulk job ends hundreds a second). Resolves with the new
   * entity, `undefined` when nothing changed.
   */
  #store(id: string, results: readonly PageResult[]): Promise<StoredEntity | undefined> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ id, results, resolve, reject });
      if (this.#pending.length === 1) setImmediate(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#pending.splice(0);
    let stored: (StoredEntity | undefined)[];
    try {
      stored = this.#merge(batch);
      await this.#deps.fetches.record(batch.flatMap((item) => item.results.map((r) => r.record)));
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const [i, item] of batch.entries()) item.resolve(stored[i]);
  }

  /**
   * Merges each item's statements into its stored entity, under the store's write lock (what is
   * merged over is what is stored), written as one batch. Per item: the new entity, or
   * `undefined` when nothing changed.
   */
  #merge(batch: readonly PendingMerge[]): (StoredEntity | undefined)[] {
    if (batch.every((item) => !item.results.some((r) => r.statement !== undefined))) {
      return batch.map(() => undefined);
    }
    const { entities } = this.#deps;
    return entities.exclusively(() => {
      const states = new Map<string, { ref: number; state: LedgerState; changed: boolean }>();
      const out: (StoredEntity | undefined)[] = [];
      for (const item of batch) {
        let entry = states.get(item.id);
        if (!entry) {
          const current = entities.getById(item.id);
          if (current) {
            entry = {
              ref: current.ref,
              state: { doc: current.doc, ledger: current.ledger as FactLedger | null },
              changed: false,
            };
            states.set(item.id, entry);
          }
        }
        const before = entry?.state;
        for (const result of item.results) {
          if (!entry || result.statement === undefined) continue;
          try {
            entry.state = applyStatement(entry.state, pageSource(result.url), result.statement);
          } catch (error) {
            if (!(error instanceof TypeConflict)) throw error;
          }
        }
        if (!entry || entry.state === before) {
          out.push(undefined);
          continue;
        }
        entry.changed = true;
        const { doc, ledger } = entry.state;
        out.push({ ref: entry.ref, id: item.id, type: doc.type, doc, ledger });
      }
      entities.writeBatch(
        [...states]
          .filter(([, entry]) => entry.changed)
          .map(([id, { state }]) => ({
            id,
            type: state.doc.type,
            doc: state.doc,
            ledger: state.ledger,
            ...indexEntity(state.doc),
          })),
      );
      return out;
    });
  }
}

/**
 * Reads for a whole batch of requests at once: a bulk worker's batch (issue 30: a bulk record
 * should cost less than a single query), and the single requests an enhance thread finds
 * queued together (issue 26: on PostgreSQL each read is a blocking round trip). Before the
 * batch's requests are answered one by one, `prepare` searches all their queries together
 * (`Matcher.searchMany`: the postings and profiles of the whole batch in a few reads) and reads the entities the answers will return in one read; the `Enhancer`
 * then answers each record as it always does, through a matcher and an entity store that serve
 * what was prepared. A query asked twice in a batch is searched once.
 *
 * Nothing here decides an answer: what was not prepared (a query whose search failed, an entity
 * not foreseen) is read as before, and what was prepared is what that read would give (the same
 * read snapshot, the matcher's own stages).
 */
import { candidateLimit, type EnhancerDeps, matchQueryOf } from './enhance-service.ts';
import type { ParsedEnhanceRequest } from './query.ts';
import type { Matcher, MatchOptions, MatchQuery, MatchResult } from '../match/index.ts';
import type { EntityStore, StoredEntity } from '../storage/index.ts';

/** What `#search` answers: the query with its candidate limit, as text. */
function searchKey(query: MatchQuery, options: MatchOptions | undefined): string {
  return `${options?.limit ?? 10}|${JSON.stringify(query)}`;
}

/** The matcher and entity reads of an `Enhancer` answering one batch at a time. */
export class BatchReads {
  readonly #matcher: Matcher;
  readonly #store: Pick<EntityStore, 'getById' | 'getByIds' | 'getByRefs' | 'version'>;
  /** Answers of the batch's searches, by `searchKey`. */
  #answers = new Map<string, MatchResult>();
  /** Entities of the batch's answers by ref, by id (`undefined`: read, absent); each served once. */
  #byRef = new Map<number, StoredEntity>();
  #byId = new Map<string, StoredEntity | undefined>();

  constructor(matcher: Matcher, store: Pick<EntityStore, 'getById' | 'getByIds' | 'getByRefs' | 'version'>) {
    this.#matcher = matcher;
    this.#store = store;
  }

  /** What the `Enhancer` is given: the matcher and entities serving what `prepare` read. */
  get deps(): EnhancerDeps {
    const matcher = this.#matcher;
    return {
      matcher: {
        defaultThresholdFor: (type) => matcher.defaultThresholdFor(type),
        warmUp: () => matcher.warmUp(),
        match: (query, options) => matcher.match(query, options),
        search: (query, options) =>
          this.#answers.get(searchKey(query, options)) ?? matcher.search(query, options),
        searchMany: (queries, options) => matcher.searchMany(queries, options),
      },
      entities: {
        getById: (id) => this.#getById(id),
        getByRefs: (refs) => this.#getByRefs(refs),
        version: () => this.#store.version(),
      },
    };
  }

  /**
   * Reads ahead for `requests` (in the read snapshot their answers will be made in): their
   * searches, then the entities their answers return. A failure leaves nothing prepared: each
   * record then reads for itself, and meets the failure where it did before.
   */
  prepare(requests: readonly ParsedEnhanceRequest[]): void {
    this.clear();
    try {
      this.#searchAll(requests);
      this.#readEntities(requests);
    } catch {
      this.clear();
    }
  }

  /** Forgets the batch's reads (they belong to its read snapshot). */
  clear(): void {
    this.#answers = new Map();
    this.#byRef = new Map();
    this.#byId = new Map();
  }

  #searchAll(requests: readonly ParsedEnhanceRequest[]): void {
    const queries = new Map<string, { query: MatchQuery; options: MatchOptions }>();
    for (const { query, options } of requests) {
      if (query.id !== undefined) continue;
      const match = matchQueryOf(query);
      const matchOptions = { limit: candidateLimit(options) };
      queries.set(searchKey(match, matchOptions), { query: match, options: matchOptions });
    }
    const keys = [...queries.keys()];
    const items = [...queries.values()];
    const answers = this.#matcher.searchMany(
      items.map((item) => item.query),
      items.map((item) => item.options),
    );
    answers.forEach((answer, i) => {
      if (answer) this.#answers.set(keys[i], answer);
    });
  }

  /** The entities the answers return: their winners (as `Enhancer` picks them), by id too. */
  #readEntities(requests: readonly ParsedEnhanceRequest[]): void {
    const refs = new Set<number>();
    const ids = new Set<string>();
    for (const { query, options } of requests) {
      if (query.id !== undefined) {
        ids.add(query.id);
        continue;
      }
      const answer = this.#answers.get(searchKey(matchQueryOf(query), { limit: candidateLimit(options) }));
      if (!answer) continue;
      const threshold = options.threshold ?? this.#matcher.defaultThresholdFor(query.type ?? 'Organization');
      let winners = 0;
      for (const candidate of answer.candidates) {
        if (winners === options.size) break;
        if (candidate.score < threshold) continue;
        refs.add(candidate.ref);
        winners++;
      }
    }
    if (refs.size > 0)
      for (const entity of this.#store.getByRefs([...refs])) this.#byRef.set(entity.ref, entity);
    if (ids.size > 0) {
      const found = this.#store.getByIds([...ids]);
      for (const id of ids) this.#byId.set(id, found.get(id));
    }
  }

  /** The prepared entities when every one of `refs` was read ahead (each served once), else a read. */
  #getByRefs(refs: readonly number[]): StoredEntity[] {
    if (refs.length === 0 || !refs.every((ref) => this.#byRef.has(ref)) || new Set(refs).size < refs.length)
      return this.#store.getByRefs(refs);
    return refs.map((ref) => {
      const entity = this.#byRef.get(ref)!;
      this.#byRef.delete(ref);
      return entity;
    });
  }

  #getById(id: string): StoredEntity | undefined {
    if (!this.#byId.has(id)) return this.#store.getById(id);
    const entity = this.#byId.get(id);
    this.#byId.delete(id);
    return entity;
  }
}

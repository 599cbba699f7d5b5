/**
 * `Matcher.searchMany`: many queries searched at once (a bulk batch), each stage of `search`
 * run for every query before the next, so that the reads of the whole batch are made together:
 * the postings of every query's keys in one read per limit, the profiles of the candidates of
 * every 32 queries in one read (`SCORED_TOGETHER`), instead of a few small reads per query
 * (issue 30: a bulk record should cost less than a single query). Each query is answered
 * exactly as `search` answers it alone: the same stages in the same order, over a source
 * (`ReadAhead`) that answers what its caching source does, in the order asked. The matcher
 * passes its stages in (`BatchStages`): scoring stays matcher.ts's.
 */
import {
  CachingCandidateSource,
  type CandidateProfile,
  type CandidateSource,
  type EntityCounts,
} from './candidate-source.ts';
import { type AnalyzedQuery, analyzeQuery, type MatchQuery } from './query-analysis.ts';
import {
  type Lookup,
  type RetrievalLimits,
  type RetrievedCandidate,
  readKeys,
  retrievalLookups,
  retrieveByLookups,
} from './retrieval.ts';
import type { Vocabularies } from './vocabularies.ts';

/**
 * Queries whose candidates' profiles are read together and then scored, after which those
 * profiles are let go. The candidates' profiles are most of what a batch reads: read for the
 * whole batch at once (and kept by the caching source) they were alive at nearly every
 * scavenge of a bulk worker, which promotes almost everything it finds alive. By 32 queries,
 * read past the caching source: bytes promoted per record −40% (issue 30, bench/NOTES.md).
 */
const SCORED_TOGETHER = 32;

/** The matcher's stages (matcher.ts), over which a batch is searched. */
export interface BatchStages<P, S> {
  /** The matcher's (caching) source: what a query alone would read from. */
  readonly source: CandidateSource;
  readonly vocabularies: { vocabularies(type: AnalyzedQuery['type']): Vocabularies };
  readonly limits: RetrievalLimits;
  /** The postings reads `withOrganizations` makes for a query (read for the whole batch first). */
  organizationReads(query: AnalyzedQuery): readonly { key: string; limit: number }[];
  withOrganizations(query: AnalyzedQuery, source: CandidateSource): AnalyzedQuery;
  hasEvidence(query: AnalyzedQuery): boolean;
  profile(query: AnalyzedQuery, retrieved: readonly RetrievedCandidate[], source: CandidateSource): P[];
  score(query: AnalyzedQuery, candidates: P[], vocabularies: Vocabularies, limit: number): S[];
}

/** A query's answer: as `Matcher.search` gives it. */
export interface BatchAnswer<S> {
  readonly candidates: S[];
  readonly notes: readonly string[];
}

/** A query on its way through the stages. */
interface Pending {
  readonly index: number;
  readonly limit: number;
  query: AnalyzedQuery;
  vocabularies?: Vocabularies;
  lookups?: readonly Lookup[];
  retrieved?: RetrievedCandidate[];
}

/**
 * The answers of `queries` (with `options[i]` each), in order; `undefined` where a stage threw
 * for that query (searched alone, it throws the same error, or answers: the caller searches
 * it alone). A failed read of the batch throws.
 */
export function searchBatch<P, S>(
  queries: readonly MatchQuery[],
  options: readonly { readonly limit?: number }[],
  stages: BatchStages<P, S>,
): (BatchAnswer<S> | undefined)[] {
  const answers: (BatchAnswer<S> | undefined)[] = queries.map(() => undefined);
  const reads = new ReadAhead(stages.source);
  let pending: Pending[] = [];
  queries.forEach((query, index) => {
    const analyzed = attempt(() => analyzeQuery(query));
    if (analyzed) pending.push({ index, limit: options[index]?.limit ?? 10, query: analyzed });
  });
  // The organizations Person queries point at (withQueryOrganizations): keys, then profiles.
  reads.readPostings(pending.flatMap((p) => stages.organizationReads(p.query)));
  reads.readProfiles(reads.refsRead());
  pending = pending.filter((p) => {
    const query = attempt(() => stages.withOrganizations(p.query, reads));
    if (!query) return false;
    p.query = query;
    if (stages.hasEvidence(query)) return true;
    answers[p.index] = { candidates: [], notes: query.notes };
    return false;
  });
  pending = pending.filter((p) => {
    p.vocabularies = attempt(() => stages.vocabularies.vocabularies(p.query.type));
    p.lookups = p.vocabularies && attempt(() => retrievalLookups(p.query, p.vocabularies!, stages.limits));
    return p.lookups !== undefined;
  });
  reads.readPostings(pending.flatMap((p) => p.lookups!));
  pending = pending.filter((p) => {
    p.retrieved = attempt(() => retrieveByLookups(p.lookups!, reads, stages.limits));
    return p.retrieved !== undefined;
  });
  for (let from = 0; from < pending.length; from += SCORED_TOGETHER) {
    const part = pending.slice(from, from + SCORED_TOGETHER);
    const read = reads.readCandidateProfiles(part.flatMap((p) => p.retrieved!.map((c) => c.ref)));
    for (const p of part) {
      answers[p.index] = attempt(() => ({
        candidates: stages.score(
          p.query,
          stages.profile(p.query, p.retrieved!, reads),
          p.vocabularies!,
          p.limit,
        ),
        notes: p.query.notes,
      }));
    }
    reads.forgetProfiles(read);
  }
  return answers;
}

/** `fn()`, or `undefined` when it throws (the query is then searched alone). */
function attempt<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

/**
 * A source over the batch's reads: `readPostings` and `readProfiles` read through the caching
 * source at once (keys and refs sorted: neighbouring pages one after another), the stages then
 * ask for their share. Answers as the caching source does: each key's refs, the keys in the
 * order asked (first occurrence), the profiles in the order of the refs asked for; what was not
 * read ahead is read then.
 */
class ReadAhead implements CandidateSource {
  readonly #source: CandidateSource;
  /** Postings per lookup limit, then per key. */
  readonly #postings = new Map<number, Map<string, number[]>>();
  /** Profiles read, by ref; `null`: read, no entity. */
  readonly #profiles = new Map<number, CandidateProfile | null>();

  constructor(source: CandidateSource) {
    this.#source = source;
  }

  /** The wrapped source's (see `CandidateSource`). */
  get partialTermCounts(): boolean {
    return this.#source.partialTermCounts === true;
  }

  /**
   * Reads the postings of `lookups` not read yet (nor known `absent`, when the vocabularies are
   * the source's whole): one read per limit.
   */
  readPostings(lookups: readonly { key: string; limit: number; absent?: boolean }[]): void {
    const skipAbsent = !this.partialTermCounts;
    for (const [limit, group] of Map.groupBy(lookups, (lookup) => lookup.limit)) {
      const known = this.#postings.get(limit);
      const keys = [...new Set(readKeys(group, skipAbsent))].filter((key) => !known?.has(key));
      if (keys.length > 0) this.#keep(limit, this.#source.refsForKeys(keys.sort(), limit));
    }
  }

  /** Every ref of the postings read so far. */
  refsRead(): number[] {
    const refs: number[] = [];
    for (const byKey of this.#postings.values()) for (const list of byKey.values()) refs.push(...list);
    return refs;
  }

  /** Reads the profiles of `refs` not read yet, in one read; returns the refs it read. */
  readProfiles(refs: readonly number[], source: CandidateSource = this.#source): number[] {
    const missing = [...new Set(refs)].filter((ref) => !this.#profiles.has(ref));
    if (missing.length === 0) return missing;
    missing.sort((a, b) => a - b);
    for (const ref of missing) this.#profiles.set(ref, null);
    for (const row of source.profiles(missing)) this.#profiles.set(row.ref, row);
    return missing;
  }

  /**
   * `readProfiles` of candidates, past the caching source's profiles (which answer as its source
   * does): the batch reads each once, and a cache holding them would keep them alive after they
   * are scored.
   */
  readCandidateProfiles(refs: readonly number[]): number[] {
    const source = this.#source instanceof CachingCandidateSource ? this.#source.source : this.#source;
    return this.readProfiles(refs, source);
  }

  /** Lets go of the profiles of `refs` (read again if asked for). */
  forgetProfiles(refs: readonly number[]): void {
    for (const ref of refs) this.#profiles.delete(ref);
  }

  refsForKeys(keys: readonly string[], limitPerKey: number): Map<string, number[]> {
    const known = this.#postings.get(limitPerKey);
    const missing = keys.filter((key) => !known?.has(key));
    if (missing.length > 0) this.#keep(limitPerKey, this.#source.refsForKeys(missing, limitPerKey));
    const byKey = this.#postings.get(limitPerKey);
    const out = new Map<string, number[]>();
    for (const key of keys) {
      const refs = byKey?.get(key);
      if (refs && !out.has(key)) out.set(key, refs);
    }
    return out;
  }

  profiles(refs: readonly number[]): CandidateProfile[] {
    this.readProfiles(refs);
    const out: CandidateProfile[] = [];
    for (const ref of refs) {
      const row = this.#profiles.get(ref);
      if (row) out.push(row);
    }
    return out;
  }

  termCounts(prefix: string): Map<string, number> {
    return this.#source.termCounts(prefix);
  }

  counts(): EntityCounts {
    return this.#source.counts();
  }

  version(): string {
    return this.#source.version();
  }

  #keep(limit: number, read: Map<string, number[]>): void {
    let byKey = this.#postings.get(limit);
    if (!byKey) {
      byKey = new Map();
      this.#postings.set(limit, byKey);
    }
    for (const [key, refs] of read) byKey.set(key, refs);
  }
}

/**
 * Where the matcher reads candidates from: the `CandidateSource` port (the entity store
 * implements it) and a caching source that remembers postings and profiles between queries.
 *
 * Caching lives here, not in the matcher: the matcher is a pure function of the query and what
 * its source answers, so a cached source must answer exactly what the uncached one does, in
 * the same order (`candidate-source.test.ts` runs queries through both). An earlier cache inside
 * the matcher returned cached profiles first: candidates came in an order that depended on
 * earlier queries, scores moved in their last bits and a near-tie flipped.
 */
import { approximateBytes } from '../approximate-bytes.ts';
import { ByteBoundedCache } from '../byte-bounded-cache.ts';
import type { EntityType } from '../kg/index.ts';

/** What the scorer reads for one candidate. */
export interface CandidateProfile {
  readonly ref: number;
  readonly id: string;
  readonly type: EntityType;
  /** The match profile `indexEntity` computed (match/profile.ts), as stored. */
  readonly profile: unknown;
  /**
   * Characters of the profile's stored JSON, when the source has the text (both stores): the
   * caching source estimates the parsed profile's size from it instead of walking `profile`.
   * Undefined (e.g. a search's overlay of fetched entities): estimated from the parsed profile.
   */
  readonly profileTextLength?: number;
}

export interface EntityCounts {
  readonly organizations: number;
  readonly persons: number;
}

/** The graph reads the matcher needs (a subset of the entity store's port). */
export interface CandidateSource {
  /**
   * Refs for several keys at once: each key maps to at most `limitPerKey` refs in ref order;
   * keys nobody carries map to an empty array.
   */
  refsForKeys(keys: readonly string[], limitPerKey: number): Map<string, number[]>;
  /** Profiles of `refs`, in any order; refs without an entity are left out. */
  profiles(refs: readonly number[]): CandidateProfile[];
  /** Every key starting with `prefix` and how many entities carry it (a term vocabulary). */
  termCounts(prefix: string): Map<string, number>;
  counts(): EntityCounts;
  /** Version string of the graph: changes whenever it is written. */
  version(): string;
  /**
   * Runs `fn` (one query's reads) in one read snapshot of the store, when the source can open
   * one for about what a single read costs (the embedded store); joins one already open. Absent
   * when a snapshot costs more than it saves (PostgreSQL: a round trip each way): each read is
   * then on its own.
   */
  readSnapshot?<T>(fn: () => T): T;
  /**
   * True when `termCounts` leaves out words of entities that `refsForKeys` finds (an overlay of
   * entities found on the web, a vocabulary that lags the store's writes): retrieval then reads
   * a whole-name key even when a word of it is not in the vocabulary (`nameKeyAbsent`).
   */
  readonly partialTermCounts?: boolean;
}

export interface CachingOptions {
  /**
   * Most bytes of parsed profiles kept (`approximateBytes`, or estimated from the JSON text's
   * length: `profileTextLength`; default 16 MiB, ~20,000 demo profiles), by size rather than
   * count: profiles of entities with many names or employments are several times larger, and
   * large caches lengthen garbage-collection pauses (p99).
   */
  readonly profileBytes?: number;
  /**
   * Most bytes of postings kept, all keys together (default 8 MiB): 8 per ref, the key's
   * length and 64 per key (`postingsBytes`), so that long keys (a 2,000-character name token)
   * and keys without postings count too; was 500,000 refs (issue 28 §9). Queries share their
   * common keys (a surname, a city, a frequent e-mail domain): over the in-process benchmark's
   * 20,000 queries, 62% of the postings read were of a key an earlier query read.
   */
  readonly postingsBytes?: number;
}

const PROFILE_CACHE_BYTES = 16 * 2 ** 20;
/** 500,000 refs (the former bound) and ~60,000 keys of 20 characters. */
const POSTINGS_CACHE_BYTES = 8 * 2 ** 20;

/**
 * `approximateBytes` of a parsed profile per character of its JSON text: 3.0 (persons) to 3.8
 * (organizations) on the 1M + 1M demo graph, 3.35 over the 20k + 20k one.
 */
const PARSED_BYTES_PER_CHARACTER = 3.4;

/**
 * Estimated heap of a parsed profile row: from its JSON text's length when the source gives it
 * (`CandidateProfile.profileTextLength`), else by walking the parsed profile.
 */
export function profileBytes(row: CandidateProfile): number {
  return row.profileTextLength !== undefined
    ? Math.ceil(PARSED_BYTES_PER_CHARACTER * row.profileTextLength)
    : approximateBytes(row.profile);
}

/** Estimated heap of the postings of one key: its map slot and string, and 8 bytes per ref. */
function postingsBytes(key: string, refs: readonly number[]): number {
  return 64 + key.length + 8 * refs.length;
}

/**
 * A `CandidateSource` that remembers the postings and profiles read while the graph version
 * holds, within bounds (the profiles least recently used are dropped; the postings are emptied
 * when a read would overflow them: over 10,000 queries on a 1M + 1M graph no key was read
 * twice). Answers as its source does: the same refs per key, the profiles in the order of the
 * refs asked for (which an uncached store need not keep: callers that depend on order get the
 * refs' order from here).
 * The arrays returned are shared: callers only read them.
 */
export class CachingCandidateSource implements CandidateSource {
  readonly #source: CandidateSource;
  readonly #postingsCap: number;
  #version: string | undefined;
  /** Inside `withVersionRead`: the version was read at its start and is not read again. */
  #versionRead = false;
  /**
   * Least recently used out (was: emptied whole when full): the namesakes a crowded name keeps
   * are read by every query of that name. 10,000 queries on a 1M + 1M graph read 10% fewer.
   */
  readonly #profiles: ByteBoundedCache<number, CandidateProfile>;
  /** Postings per lookup limit, then per key (see `refsForKeys`). */
  #postings = new Map<number, Map<string, number[]>>();
  #postingsHeld = 0;

  /** The wrapped source's (see `CandidateSource`). */
  get partialTermCounts(): boolean {
    return this.#source.partialTermCounts === true;
  }

  constructor(source: CandidateSource, options: CachingOptions = {}) {
    this.#source = source;
    this.#profiles = new ByteBoundedCache(options.profileBytes ?? PROFILE_CACHE_BYTES, profileBytes);
    this.#postingsCap = options.postingsBytes ?? POSTINGS_CACHE_BYTES;
  }

  /**
   * Runs `fn` (one query's reads) with the graph version read once, at its start, instead of
   * before every read (a query makes 3–6 reads; the version read was 7% of a query's CPU on a
   * 1M + 1M graph). The matcher is synchronous, so nothing this thread does writes between the
   * reads; a write by another connection meanwhile is seen by the next query, as one just
   * after the version read always was. Where the source opens read snapshots cheaply
   * (`readSnapshot`), the query's reads are made in one: on SQLite each statement outside a
   * transaction opens and closes a read transaction of its own (~7 µs each, 3–5 per query).
   */
  withVersionRead<T>(fn: () => T): T {
    if (this.#versionRead) return fn();
    const source = this.#source;
    if (source.readSnapshot) return source.readSnapshot(() => this.#atVersion(fn));
    return this.#atVersion(fn);
  }

  #atVersion<T>(fn: () => T): T {
    this.#checkVersion();
    this.#versionRead = true;
    try {
      return fn();
    } finally {
      this.#versionRead = false;
    }
  }

  /** The uncached source (for reads that should not fill the caches). */
  get source(): CandidateSource {
    return this.#source;
  }

  version(): string {
    return this.#checkVersion();
  }

  counts(): EntityCounts {
    return this.#source.counts();
  }

  termCounts(prefix: string): Map<string, number> {
    return this.#source.termCounts(prefix);
  }

  /** Profiles of `refs` in the order of `refs` (those found). */
  profiles(refs: readonly number[]): CandidateProfile[] {
    this.#checkVersion();
    // The rows in the order of `refs` as they are found: no map of every ref (most are cached:
    // ~30 of a query's ~40 on 1M + 1M), only one of the rows read for those that were not.
    const out: (CandidateProfile | undefined)[] = [];
    let missing: number[] | undefined;
    for (const ref of refs) {
      const cached = this.#profiles.get(ref);
      out.push(cached);
      if (cached) continue;
      missing ??= [];
      missing.push(ref);
    }
    if (!missing) return out as CandidateProfile[];
    const read = new Map<number, CandidateProfile>();
    for (const row of this.#source.profiles(missing)) {
      this.#profiles.set(row.ref, row);
      read.set(row.ref, row);
    }
    const found: CandidateProfile[] = [];
    for (let i = 0; i < refs.length; i++) {
      const row = out[i] ?? read.get(refs[i]);
      if (row) found.push(row);
    }
    return found;
  }

  /**
   * `source.refsForKeys`, remembering the postings read: up to the cap, which a read that does
   * not fit empties first (so the cache exceeds it by at most that one read).
   */
  refsForKeys(keys: readonly string[], limitPerKey: number): Map<string, number[]> {
    this.#checkVersion();
    const out = new Map<string, number[]>();
    const missing: string[] = [];
    const known = this.#postings.get(limitPerKey);
    for (const key of keys) {
      const cached = known?.get(key);
      if (cached) out.set(key, cached);
      else missing.push(key);
    }
    if (missing.length === 0) return out;
    const read = this.#source.refsForKeys(missing, limitPerKey);
    let size = 0;
    for (const [key, refs] of read) size += postingsBytes(key, refs);
    if (this.#postingsHeld + size > this.#postingsCap) {
      this.#postings = new Map();
      this.#postingsHeld = 0;
    }
    let cache = this.#postings.get(limitPerKey);
    if (!cache) {
      cache = new Map();
      this.#postings.set(limitPerKey, cache);
    }
    for (const [key, refs] of read) cache.set(key, refs);
    this.#postingsHeld += size;
    if (out.size === 0) return read;
    // In the order asked, as the source answers (not the cached keys first): a caller that
    // flattens the refs (the organizations at a query's domains) gets them in the same order
    // whatever this cache held.
    const ordered = new Map<string, number[]>();
    for (const key of keys) {
      const refs = out.get(key) ?? read.get(key);
      if (refs && !ordered.has(key)) ordered.set(key, refs);
    }
    return ordered;
  }

  #checkVersion(): string {
    if (this.#versionRead && this.#version !== undefined) return this.#version;
    const version = this.#source.version();
    if (version !== this.#version) {
      this.#version = version;
      this.#profiles.clear();
      this.#postings = new Map();
      this.#postingsHeld = 0;
    }
    return version;
  }
}

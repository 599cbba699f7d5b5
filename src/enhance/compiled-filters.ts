/**
 * The compiled `filter`/`filterExclude` pairs of enhance requests, remembered by their text: bulk
 * jobs apply one pair to every record. Bounded by bytes (issue 28 §9): a compiled filter takes
 * ~65 bytes per character of its text (measured: a 72-character filter 4.8 KB, a
 * 2,067-character one 141 KB), and a request line may carry a filter of several kilobytes.
 */
import { ByteBoundedCache } from '../byte-bounded-cache.ts';
import { type EntityFilter, parseEntityFilter } from '../export/index.ts';

/** ~370 ordinary filters (the former bound was 256, whatever their length). */
const FILTER_CACHE_BYTES = 2 * 2 ** 20;

/** A compiled pair's estimated heap, from the length of its text. */
function compiledBytes(_filter: EntityFilter | undefined, key: string): number {
  return 1_024 + 64 * key.length;
}

export class CompiledFilters {
  readonly #cache: ByteBoundedCache<string, EntityFilter | undefined>;

  /** `maxBytes`: the bound (tests; default 2 MiB). */
  constructor(maxBytes = FILTER_CACHE_BYTES) {
    this.#cache = new ByteBoundedCache(maxBytes, compiledBytes);
  }

  /** The compiled pair (`undefined`: no filtering); throws a 400 naming a bad path. */
  of(filter: string | undefined, filterExclude: string | undefined): EntityFilter | undefined {
    const key = `${filter ?? ''}\u0000${filterExclude ?? ''}`;
    if (this.#cache.has(key)) return this.#cache.get(key);
    const compiled = parseEntityFilter(filter, filterExclude);
    this.#cache.set(key, compiled);
    return compiled;
  }

  /** Estimated bytes kept (never above the bound). */
  get bytes(): number {
    return this.#cache.bytes;
  }

  /** Pairs kept. */
  get size(): number {
    return this.#cache.size;
  }
}

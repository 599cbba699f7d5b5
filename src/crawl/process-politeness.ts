/**
 * The process's one politeness: the `HostPoliteness` and the robots.txt cache that crawls,
 * refresh and search all fetch through (`PoliteFetcher`), so a crawl and a refresh of one host
 * keep one delay between their requests, and robots.txt is fetched once per origin for all.
 * On a store several processes share, the politeness is `SharedHostPoliteness` (hosts' turns in
 * the store), so the delay holds across processes too.
 *
 * robots.txt requests take a lease of their host too, under a rule that never makes them wait
 * for a delay (every later request waits for robots.txt, and its delay is not known before it):
 * they are not spaced from the request before them, but the next request to the host is spaced
 * from them by its delay.
 */
import type { PageFetcher } from './dependencies.ts';
import { type HostPoliteness, InProcessHostPoliteness, type PolitenessRule } from './host-politeness.ts';
import { RobotsCache } from './robots.ts';

/** What every fetching feature of a process shares. */
export interface ProcessPoliteness {
  readonly politeness: HostPoliteness;
  readonly robots: RobotsCache;
}

export interface ProcessPolitenessOptions {
  /** Fetches robots.txt (the SSRF-safe fetcher). */
  readonly fetcher: PageFetcher;
  /**
   * The politeness port (default: in memory, this process only, on `preciseNow`;
   * `SharedHostPoliteness` when several processes share a store).
   */
  readonly politeness?: HostPoliteness;
  /** How long a robots.txt is trusted, ms (default one hour). */
  readonly robotsTtlMs?: number;
  readonly now?: () => number;
}

/**
 * Epoch milliseconds with their fraction. Politeness keeps its times with it: with `Date.now`'s
 * whole milliseconds, a request could begin up to a millisecond before its host's delay has
 * passed (bench/refresh.ts saw 99.4 ms between two requests to a host whose delay is 100 ms).
 */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/** A robots.txt request's rule: no delay of its own and no limit on requests in flight. */
const ROBOTS_RULE: PolitenessRule = { delayMs: 0, maxConcurrent: Number.MAX_SAFE_INTEGER };

/** The politeness and robots.txt cache of a process (see the module comment). */
export function createProcessPoliteness(options: ProcessPolitenessOptions): ProcessPoliteness {
  const politeness = options.politeness ?? new InProcessHostPoliteness({ now: options.now ?? preciseNow });
  const robotsFetcher: PageFetcher = {
    async fetch(url, fetchOptions) {
      const lease = await politeness.acquire(new URL(url).host, ROBOTS_RULE, fetchOptions?.signal);
      try {
        return await options.fetcher.fetch(url, fetchOptions);
      } finally {
        lease.release();
      }
    },
  };
  const robots = new RobotsCache({ fetcher: robotsFetcher, ttlMs: options.robotsTtlMs, now: options.now });
  return { politeness, robots };
}

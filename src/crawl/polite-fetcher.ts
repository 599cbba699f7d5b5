/**
 * Fetching as a well-behaved crawler: robots.txt consulted for the URL and for every redirect
 * hop on its own origin (issue 24 §2), and every request — hops included — spaced by its
 * host's politeness (issue 24 §3). Bulk extract jobs, refresh and search
 * (docs/api.md#refresh-and-search) fetch through it, over the process's one politeness
 * (`process-politeness.ts`).
 */
import { FetchError } from '../errors.ts';
import type { FetchedPageView, PageFetcher } from './dependencies.ts';
import type { HostLease, HostPoliteness, PolitenessRule } from './host-politeness.ts';
import { type RobotsCache, type RobotsVerdict, robotsAllow, robotsCrawlDelaySeconds } from './robots.ts';

/** How one fetch behaves. */
export interface PoliteFetchOptions {
  /** Request headers (`User-Agent` among them, when the caller sets one). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /** Consult robots.txt (for the URL and every redirect hop). */
  readonly obeyRobots: boolean;
  /** The caller's own delay between requests to a host, ms (robots.txt may ask for more). */
  readonly crawlDelayMs: number;
  /** The user agent whose robots.txt rules apply. */
  readonly userAgent: string;
  /** Time cap of the request, ms (default: the fetcher's). */
  readonly timeoutMs?: number;
  /**
   * Aborted: stop waiting for the host's turn and make no request (`TurnCancelledError`). A
   * request already made (and its redirect hops) is not affected; `signal` aborts those.
   */
  readonly turnSignal?: AbortSignal;
}

/** A fetch given up before its request was made (`PoliteFetchOptions.turnSignal`). */
export class TurnCancelledError extends Error {
  constructor() {
    super("Given up while waiting for the host's turn: no request was made");
    this.name = 'TurnCancelledError';
  }
}

/** A URL robots.txt rules out (`fetch_robots_disallowed`), the page asked for or a redirect hop. */
export class RobotsDisallowedError extends FetchError {
  /** The URL refused (a redirect target when `hop`). */
  readonly url: string;
  readonly hop: boolean;
  /** What robots.txt said: its rules, or `unreachable`, or `refused` (a non-public address). */
  readonly verdict: RobotsVerdict['kind'];
  constructor(url: string, verdict: RobotsVerdict, hop: boolean) {
    const why =
      verdict.kind === 'unreachable'
        ? `${verdict.reason}: treated as disallowing every page of the site for now`
        : verdict.kind === 'refused'
          ? verdict.reason
          : 'Disallowed by robots.txt';
    super('fetch_robots_disallowed', hop ? `Redirected to ${url}: ${why}` : why);
    this.url = url;
    this.hop = hop;
    this.verdict = verdict.kind;
  }
}

export interface PoliteFetcherDeps {
  readonly fetcher: PageFetcher;
  readonly robots: RobotsCache;
  readonly politeness: HostPoliteness;
  /** Requests in flight to one host at most when it has no delay. */
  readonly perHostConcurrency: number;
}

/** Fetches politely (see the module comment). */
export class PoliteFetcher {
  readonly #deps: PoliteFetcherDeps;

  constructor(deps: PoliteFetcherDeps) {
    this.#deps = deps;
  }

  /** The politeness rule of a request to `url`'s host: the caller's delay or robots.txt's. */
  ruleFor(
    url: URL | string,
    options: Pick<PoliteFetchOptions, 'obeyRobots' | 'crawlDelayMs' | 'userAgent'>,
  ): PolitenessRule {
    let delayMs = options.crawlDelayMs;
    if (options.obeyRobots) {
      const cached = this.#deps.robots.cached(typeof url === 'string' ? url : url.href);
      if (cached) delayMs = Math.max(delayMs, robotsCrawlDelaySeconds(cached, options.userAgent) * 1000);
    }
    return { delayMs, maxConcurrent: this.#deps.perHostConcurrency };
  }

  /** Throws `RobotsDisallowedError` unless robots.txt lets `options.userAgent` fetch `url`. */
  async checkRobots(url: string, options: PoliteFetchOptions, hop: boolean): Promise<void> {
    if (!options.obeyRobots) return;
    const verdict = this.#deps.robots.cached(url) ?? (await this.#deps.robots.verdict(url));
    if (!robotsAllow(verdict, url, options.userAgent)) throw new RobotsDisallowedError(url, verdict, hop);
  }

  /**
   * Fetches `url`: robots.txt first (unless `obeyRobots` is false), then the request once its
   * host allows; each redirect hop is checked against its own origin's robots.txt and waits
   * for its own host's turn (the previous host is released first, so a fetch never holds two).
   * Throws `RobotsDisallowedError` for a disallowed URL or hop, `FetchError` otherwise.
   *
   * When robots.txt is known (cached), the host is asked for its turn before this returns, so
   * a scheduler that dispatches several fetches in one pass sees each one's hold on the host.
   */
  fetch(url: string, options: PoliteFetchOptions): Promise<FetchedPageView> {
    const verdict = options.obeyRobots ? this.#deps.robots.cached(url) : undefined;
    if (options.obeyRobots && verdict === undefined) {
      return this.checkRobots(url, options, false).then(() => this.#fetchInTurn(url, options));
    }
    if (verdict && !robotsAllow(verdict, url, options.userAgent)) {
      return Promise.reject(new RobotsDisallowedError(url, verdict, false));
    }
    return this.#fetchInTurn(url, options);
  }

  async #fetchInTurn(url: string, options: PoliteFetchOptions): Promise<FetchedPageView> {
    let lease: HostLease | undefined;
    const { turnSignal } = options;
    try {
      const signal =
        turnSignal && options.signal
          ? AbortSignal.any([options.signal, turnSignal])
          : (turnSignal ?? options.signal);
      lease = await this.#deps.politeness.acquire(new URL(url).host, this.ruleFor(url, options), signal);
    } catch (error) {
      if (turnSignal?.aborted && !options.signal?.aborted) throw new TurnCancelledError();
      throw error;
    }
    if (turnSignal?.aborted) {
      lease.release();
      throw new TurnCancelledError();
    }
    try {
      return await this.#deps.fetcher.fetch(url, {
        headers: options.headers,
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        beforeRedirect: async (to: URL) => {
          await this.checkRobots(to.href, options, true);
          if (lease?.host === to.host) return;
          lease?.release();
          lease = undefined;
          lease = await this.#acquire(to, options);
        },
      });
    } finally {
      lease?.release();
    }
  }

  #acquire(url: URL, options: PoliteFetchOptions): Promise<HostLease> {
    return this.#deps.politeness.acquire(url.host, this.ruleFor(url, options), options.signal);
  }
}

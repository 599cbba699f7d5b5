/**
 * robots.txt per RFC 9309, fetched once per origin and cached.
 *
 * - 2xx: the rules apply (parsed with `robots-parser`; at most the first 500 KiB, §2.5).
 * - 4xx ("unavailable", §2.3.1.3) and more than five redirects (§2.3.1.2): everything allowed.
 * - 5xx, 429 and network failures ("unreachable", §2.3.1.4): everything disallowed. Such a
 *   verdict is not cached here: the scheduler keeps it for the current pass (round) only.
 * - `Crawl-delay` (not in the RFC, widely used) is honoured up to 30 s (docs/api.md#fetching).
 * Successful verdicts are cached for `ttlMs` (default one hour; §2.4 allows at most 24 h).
 */
import robotsParserModule from 'robots-parser';
import { ByteBoundedCache } from '../byte-bounded-cache.ts';
import { FetchError, isRetryableHttpStatus } from '../errors.ts';
import type { PageFetcher } from './dependencies.ts';

/** Longest robots.txt `Crawl-delay` honoured, in seconds (docs/api.md#fetching). */
export const MAX_ROBOTS_CRAWL_DELAY_SECONDS = 30;
/** Bytes of a robots.txt that are parsed (RFC 9309 §2.5 requires at least 500 KiB). */
export const ROBOTS_PARSE_LIMIT = 500 * 1024;

/** The parsed rules of one robots.txt (the `robots-parser` object, as far as Quarry uses it). */
interface Robot {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getCrawlDelay(userAgent?: string): number | undefined;
}

// The package is CommonJS whose `module.exports` is the parser function; its typings declare an
// ES default export, which TypeScript's Node module resolution does not map to that function.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => Robot;

/** What robots.txt says about an origin. */
export type RobotsVerdict =
  | { readonly kind: 'rules'; readonly robot: Robot }
  | { readonly kind: 'allow-all'; readonly reason: string }
  | { readonly kind: 'unreachable'; readonly reason: string }
  /** The origin itself may not be fetched (a non-public address): pages fail with `reason`. */
  | { readonly kind: 'refused'; readonly reason: string };

/** Tuning of the cache. */
export interface RobotsCacheOptions {
  readonly fetcher: PageFetcher;
  /** How long a fetched robots.txt (or its absence) is trusted, ms. Default one hour. */
  readonly ttlMs?: number;
  /**
   * Memory the remembered verdicts may take, bytes (least recently used dropped first): a
   * robots.txt of up to 500 KiB is parsed into rules, so a count of origins says little. Default
   * 32 MiB.
   */
  readonly maxBytes?: number;
  /** Time cap of one robots.txt fetch, ms. Default 10 s. */
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/**
 * The robots.txt product token of a user agent (RFC 9309 §2.2.1): the name of the first
 * `name/version` product other than `Mozilla`, else its first word. `QuarryBot` for Quarry's
 * default user agent.
 */
export function productToken(userAgent: string): string {
  const products = [...userAgent.matchAll(/([A-Za-z][A-Za-z0-9_-]*)\/[^\s;)]*/g)].map((m) => m[1]);
  const named = products.find((name) => name.toLowerCase() !== 'mozilla');
  if (named) return named;
  return /[A-Za-z][A-Za-z0-9_-]*/.exec(userAgent)?.[0] ?? '*';
}

/** Whether `verdict` lets `userAgent` fetch `url` (a URL of the verdict's origin). */
export function robotsAllow(verdict: RobotsVerdict, url: string, userAgent: string): boolean {
  switch (verdict.kind) {
    case 'rules':
      return verdict.robot.isAllowed(url, productToken(userAgent)) !== false;
    case 'allow-all':
      return true;
    default:
      return false;
  }
}

/** The `Crawl-delay` for `userAgent` in seconds, capped at 30; 0 when none. */
export function robotsCrawlDelaySeconds(verdict: RobotsVerdict, userAgent: string): number {
  if (verdict.kind !== 'rules') return 0;
  const delay = verdict.robot.getCrawlDelay(productToken(userAgent));
  if (delay === undefined || !Number.isFinite(delay) || delay <= 0) return 0;
  return Math.min(delay, MAX_ROBOTS_CRAWL_DELAY_SECONDS);
}

/** Turns the answer (or failure) of a robots.txt fetch into a verdict. */
export function verdictOf(
  robotsUrl: string,
  outcome: { status: number; text: string } | { error: unknown },
): RobotsVerdict {
  if ('error' in outcome) {
    const error = outcome.error;
    if (error instanceof FetchError) {
      if (error.code === 'fetch_refused') return { kind: 'refused', reason: error.message };
      if (error.code === 'fetch_too_many_redirects' || error.code === 'fetch_redirect_loop') {
        return { kind: 'allow-all', reason: `robots.txt unavailable (${error.message})` };
      }
    }
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'unreachable', reason: `robots.txt unreachable: ${message}` };
  }
  const { status } = outcome;
  if (status >= 200 && status < 300) {
    return { kind: 'rules', robot: robotsParser(robotsUrl, outcome.text.slice(0, ROBOTS_PARSE_LIMIT)) };
  }
  // 429 is a 4xx, but it says the server is overloaded: like 5xx, do not crawl now.
  if (isRetryableHttpStatus(status)) {
    return { kind: 'unreachable', reason: `robots.txt unreachable (HTTP ${status})` };
  }
  if (status >= 400) return { kind: 'allow-all', reason: `robots.txt unavailable (HTTP ${status})` };
  // A 3xx that was not followed (no Location) or 1xx: nothing usable, like unavailable.
  return { kind: 'allow-all', reason: `robots.txt unavailable (HTTP ${status})` };
}

/** A remembered verdict, its expiry and its estimated size in memory. */
interface CachedVerdict {
  readonly verdict: RobotsVerdict;
  readonly expiresAt: number;
  readonly bytes: number;
}

/** robots.txt verdicts per origin, shared by every job; concurrent lookups share one fetch. */
export class RobotsCache {
  readonly #fetcher: PageFetcher;
  readonly #ttlMs: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #entries: ByteBoundedCache<string, CachedVerdict>;
  readonly #pending = new Map<string, Promise<RobotsVerdict>>();
  /** robots.txt fetches made (for tests and metrics). */
  fetches = 0;

  constructor(options: RobotsCacheOptions) {
    this.#fetcher = options.fetcher;
    this.#ttlMs = options.ttlMs ?? 3_600_000;
    this.#entries = new ByteBoundedCache(options.maxBytes ?? 32 * 1024 * 1024, (entry) => entry.bytes);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** The cached verdict for the origin of `pageUrl`, when there is a fresh one; never fetches. */
  cached(pageUrl: string): RobotsVerdict | undefined {
    const entry = this.#entries.peek(new URL(pageUrl).origin);
    return entry && entry.expiresAt > this.#now() ? entry.verdict : undefined;
  }

  /** The verdict for the origin of `pageUrl`, fetching robots.txt when not cached. Never throws. */
  async verdict(pageUrl: string): Promise<RobotsVerdict> {
    const origin = new URL(pageUrl).origin;
    // Reading it makes it the most recently used.
    const cached = this.#entries.get(origin);
    if (cached && cached.expiresAt > this.#now()) return cached.verdict;
    const pending = this.#pending.get(origin);
    if (pending) return pending;
    const lookup = this.#fetch(origin).finally(() => this.#pending.delete(origin));
    this.#pending.set(origin, lookup);
    return lookup;
  }

  async #fetch(origin: string): Promise<RobotsVerdict> {
    const robotsUrl = `${origin}/robots.txt`;
    this.fetches++;
    let verdict: RobotsVerdict;
    let textLength = 0;
    try {
      const page = await this.#fetcher.fetch(robotsUrl, { timeoutMs: this.#timeoutMs });
      const text = page.text();
      textLength = Math.min(text.length, ROBOTS_PARSE_LIMIT);
      verdict = verdictOf(robotsUrl, { status: page.status, text });
    } catch (error) {
      verdict = verdictOf(robotsUrl, { error });
    }
    if (verdict.kind === 'rules' || verdict.kind === 'allow-all') {
      // The parsed rules hold about four times the text they come from (measured roughly with
      // robots-parser: each line becomes a rule object with its pattern).
      const bytes = 256 + 2 * origin.length + (verdict.kind === 'rules' ? 4 * textLength : 0);
      this.#entries.set(origin, { verdict, expiresAt: this.#now() + this.#ttlMs, bytes });
    }
    return verdict;
  }
}

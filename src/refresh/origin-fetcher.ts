/**
 * Fetching a page for refresh and search (docs/api.md#refresh-and-search): through the crawl's
 * `PoliteFetcher` over the process's one politeness and robots.txt cache
 * (`crawl/process-politeness.ts`) — the SSRF-safe fetcher (docs/api.md#outbound-requests),
 * robots.txt at every hop of a redirect chain, each request spaced by its host's delay whoever
 * else (a crawl) fetches that host — retrying transient failures with backoff
 * (docs/api.md#fetching), and never throwing: every way a page can fail is an outcome with a
 * message a person can read (`refreshInfo.message`).
 *
 * `OriginFetcher` is the seam refresh and search fetch through; `PoliteOriginFetcher` builds it.
 * `HostTurns` orders its requests at a host (persons before bulk jobs, one at a time).
 */
import {
  createProcessPoliteness,
  DEFAULT_RETRY_POLICY,
  isMarkup,
  isTransientStatus,
  PoliteFetcher,
  type RetryPolicy,
  RobotsDisallowedError,
  retryAfterMs,
  retryDelayMs,
  robotsAllow,
  type ProcessPoliteness,
} from '../crawl/index.ts';
import { FetchError, outcomeOf } from '../errors.ts';
import { DEFAULT_MAX_REDIRECTS, DEFAULT_USER_AGENT, type Fetcher } from '../extract/index.ts';
import { type FetchPriority, HostTurns, TurnAbortedError } from './host-turns.ts';

/** Why a page gave nothing. */
export type OriginFailure =
  | 'invalid_url'
  | 'refused'
  | 'robots'
  | 'http_status'
  | 'not_html'
  | 'too_large'
  | 'timeout'
  | 'network'
  | 'redirects'
  | 'aborted';

/** A page fetched (2xx) or why it could not be. `fetchedAt` is when the attempt ended (epoch ms). */
export type OriginPage =
  | {
      readonly ok: true;
      /** The URL asked for. */
      readonly url: string;
      /** The URL that answered, after redirects. */
      readonly finalUrl: string;
      readonly status: number;
      readonly contentType: string | undefined;
      readonly body: Buffer;
      readonly fetchedAt: number;
      /** Tries made for the page (retries included; a redirect chain is one try). */
      readonly requests: number;
    }
  | {
      readonly ok: false;
      readonly url: string;
      readonly reason: OriginFailure;
      readonly message: string;
      /** Status of the last answer, when there was one. */
      readonly httpStatus: number | null;
      readonly fetchedAt: number;
      readonly requests: number;
    };

/** Per-page options. */
export interface OriginFetchOptions {
  /** Whose wait it is: interactive requests go first at a busy host (default `interactive`). */
  readonly priority?: FetchPriority;
  /** Gives up (reason `aborted`) when it aborts. */
  readonly signal?: AbortSignal;
  /**
   * Epoch ms after which no new try starts (waiting for a host, a retry): a person waiting for
   * an answer gets the failure instead. Default: the retry policy alone bounds the time.
   */
  readonly deadline?: number;
}

/** Fetches pages for refresh and search. Never throws. */
export interface OriginFetcher {
  fetchPage(url: string, options?: OriginFetchOptions): Promise<OriginPage>;
  /** Pages fetched and failed so far (2xx answers; failures of any kind). */
  readonly stats: { readonly fetched: number; readonly failed: number };
}

export interface PoliteOriginFetcherOptions {
  /** The SSRF-safe fetcher of pages (`extract/`'s, with the page size cap of refresh and search). */
  readonly fetcher: Pick<Fetcher, 'fetch'>;
  /**
   * The process's politeness and robots.txt cache, shared with the crawl. Default: one of this
   * fetcher's own, its robots.txt fetched through `fetcher`.
   */
  readonly politeness?: ProcessPoliteness;
  /** Least time between two requests to one host, ms (robots.txt `Crawl-delay` may ask more). */
  readonly crawlDelayMs: number;
  readonly retry?: RetryPolicy;
  /** User agent of the requests and of the robots.txt rules applied (default Quarry's). */
  readonly userAgent?: string;
  /** Time cap of one request, ms (default 15 s). */
  readonly timeoutMs?: number;
  /** Requests in flight at most, all hosts together (default 64). */
  readonly maxConcurrent?: number;
  readonly now?: () => number;
}

/** A counting semaphore: at most `limit` holders at once, first come first served. */
class Slots {
  readonly #limit: number;
  #held = 0;
  readonly #waiting: (() => void)[] = [];
  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }
  async take(): Promise<void> {
    if (this.#held < this.#limit) {
      this.#held++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }
  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held--;
  }
}

/** A fetcher that holds one of `slots` while a request is in flight (after its host's turn). */
function limitedFetcher(fetcher: Pick<Fetcher, 'fetch'>, slots: Slots): Pick<Fetcher, 'fetch'> {
  return {
    async fetch(url, options) {
      await slots.take();
      try {
        return await fetcher.fetch(url, options);
      } finally {
        slots.give();
      }
    },
  };
}

const NOT_FETCHED_ENDED = 'not fetched: the request ended first';

/** Short words for a fetch error, as `refreshInfo.message` says them. */
function failureOf(error: unknown): { reason: OriginFailure; message: string } {
  if (error instanceof RobotsDisallowedError) {
    if (error.verdict === 'refused')
      return { reason: 'refused', message: `refused address: ${error.message}` };
    const why = error.verdict === 'unreachable' ? error.message : 'robots.txt disallows it';
    return {
      reason: 'robots',
      message: `not fetched: ${why}${error.hop ? ` (redirected to ${error.url})` : ''}`,
    };
  }
  if (!(error instanceof FetchError)) {
    return { reason: 'network', message: `fetch failed: ${(error as Error)?.message ?? String(error)}` };
  }
  switch (error.code) {
    case 'fetch_refused':
      return { reason: 'refused', message: `refused address: ${error.message}` };
    case 'fetch_invalid_url':
      return { reason: 'invalid_url', message: error.message };
    case 'fetch_timeout':
      return { reason: 'timeout', message: `timeout: ${error.message}` };
    case 'fetch_too_large':
      return { reason: 'too_large', message: `page too large: ${error.message}` };
    case 'fetch_aborted':
      return { reason: 'aborted', message: NOT_FETCHED_ENDED };
    case 'fetch_too_many_redirects':
      return { reason: 'redirects', message: `more than ${DEFAULT_MAX_REDIRECTS} redirects` };
    case 'fetch_redirect_loop':
      return { reason: 'redirects', message: `redirect loop: ${error.message}` };
    case 'fetch_bad_response':
      return { reason: /redirect/i.test(error.message) ? 'redirects' : 'network', message: error.message };
    default:
      return { reason: 'network', message: error.message };
  }
}

/** The signal that ends a wait: the caller's, or the deadline, whichever comes first. */
function waitSignal(options: OriginFetchOptions, now: number): AbortSignal | undefined {
  const limits = [
    ...(options.signal ? [options.signal] : []),
    ...(options.deadline !== undefined ? [AbortSignal.timeout(Math.max(1, options.deadline - now))] : []),
  ];
  return limits.length <= 1 ? limits[0] : AbortSignal.any(limits);
}

/** One try's answer, or the failure that ends the page, or a transient one worth trying again. */
type Attempt =
  | { readonly kind: 'answer'; readonly page: Awaited<ReturnType<PoliteFetcher['fetch']>> }
  | { readonly kind: 'failed'; readonly reason: OriginFailure; readonly message: string }
  | { readonly kind: 'transient'; readonly reason: OriginFailure; readonly message: string };

/**
 * An `OriginFetcher` over the crawl's `PoliteFetcher`: robots.txt of the page's origin and of
 * every redirect hop's (at most 5), the address rule at each hop (the fetcher refuses
 * non-public destinations), and each request in its host's turn under the process's politeness.
 * Transient failures (network errors, timeouts, 429, 5xx) are tried again after 1 s, 2 s, 4 s
 * (+ jitter, `Retry-After` honoured) unless the deadline would pass.
 */
export class PoliteOriginFetcher implements OriginFetcher {
  readonly #polite: PoliteFetcher;
  readonly #robots: ProcessPoliteness['robots'];
  readonly #turns = new HostTurns();
  readonly #crawlDelayMs: number;
  readonly #retry: RetryPolicy;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #stats = { fetched: 0, failed: 0 };

  constructor(options: PoliteOriginFetcherOptions) {
    const shared =
      options.politeness ?? createProcessPoliteness({ fetcher: options.fetcher, now: options.now });
    this.#robots = shared.robots;
    this.#polite = new PoliteFetcher({
      fetcher: limitedFetcher(options.fetcher, new Slots(options.maxConcurrent ?? 64)),
      robots: shared.robots,
      politeness: shared.politeness,
      // One request per host at a time (`HostTurns`); with no delay, a crawl may add its own.
      perHostConcurrency: 1,
    });
    this.#crawlDelayMs = Math.max(0, options.crawlDelayMs);
    this.#retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
    this.#now = options.now ?? Date.now;
  }

  get stats(): { readonly fetched: number; readonly failed: number } {
    return { ...this.#stats };
  }

  async fetchPage(url: string, options: OriginFetchOptions = {}): Promise<OriginPage> {
    const page = await this.#fetchPage(url, options);
    if (page.ok) this.#stats.fetched++;
    else this.#stats.failed++;
    return page;
  }

  async #fetchPage(url: string, options: OriginFetchOptions): Promise<OriginPage> {
    let requests = 0;
    const fail = (reason: OriginFailure, message: string, httpStatus: number | null = null): OriginPage => ({
      ok: false,
      url,
      reason,
      message,
      httpStatus,
      fetchedAt: this.#now(),
      requests,
    });
    const invalid = this.#invalid(url);
    if (invalid) return fail('invalid_url', invalid);
    // robots.txt of the page's origin first (RFC 9309): a refused or disallowed page takes no turn.
    const verdict = await this.#robots.verdict(url);
    if (verdict.kind === 'refused') return fail('refused', `refused address: ${verdict.reason}`);
    if (!robotsAllow(verdict, url, this.#userAgent)) {
      const why = verdict.kind === 'unreachable' ? verdict.reason : 'robots.txt disallows it';
      return fail('robots', `not fetched: ${why}`);
    }
    for (let tries = 0; ; ) {
      if (options.deadline !== undefined && this.#now() >= options.deadline) {
        return fail('timeout', 'not fetched: no time left for this request');
      }
      requests++;
      const attempt = await this.#attempt(url, options);
      if (attempt.kind === 'transient' || attempt.kind === 'failed') {
        if (attempt.kind === 'transient' && (await this.#waitToRetry(++tries, undefined, options))) continue;
        return fail(attempt.reason, attempt.message);
      }
      const answer = attempt.page;
      if (isTransientStatus(answer.status)) {
        const wait = retryAfterMs(answer.headers['retry-after'], this.#now());
        if (await this.#waitToRetry(++tries, wait, options)) continue;
        return fail('http_status', `HTTP ${answer.status}`, answer.status);
      }
      if (answer.status < 200 || answer.status >= 300) {
        return fail('http_status', `HTTP ${answer.status}`, answer.status);
      }
      if (!isMarkup(answer.contentType, answer.body)) {
        return fail('not_html', `not HTML (Content-Type: ${answer.contentType ?? 'none'})`, answer.status);
      }
      return {
        ok: true,
        url,
        finalUrl: answer.finalUrl,
        status: answer.status,
        contentType: answer.headers['content-type'],
        body: answer.body,
        fetchedAt: this.#now(),
        requests,
      };
    }
  }

  /** Why `url` is not one to fetch, or `undefined`. */
  #invalid(url: string): string | undefined {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return `not a valid absolute URL: ${url}`;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return `only http and https URLs are fetched: ${url}`;
    }
    return undefined;
  }

  /** One request for `url` (redirects followed) in its host's turn; never throws. */
  async #attempt(url: string, options: OriginFetchOptions): Promise<Attempt> {
    // Waiting for the host's turn ends with the request, or at the deadline.
    const signal = waitSignal(options, this.#now());
    try {
      const page = await this.#turns.run(
        new URL(url).host,
        options.priority ?? 'interactive',
        () =>
          this.#polite.fetch(url, {
            obeyRobots: true,
            crawlDelayMs: this.#crawlDelayMs,
            userAgent: this.#userAgent,
            signal,
            timeoutMs: this.#remaining(options.deadline),
          }),
        signal,
      );
      return { kind: 'answer', page };
    } catch (error) {
      if (options.signal?.aborted) return { kind: 'failed', reason: 'aborted', message: NOT_FETCHED_ENDED };
      // The deadline passed while waiting for the host (or, rarely, during the request).
      if (error instanceof TurnAbortedError || (signal?.aborted && !(error instanceof FetchError))) {
        return {
          kind: 'failed',
          reason: 'timeout',
          message: 'not fetched: no time left for this request (the host was busy)',
        };
      }
      if (signal?.aborted && error instanceof FetchError && error.code === 'fetch_aborted') {
        return { kind: 'failed', reason: 'timeout', message: 'timeout: no time left for this request' };
      }
      // Tried again when the error's registered outcome says so (network, timeout, 429, 5xx).
      return { kind: outcomeOf(error) === 'retry' ? 'transient' : 'failed', ...failureOf(error) };
    }
  }

  /** Time cap of the next request: the fetcher's, or less when the deadline is nearer. */
  #remaining(deadline: number | undefined): number {
    if (deadline === undefined) return this.#timeoutMs;
    return Math.max(1, Math.min(this.#timeoutMs, deadline - this.#now()));
  }

  /** Waits before try `tries + 1` when the policy and the deadline allow one; false otherwise. */
  async #waitToRetry(
    tries: number,
    retryAfter: number | undefined,
    options: OriginFetchOptions,
  ): Promise<boolean> {
    if (tries > this.#retry.maxRetries) return false;
    const wait = retryDelayMs(this.#retry, tries, { retryAfterMs: retryAfter });
    if (options.deadline !== undefined && this.#now() + wait >= options.deadline) return false;
    if (options.signal?.aborted) return false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      options.signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    return !options.signal?.aborted;
  }
}

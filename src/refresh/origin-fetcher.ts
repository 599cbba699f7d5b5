/**
 * Fetching a page for refresh and search (docs/api.md#refresh-and-search): through the SSRF-safe
 * fetcher (docs/api.md#outbound-requests), obeying robots.txt at every hop of a redirect chain,
 * polite per host (`HostGate`), retrying transient failures with backoff
 * (docs/api.md#fetching), and never throwing: every way a page can fail is an outcome with a
 * message a person can read (`refreshInfo.message`).
 *
 * `OriginFetcher` is the seam refresh and search fetch through; `PoliteOriginFetcher` builds it
 * from the extraction fetcher, the crawl's robots.txt cache and a host gate of its own.
 */
import {
  DEFAULT_RETRY_POLICY,
  isMarkup,
  isTransientStatus,
  type RetryPolicy,
  RobotsCache,
  retryAfterMs,
  retryDelayMs,
  robotsAllow,
  robotsCrawlDelaySeconds,
} from '../crawl/index.ts';
import { FetchError } from '../errors.ts';
import { DEFAULT_MAX_REDIRECTS, DEFAULT_USER_AGENT, type Fetcher } from '../extract/index.ts';
import { type FetchPriority, GateAbortedError, HostGate } from './host-gate.ts';

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
      /** HTTP requests made for the page (redirect hops and retries included). */
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
  /** The SSRF-safe fetcher (`extract/`'s); redirects are followed here, hop by hop. */
  readonly fetcher: Pick<Fetcher, 'fetch'>;
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

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

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

function hostOf(url: string): string {
  return new URL(url).host;
}

/** Short words for a fetch error, as `refreshInfo.message` says them. */
function failureOf(error: unknown): { reason: OriginFailure; message: string } {
  if (error instanceof GateAbortedError)
    return { reason: 'aborted', message: 'not fetched: the request ended first' };
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
      return { reason: 'aborted', message: 'not fetched: the request ended first' };
    default:
      return { reason: 'network', message: error.message };
  }
}

/**
 * An `OriginFetcher` over the extraction fetcher. For each hop of a redirect chain (at most 5):
 * the address rule (the fetcher refuses non-public destinations), robots.txt of that hop's
 * origin (fetched through the host gate like any request, so robots.txt counts toward the
 * host's politeness too), then the request in the hop host's turn. Transient failures (network
 * errors, timeouts, 429, 5xx) are tried again after 1 s, 2 s, 4 s (+ jitter, `Retry-After`
 * honoured) unless the deadline would pass.
 */
export class PoliteOriginFetcher implements OriginFetcher {
  readonly #fetcher: Pick<Fetcher, 'fetch'>;
  readonly #gate: HostGate;
  readonly #robots: RobotsCache;
  readonly #retry: RetryPolicy;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #slots: Slots;
  readonly #now: () => number;
  readonly #stats = { fetched: 0, failed: 0 };

  constructor(options: PoliteOriginFetcherOptions) {
    this.#fetcher = options.fetcher;
    this.#gate = new HostGate({ delayMs: options.crawlDelayMs });
    this.#retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
    this.#slots = new Slots(options.maxConcurrent ?? 64);
    this.#now = options.now ?? Date.now;
    // robots.txt requests take their host's turn like pages do.
    this.#robots = new RobotsCache({
      fetcher: {
        fetch: (url, fetchOptions) =>
          this.#gate.run(hostOf(url), 'interactive', () => this.#fetcher.fetch(url, fetchOptions)),
      },
      timeoutMs: Math.min(10_000, this.#timeoutMs),
      now: this.#now,
    });
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
    let current: URL;
    try {
      current = new URL(url);
    } catch {
      return fail('invalid_url', `not a valid absolute URL: ${url}`);
    }
    if (current.protocol !== 'http:' && current.protocol !== 'https:') {
      return fail('invalid_url', `only http and https URLs are fetched: ${url}`);
    }
    const seen = new Set<string>([current.href]);
    let tries = 0;
    for (let hops = 0; ; ) {
      // robots.txt of this hop's origin (RFC 9309); its Crawl-delay raises the host's delay.
      const verdict = await this.#robots.verdict(current.href);
      if (verdict.kind === 'refused') return fail('refused', `refused address: ${verdict.reason}`);
      if (!robotsAllow(verdict, current.href, this.#userAgent)) {
        const why = verdict.kind === 'unreachable' ? verdict.reason : 'robots.txt disallows it';
        const where = hops === 0 ? '' : ` (redirected to ${current.href})`;
        return fail('robots', `not fetched: ${why}${where}`);
      }
      const host = current.host;
      const crawlDelay = robotsCrawlDelaySeconds(verdict, this.#userAgent);
      if (crawlDelay > 0) this.#gate.requireDelay(host, crawlDelay * 1000);
      if (options.deadline !== undefined && this.#now() >= options.deadline) {
        return fail('timeout', 'not fetched: no time left for this request');
      }
      let answer: Awaited<ReturnType<Fetcher['fetch']>>;
      // Waiting for the host's turn ends with the request, or at the deadline.
      const limits = [
        ...(options.signal ? [options.signal] : []),
        ...(options.deadline !== undefined
          ? [AbortSignal.timeout(Math.max(1, options.deadline - this.#now()))]
          : []),
      ];
      const waitSignal =
        limits.length === 0 ? undefined : limits.length === 1 ? limits[0] : AbortSignal.any(limits);
      try {
        requests++;
        answer = await this.#gate.run(
          host,
          options.priority ?? 'interactive',
          async () => {
            await this.#slots.take();
            try {
              return await this.#fetcher.fetch(current.href, {
                signal: options.signal,
                timeoutMs: this.#remaining(options.deadline),
                maxRedirects: 0,
              });
            } finally {
              this.#slots.give();
            }
          },
          waitSignal,
        );
      } catch (error) {
        if (error instanceof GateAbortedError && !options.signal?.aborted) {
          return fail('timeout', 'not fetched: no time left for this request (the host was busy)');
        }
        const failure = failureOf(error);
        const transient = error instanceof FetchError && error.transient;
        if (transient && (await this.#waitToRetry(++tries, undefined, options))) continue;
        return fail(failure.reason, failure.message);
      }
      const location = answer.headers.location;
      if (REDIRECTS.has(answer.status) && location) {
        if (++hops > DEFAULT_MAX_REDIRECTS) {
          return fail('redirects', `more than ${DEFAULT_MAX_REDIRECTS} redirects`, answer.status);
        }
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          return fail('redirects', `invalid redirect location from ${current.href}`, answer.status);
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          return fail(
            'redirects',
            `redirect to a URL that is not http or https: ${next.href}`,
            answer.status,
          );
        }
        if (seen.has(next.href)) return fail('redirects', `redirect loop at ${next.href}`, answer.status);
        seen.add(next.href);
        current = next;
        continue;
      }
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
        finalUrl: current.href,
        status: answer.status,
        contentType: answer.headers['content-type'],
        body: answer.body,
        fetchedAt: this.#now(),
        requests,
      };
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

/**
 * What happens to one claimed URL of a bulk extract job: fetched politely (robots.txt for the
 * URL and every redirect hop, the host's politeness), extracted when it is a 2xx page matching
 * `pageProcessPattern`, and turned into the outcome the writer records — processed, failed,
 * to retry later, or ruled out by robots.txt.
 */
import { FetchError, outcomeOf } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type { ClaimedUrl, CrawlPageOutcome, StoredCrawlJob } from '../storage/index.ts';
import type { ExtractedObject, FetchedPageView, PageExtraction, PageExtractor } from './dependencies.ts';
import { matchesProcessPattern } from './job-settings.ts';
import type { PendingOutcome } from './outcome-writer.ts';
import { isMarkup } from './page-extraction.ts';
import { type PoliteFetcher, RobotsDisallowedError, TurnCancelledError } from './polite-fetcher.ts';
import {
  isTransientStatus,
  type RetryPolicy,
  retryAfterMs,
  retryDelayMs,
  shouldRetry,
} from './retry-policy.ts';
import { type RobotsVerdict, robotsAllow } from './robots.ts';

/** Object types merged into the knowledge graph with `kgIngest=1`. */
const GRAPH_TYPES = new Set(['organization', 'person', 'Organization', 'Person']);

/** An outcome to record, without the host id the scheduler adds. */
export type ProcessedPage = Omit<PendingOutcome, 'hostId'>;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The fields every outcome of `url` shares. */
function baseOf(url: ClaimedUrl) {
  return { jobId: url.jobId, seq: url.seq, claim: url.claim };
}

const NOTHING = { crawled: false, processAttempted: false, processed: false, objects: [] as string[] };

/**
 * The outcome of a URL robots.txt settles without fetching it: its origin may not be contacted
 * at all (a refused address: failed as the fetch would, one attempt), or its rules (or an
 * unreachable robots.txt) disallow it (no attempt). `undefined` when the URL is allowed.
 */
export function robotsOutcome(
  url: ClaimedUrl,
  verdict: RobotsVerdict,
  userAgent: string,
  now: number,
): CrawlPageOutcome | undefined {
  const base = { ...baseOf(url), ...NOTHING, kind: 'done' as const, at: now };
  if (verdict.kind === 'refused') {
    return { ...base, crawlAttempts: 1, outcome: 'fetch_failed', error: verdict.reason };
  }
  if (robotsAllow(verdict, url.url, userAgent)) return undefined;
  const error =
    verdict.kind === 'unreachable'
      ? `${verdict.reason}: treated as disallowing every page of the site for this round`
      : 'Disallowed by robots.txt';
  return { ...base, crawlAttempts: 0, outcome: 'robots_disallowed', error };
}

export interface PageProcessorDeps {
  readonly fetcher: PoliteFetcher;
  readonly extractor: PageExtractor;
  readonly logger: Logger;
  readonly retry: RetryPolicy;
  readonly now: () => number;
}

/** Fetches and extracts claimed URLs (see the module comment). */
export class PageProcessor {
  readonly #deps: PageProcessorDeps;

  constructor(deps: PageProcessorDeps) {
    this.#deps = deps;
  }

  /**
   * The outcome of fetching and extracting `url` for `job`; `undefined` when `signal` was
   * aborted (stopping: the URL stays claimed and is fetched again after the next start), and
   * `'cancelled'` when `turnSignal` was before the request was made (the job stopped running).
   */
  async process(
    job: StoredCrawlJob,
    url: ClaimedUrl,
    userAgent: string,
    signal: AbortSignal,
    turnSignal?: AbortSignal,
  ): Promise<ProcessedPage | 'cancelled' | undefined> {
    const { settings } = job;
    let page: FetchedPageView;
    try {
      page = await this.#deps.fetcher.fetch(url.url, {
        headers: settings.customHeaders,
        signal,
        obeyRobots: settings.obeyRobots,
        crawlDelayMs: settings.crawlDelay * 1000,
        userAgent,
        turnSignal,
      });
    } catch (error) {
      if (signal.aborted) return undefined;
      if (error instanceof TurnCancelledError) return 'cancelled';
      return this.#fetchFailure(url, error);
    }
    if (page.status < 200 || page.status > 299) {
      const transient = isTransientStatus(page.status);
      const retryAfter = transient ? retryAfterMs(page.headers['retry-after'], this.#deps.now()) : undefined;
      return this.#retryOrFail(url, `HTTP ${page.status}`, page.status, transient, retryAfter);
    }
    const crawled = {
      ...baseOf(url),
      kind: 'done' as const,
      crawlAttempts: 1,
      crawled: true,
      httpStatus: page.status,
    };
    const finalUrl = page.finalUrl !== url.url ? page.finalUrl : undefined;
    if (!matchesProcessPattern(settings.pageProcessPattern, url.url)) {
      const outcome = { ...crawled, processAttempted: false, processed: false, objects: [], finalUrl };
      return { outcome: { ...outcome, outcome: 'not_processed', at: this.#deps.now() } };
    }
    let extraction: PageExtraction;
    try {
      extraction = await this.#extract(job, url, page);
    } catch (error) {
      return this.#extractionFailure(url, page.status, finalUrl, error);
    }
    const outcome = {
      ...crawled,
      processAttempted: true,
      processed: true,
      objects: extraction.documents,
      finalUrl,
    };
    return {
      outcome: { ...outcome, outcome: 'processed', at: this.#deps.now() },
      ingest: settings.kgIngest ? graphObjects(extraction, url.url) : undefined,
    };
  }

  /**
   * An extraction that threw, by its registered outcome: `retry` (the extraction threads were
   * shut down or saturated) fetches the page again later while tries remain; any other outcome
   * fails the page (`process_failed`) and the job goes on — `stop-job` too, since no extraction
   * error is the job's as a whole. An error that is none of Quarry's is a bug: logged, and the
   * page fails.
   */
  #extractionFailure(
    url: ClaimedUrl,
    httpStatus: number,
    finalUrl: string | undefined,
    error: unknown,
  ): ProcessedPage {
    const outcome = outcomeOf(error);
    if (outcome === undefined) {
      this.#deps.logger.warn({ err: error, url: url.url }, 'crawl: extraction failed unexpectedly');
    }
    const at = this.#deps.now();
    const tries = url.attempts + 1;
    if (outcome === 'retry' && shouldRetry(this.#deps.retry, tries)) {
      // Not counted as crawled: the page is fetched (and counted) again when it is retried.
      const base = {
        ...baseOf(url),
        ...NOTHING,
        crawlAttempts: 1,
        httpStatus,
        error: errorMessage(error),
        at,
      };
      return { outcome: { ...base, kind: 'retry', notBefore: at + retryDelayMs(this.#deps.retry, tries) } };
    }
    const failed = { ...baseOf(url), kind: 'done' as const, crawlAttempts: 1, crawled: true, httpStatus };
    const outcomeFields = { processAttempted: true, processed: false, objects: [], finalUrl };
    return {
      outcome: { ...failed, ...outcomeFields, outcome: 'process_failed', error: errorMessage(error), at },
    };
  }

  #extract(job: StoredCrawlJob, url: ClaimedUrl, page: FetchedPageView): Promise<PageExtraction> {
    if (!isMarkup(page.contentType, page.body)) {
      throw new FetchError('not_html', `The page is not HTML (Content-Type: ${page.contentType ?? 'none'})`);
    }
    return this.#deps.extractor.extract({
      tokenId: job.tokenId,
      api: job.settings.api,
      pageUrl: url.url,
      finalUrl: page.finalUrl,
      body: page.body,
      contentType: page.headers['content-type'],
      timestamp: this.#deps.now(),
    });
  }

  /**
   * A fetch that threw: a redirect robots.txt rules out, or a failure whose registered outcome
   * says whether to try again (`retry`) or give up. An error that is no registered one (not a
   * `FetchError`: a failure of the fetching machinery itself) is tried again, as a network
   * failure would be.
   */
  #fetchFailure(url: ClaimedUrl, error: unknown): ProcessedPage {
    if (error instanceof RobotsDisallowedError) {
      // The first request was made (it answered with the redirect): one attempt.
      const at = this.#deps.now();
      const outcome = { ...baseOf(url), ...NOTHING, kind: 'done' as const, crawlAttempts: error.hop ? 1 : 0 };
      return { outcome: { ...outcome, outcome: 'robots_disallowed', error: error.message, at } };
    }
    const outcome = outcomeOf(error) ?? 'retry';
    const httpStatus = error instanceof FetchError ? error.httpStatus : undefined;
    return this.#retryOrFail(url, errorMessage(error), httpStatus, outcome === 'retry');
  }

  #retryOrFail(
    url: ClaimedUrl,
    error: string,
    httpStatus: number | undefined,
    transient: boolean,
    retryAfter?: number,
  ): ProcessedPage {
    const at = this.#deps.now();
    const tries = url.attempts + 1;
    const base = { ...baseOf(url), ...NOTHING, crawlAttempts: 1, httpStatus, error, at };
    if (transient && shouldRetry(this.#deps.retry, tries)) {
      const delay = retryDelayMs(this.#deps.retry, tries, { retryAfterMs: retryAfter });
      return { outcome: { ...base, kind: 'retry', notBefore: at + delay } };
    }
    return { outcome: { ...base, kind: 'done', outcome: 'fetch_failed' } };
  }
}

/** The organizations and people of a page, for `kgIngest`; `undefined` when there are none. */
function graphObjects(extraction: PageExtraction, origin: string): ProcessedPage['ingest'] {
  const objects = extraction.documents
    .filter((_, i) => GRAPH_TYPES.has(extraction.types[i]))
    .map((document) => JSON.parse(document) as ExtractedObject);
  return objects.length > 0 ? { objects, origin } : undefined;
}

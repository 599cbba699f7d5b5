/**
 * The crawl scheduler: takes URLs from the persisted frontier of every running job, fetches
 * them politely and fairly, extracts objects and hands each page's outcome to the writer.
 *
 * - Fairness: each dispatch goes to the next token in turn, then to that token's next job,
 *   then to that job's next host — so tokens, jobs and hosts proceed side by side.
 * - Politeness per (job, host): with a crawl delay, one fetch at a time, each starting at least
 *   `max(crawlDelay, robots Crawl-delay)` after the previous one ended; without, at most
 *   `perHostConcurrency` at once (also across jobs, per host).
 * - robots.txt is consulted once per origin and pass (round) before the first fetch.
 * - Transient failures go back to the frontier with a `notBefore` (backoff), so waiting never
 *   holds a fetch slot.
 * - Control: `refresh(jobId)` re-reads the job after any change of status; a job that is not
 *   running gets no new fetch from that moment on (in-flight fetches finish and count).
 */
import { FetchError, QuarryError } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type {
  ClaimedUrl,
  CrawlJobStore,
  CrawlPageOutcome,
  Storage,
  StoredCrawlJob,
} from '../storage/index.ts';
import type {
  ExtractedObject,
  GraphIngester,
  PageExtraction,
  PageExtractor,
  PageFetcher,
} from './dependencies.ts';
import { ExtractionFailed } from '../extract/index.ts';
import { jobRecord } from './job-record.ts';
import { matchesProcessPattern } from './job-settings.ts';
import { endOfRound, JobStatus, RUNNING_STATUSES, statusMessage } from './job-status.ts';
import { type OutcomeSink, OutcomeWriter, type PendingOutcome, StoreOutcomeSink } from './outcome-writer.ts';
import { isMarkup } from './page-extraction.ts';
import {
  DEFAULT_RETRY_POLICY,
  isTransientStatus,
  type RetryPolicy,
  retryAfterMs,
  retryDelayMs,
  shouldRetry,
} from './retry-policy.ts';
import { RobotsCache, type RobotsVerdict, robotsAllow, robotsCrawlDelaySeconds } from './robots.ts';

/** Tuning of the scheduler; every field has a default. */
export interface SchedulerTuning {
  /** Fetches in flight at most, over all jobs. */
  readonly maxConcurrency: number;
  /** Fetches in flight at most on one host when its crawl delay is 0. */
  readonly perHostConcurrency: number;
  /** URLs claimed from the store at once for one host without crawl delay. */
  readonly claimBatch: number;
  /** Longest time a page outcome waits before it is written, ms. */
  readonly flushIntervalMs: number;
  /** Page outcomes written per transaction at most. */
  readonly flushBatch: number;
  /** Page outcomes not yet written above which no new fetch starts (bounds memory). */
  readonly maxUnwritten: number;
  readonly retry: RetryPolicy;
  /** How long a robots.txt is trusted, ms. */
  readonly robotsTtlMs: number;
  /** User agent whose robots.txt rules apply when a job sets none in `customHeaders`. */
  readonly defaultUserAgent: string;
}

export const DEFAULT_SCHEDULER_TUNING: SchedulerTuning = Object.freeze({
  maxConcurrency: 64,
  perHostConcurrency: 16,
  claimBatch: 64,
  flushIntervalMs: 50,
  flushBatch: 64,
  maxUnwritten: 256,
  retry: DEFAULT_RETRY_POLICY,
  robotsTtlMs: 3_600_000,
  defaultUserAgent: 'QuarryBot',
});

export interface CrawlSchedulerDeps {
  readonly storage: Pick<Storage, 'transaction'> & { readonly crawlJobs: CrawlJobStore };
  readonly fetcher: PageFetcher;
  readonly extractor: PageExtractor;
  readonly ingester?: GraphIngester;
  readonly logger: Logger;
  /** Where page outcomes are written; in this thread, through `storage`, by default. */
  readonly sink?: OutcomeSink;
  readonly tuning?: Partial<SchedulerTuning>;
  readonly now?: () => number;
  /** Called after a round ended (and its webhook, if any, was queued). */
  readonly onRoundEnded?: (job: StoredCrawlJob) => void;
}

/** Politeness state of one host for one job; outlives runs so pause/resume stays polite. */
interface HostSlot {
  inflight: number;
  /** Earliest start of the next fetch, epoch ms. */
  nextAt: number;
  /** Milliseconds between fetch starts (0 = concurrent fetches allowed). */
  delayMs: number;
}

/** One host's queue within a run. */
interface Lane {
  readonly hostId: number;
  readonly host: string;
  readonly slot: HostSlot;
  queue: ClaimedUrl[];
  /** The store had nothing claimable at the last look. */
  exhausted: boolean;
  /** When `exhausted`, the time a URL waiting for a retry becomes claimable (0 = none). */
  wakeAt: number;
  /** A claim from the store is on its way. */
  refilling: boolean;
  /** A URL of the lane went back to the frontier while a claim was on its way: look again. */
  lookAgain: boolean;
}

/** The in-memory side of a running job during one pass. */
interface JobRun {
  readonly job: StoredCrawlJob;
  readonly lanes: Lane[];
  readonly lanesById: Map<number, Lane>;
  laneCursor: number;
  /** robots.txt verdicts for this pass, per origin (`pending` while fetching). */
  readonly robots: Map<string, RobotsVerdict | 'pending'>;
  readonly userAgent: string;
  inflight: number;
  active: boolean;
  /** The round's end is being recorded. */
  ending: boolean;
}

function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** Object types merged into the knowledge graph with `kgIngest=1`. */
const GRAPH_TYPES = new Set(['organization', 'person', 'Organization', 'Person']);

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs the fetching of every job in status 0 or 7. */
export class CrawlScheduler {
  readonly #deps: CrawlSchedulerDeps;
  readonly #store: CrawlJobStore;
  readonly #tuning: SchedulerTuning;
  readonly #now: () => number;
  readonly #robots: RobotsCache;
  readonly #writer: OutcomeWriter;
  readonly #runs = new Map<number, JobRun>();
  /** Runs grouped by token, in the order tokens take turns. */
  readonly #byToken = new Map<string, JobRun[]>();
  readonly #jobCursor = new Map<string, number>();
  #tokenCursor = 0;
  readonly #slots = new Map<string, HostSlot>();
  readonly #hostInflight = new Map<string, number>();
  /** Jobs waiting for their next round (status 4): start time per job id. */
  readonly #nextRounds = new Map<number, number>();
  readonly #inflightWork = new Set<Promise<void>>();
  #abort = new AbortController();
  #inflight = 0;
  #claimSeq = 0;
  #running = false;
  #pumpQueued = false;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(deps: CrawlSchedulerDeps) {
    this.#deps = deps;
    this.#store = deps.storage.crawlJobs;
    this.#tuning = { ...DEFAULT_SCHEDULER_TUNING, ...deps.tuning };
    this.#now = deps.now ?? Date.now;
    this.#robots = new RobotsCache({
      fetcher: deps.fetcher,
      ttlMs: this.#tuning.robotsTtlMs,
      now: this.#now,
    });
    this.#writer = new OutcomeWriter({
      sink:
        deps.sink ??
        new StoreOutcomeSink({ storage: deps.storage, ingester: deps.ingester, logger: deps.logger }),
      logger: deps.logger,
      flushIntervalMs: this.#tuning.flushIntervalMs,
      flushBatch: this.#tuning.flushBatch,
      onWritten: (written, applied) => this.#onWritten(written, applied),
    });
  }

  /** Fetches in flight now. */
  get inflight(): number {
    return this.#inflight;
  }

  /** robots.txt fetches made so far. */
  get robotsFetches(): number {
    return this.#robots.fetches;
  }

  /**
   * Starts working: URLs left claimed by a previous process (stopped or crashed) go back to
   * pending, uncounted; every running job resumes, waiting jobs get their next-round timer.
   */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    this.#abort = new AbortController();
    const recovered = await this.#store.recoverClaims();
    if (recovered > 0)
      this.#deps.logger.info({ recovered }, 'crawl: URLs in flight at the last stop go back to pending');
    for (const job of await this.#store.jobsWithStatus([...RUNNING_STATUSES, JobStatus.nextRoundScheduled])) {
      await this.refresh(job.id);
    }
  }

  /**
   * Stops: no new fetch; in-flight fetches are aborted (their URLs stay claimed and go back to
   * pending at the next start, uncounted); outcomes already known are written.
   */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    this.#abort.abort();
    await Promise.allSettled([...this.#inflightWork]);
    for (const run of [...this.#runs.values()]) this.#deactivate(run);
    this.#nextRounds.clear();
    // Outcomes not written within the grace period are lost uncounted: their URLs stay claimed
    // and are processed again after the next start.
    const grace = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
    await Promise.race([this.#writer.close(), grace]);
  }

  /** Resolves once every outcome known so far is written. */
  drain(): Promise<void> {
    return this.#writer.drain();
  }

  /**
   * Re-reads the job after a change of status (created, paused, resumed, restarted, deleted,
   * maintenance): a running job gets a fresh run; any other job stops getting new fetches now.
   */
  async refresh(jobId: number): Promise<void> {
    const previous = this.#runs.get(jobId);
    if (previous) this.#deactivate(previous);
    this.#nextRounds.delete(jobId);
    const job = await this.#store.getJob(jobId);
    // A later refresh of the same job may have run meanwhile: the last one read wins.
    const again = this.#runs.get(jobId);
    if (again) this.#deactivate(again);
    if (!job) {
      for (const key of [...this.#slots.keys()]) if (key.startsWith(`${jobId}:`)) this.#slots.delete(key);
      return;
    }
    if (!this.#running) return;
    if (job.status === JobStatus.nextRoundScheduled) {
      this.#nextRounds.set(job.id, job.nextRoundAt ?? this.#now());
      this.#schedulePump();
      return;
    }
    if (!RUNNING_STATUSES.includes(job.status)) return;
    let current = job;
    if (job.status === JobStatus.initializing) {
      await this.#store.updateJob(job.id, { status: JobStatus.inProgress }, [JobStatus.initializing]);
      current = (await this.#store.getJob(job.id)) ?? job;
    }
    const hosts = await this.#store.hosts(job.id);
    const stale = this.#runs.get(jobId);
    if (stale) this.#deactivate(stale);
    if (!this.#running) return;
    this.#activate(current, hosts);
    this.#schedulePump();
  }

  #activate(job: StoredCrawlJob, hosts: ReadonlyArray<{ hostId: number; host: string }>): void {
    const lanes = hosts.map(({ hostId, host }) => {
      const key = `${job.id}:${hostId}`;
      let slot = this.#slots.get(key);
      if (!slot) {
        slot = { inflight: 0, nextAt: 0, delayMs: job.settings.crawlDelay * 1000 };
        this.#slots.set(key, slot);
      }
      return {
        hostId,
        host,
        slot,
        queue: [],
        exhausted: false,
        wakeAt: 0,
        refilling: false,
        lookAgain: false,
      } satisfies Lane;
    });
    const run: JobRun = {
      job,
      lanes,
      lanesById: new Map(lanes.map((lane) => [lane.hostId, lane])),
      laneCursor: 0,
      robots: new Map(),
      userAgent: headerValue(job.settings.customHeaders, 'user-agent') ?? this.#tuning.defaultUserAgent,
      inflight: 0,
      active: true,
      ending: false,
    };
    this.#runs.set(job.id, run);
    const runs = this.#byToken.get(job.tokenId) ?? [];
    runs.push(run);
    this.#byToken.set(job.tokenId, runs);
  }

  #deactivate(run: JobRun): void {
    run.active = false;
    this.#runs.delete(run.job.id);
    const runs = this.#byToken.get(run.job.tokenId);
    if (runs) {
      const index = runs.indexOf(run);
      if (index >= 0) runs.splice(index, 1);
      if (runs.length === 0) {
        this.#byToken.delete(run.job.tokenId);
        this.#jobCursor.delete(run.job.tokenId);
      }
    }
    const queued = run.lanes.flatMap((lane) => lane.queue);
    for (const lane of run.lanes) lane.queue = [];
    this.#release(queued);
  }

  /** Puts claimed URLs back; a failure leaves them claimed until the next start recovers them. */
  #release(urls: readonly ClaimedUrl[]): void {
    if (urls.length === 0) return;
    this.#store
      .release(urls)
      .catch((error: unknown) =>
        this.#deps.logger.error({ err: error, urls: urls.length }, 'crawl: releasing claimed URLs failed'),
      );
  }

  #schedulePump(): void {
    if (this.#pumpQueued || !this.#running) return;
    this.#pumpQueued = true;
    setImmediate(() => {
      this.#pumpQueued = false;
      this.#pump();
    });
  }

  #wakeAt(at: number): void {
    if (!Number.isFinite(at) || at >= this.#timerAt) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.max(0, at - this.#now()),
    );
  }

  /** Dispatches as many fetches as limits allow, fairly; arms a timer for the next possible one. */
  #pump(): void {
    if (!this.#running) return;
    const now = this.#now();
    let wake = Number.POSITIVE_INFINITY;
    for (const [jobId, at] of [...this.#nextRounds]) {
      if (at <= now) {
        this.#nextRounds.delete(jobId);
        this.#startNextRound(jobId).catch((error: unknown) =>
          this.#deps.logger.error({ err: error, jobId }, 'crawl: starting the next round failed'),
        );
      } else wake = Math.min(wake, at);
    }
    let dispatched = true;
    // Writing lags behind: let it catch up (each write that completes pumps again).
    if (this.#writer.pending >= this.#tuning.maxUnwritten) dispatched = false;
    while (dispatched && this.#inflight < this.#tuning.maxConcurrency) {
      dispatched = false;
      wake = Number.POSITIVE_INFINITY;
      const tokens = [...this.#byToken.keys()];
      for (let i = 0; i < tokens.length && this.#inflight < this.#tuning.maxConcurrency; i++) {
        const token = tokens[(this.#tokenCursor + i) % tokens.length];
        const runs = this.#byToken.get(token);
        if (!runs) continue;
        const start = this.#jobCursor.get(token) ?? 0;
        for (let j = 0; j < runs.length; j++) {
          const index = (start + j) % runs.length;
          const result = this.#dispatchFrom(runs[index], now);
          if (result === true) {
            dispatched = true;
            this.#jobCursor.set(token, index + 1);
            break;
          }
          wake = Math.min(wake, result);
        }
      }
      this.#tokenCursor = tokens.length === 0 ? 0 : (this.#tokenCursor + 1) % tokens.length;
    }
    for (const at of this.#nextRounds.values()) wake = Math.min(wake, at);
    this.#wakeAt(wake);
  }

  /** Dispatches one URL of `run` when a host is ready; else the time one may become ready. */
  #dispatchFrom(run: JobRun, now: number): true | number {
    let wake = Number.POSITIVE_INFINITY;
    const count = run.lanes.length;
    for (let k = 0; k < count; k++) {
      if (!run.active) return wake;
      const index = (run.laneCursor + k) % count;
      const lane = run.lanes[index];
      const ready = this.#laneReadiness(run, lane, now);
      if (ready !== true) {
        wake = Math.min(wake, ready);
        continue;
      }
      const url = lane.queue.shift()!;
      run.laneCursor = index + 1;
      this.#dispatch(run, lane, url, now);
      return true;
    }
    return wake;
  }

  /** True when `lane` can start a fetch now; otherwise when it may (Infinity: on an event). */
  #laneReadiness(run: JobRun, lane: Lane, now: number): true | number {
    if (lane.queue.length === 0) {
      if (lane.exhausted) {
        if (lane.wakeAt === 0) return Number.POSITIVE_INFINITY;
        if (lane.wakeAt > now) return lane.wakeAt;
        lane.exhausted = false;
      }
      // Claiming goes to the store; the lane is looked at again when the claim is back.
      this.#refill(run, lane, now);
      return Number.POSITIVE_INFINITY;
    }
    const { slot } = lane;
    const limit = slot.delayMs > 0 ? 1 : this.#tuning.perHostConcurrency;
    if (slot.inflight >= limit) return Number.POSITIVE_INFINITY;
    if ((this.#hostInflight.get(lane.host) ?? 0) >= this.#tuning.perHostConcurrency) {
      return Number.POSITIVE_INFINITY;
    }
    if (run.job.settings.obeyRobots) {
      const origin = new URL(lane.queue[0].url).origin;
      const verdict = run.robots.get(origin);
      if (verdict === undefined) {
        this.#lookupRobots(run, lane, origin);
        return Number.POSITIVE_INFINITY;
      }
      if (verdict === 'pending') return Number.POSITIVE_INFINITY;
    }
    if (slot.nextAt > now) return slot.nextAt;
    return true;
  }

  /**
   * Claims the next URLs of a host, then pumps again; with none claimable the lane is exhausted
   * until its next retry is due (or for good in this round).
   */
  #refill(run: JobRun, lane: Lane, now: number): void {
    if (lane.refilling) return;
    lane.refilling = true;
    const limit = lane.slot.delayMs > 0 ? 2 : this.#tuning.claimBatch;
    const claiming = async () => {
      const claimed = await this.#store.claim(run.job.id, lane.hostId, now, limit, ++this.#claimSeq);
      if (!run.active) {
        this.#release(claimed);
        return;
      }
      if (claimed.length > 0) {
        lane.queue = claimed;
        return;
      }
      const wakeAt = (await this.#store.nextPendingAt(run.job.id, lane.hostId)) ?? 0;
      lane.exhausted = true;
      lane.wakeAt = wakeAt;
    };
    claiming()
      .catch((error: unknown) => {
        // The store failed (busy, disk full): look again a little later.
        this.#deps.logger.error({ err: error, jobId: run.job.id }, 'crawl: claiming URLs failed');
        lane.exhausted = true;
        lane.wakeAt = this.#now() + 1_000;
      })
      .then(() => {
        lane.refilling = false;
        if (lane.lookAgain) {
          lane.lookAgain = false;
          lane.exhausted = false;
          lane.wakeAt = 0;
        } else if (lane.exhausted && lane.wakeAt === 0) return this.#checkRoundEnd(run);
      })
      .catch((error: unknown) =>
        this.#deps.logger.error({ err: error, jobId: run.job.id }, 'crawl: ending the round failed'),
      )
      .finally(() => this.#schedulePump());
  }

  #lookupRobots(run: JobRun, lane: Lane, origin: string): void {
    run.robots.set(origin, 'pending');
    this.#robots.verdict(origin).then((verdict) => {
      run.robots.set(origin, verdict);
      const robotsDelay = robotsCrawlDelaySeconds(verdict, run.userAgent) * 1000;
      lane.slot.delayMs = Math.max(run.job.settings.crawlDelay * 1000, robotsDelay);
      this.#schedulePump();
    });
  }

  #dispatch(run: JobRun, lane: Lane, url: ClaimedUrl, now: number): void {
    const verdict = run.job.settings.obeyRobots ? run.robots.get(new URL(url.url).origin) : undefined;
    if (verdict !== undefined && verdict !== 'pending') {
      // Pages robots.txt rules out are settled without a request, and without waiting for the
      // host's crawl delay.
      const settled = this.#robotsOutcome(run, url, verdict, now);
      if (settled) {
        this.#writer.add({ outcome: settled, hostId: lane.hostId });
        return;
      }
    }
    const { slot } = lane;
    slot.inflight++;
    slot.nextAt = now + slot.delayMs;
    run.inflight++;
    this.#inflight++;
    this.#hostInflight.set(lane.host, (this.#hostInflight.get(lane.host) ?? 0) + 1);
    const work = this.#process(run, url)
      .then(
        (entry) => {
          if (entry) this.#writer.add({ ...entry, hostId: lane.hostId });
        },
        (error: unknown) => {
          // #process turns every failure into an outcome; reaching here is a bug. The URL stays
          // claimed and is retried after the next start.
          this.#deps.logger.error(
            { err: error, url: url.url },
            'crawl: unexpected failure processing a page',
          );
        },
      )
      .finally(() => {
        slot.inflight--;
        // The delay runs from the end of a fetch too: the site sees requests at least
        // `crawlDelay` apart however long connecting or answering took.
        if (slot.delayMs > 0) slot.nextAt = Math.max(slot.nextAt, this.#now() + slot.delayMs);
        run.inflight--;
        this.#inflight--;
        const hostCount = (this.#hostInflight.get(lane.host) ?? 1) - 1;
        if (hostCount <= 0) this.#hostInflight.delete(lane.host);
        else this.#hostInflight.set(lane.host, hostCount);
        this.#inflightWork.delete(work);
        this.#schedulePump();
      });
    this.#inflightWork.add(work);
  }

  /**
   * The outcome of a URL that robots.txt settles without fetching: its origin may not be
   * contacted at all (a refused address: failed like the fetch would, one attempt), or its
   * rules (or an unreachable robots.txt) disallow it (no attempt). `undefined` when allowed.
   */
  #robotsOutcome(
    run: JobRun,
    url: ClaimedUrl,
    verdict: RobotsVerdict,
    now: number,
  ): CrawlPageOutcome | undefined {
    const base = {
      jobId: url.jobId,
      seq: url.seq,
      claim: url.claim,
      kind: 'done' as const,
      crawled: false,
      processAttempted: false,
      processed: false,
      objects: [],
      at: now,
    };
    if (verdict.kind === 'refused') {
      return { ...base, crawlAttempts: 1, outcome: 'fetch_failed', error: verdict.reason };
    }
    if (robotsAllow(verdict, url.url, run.userAgent)) return undefined;
    const error =
      verdict.kind === 'unreachable'
        ? `${verdict.reason}: treated as disallowing every page of the site for this round`
        : 'Disallowed by robots.txt';
    return { ...base, crawlAttempts: 0, outcome: 'robots_disallowed', error };
  }

  /** Fetches and extracts one URL; the outcome to record, or undefined when stopping. */
  async #process(run: JobRun, url: ClaimedUrl): Promise<Omit<PendingOutcome, 'hostId'> | undefined> {
    const { settings } = run.job;
    const base = { jobId: url.jobId, seq: url.seq, claim: url.claim };
    const none = { crawled: false, processAttempted: false, processed: false, objects: [] as string[] };
    const tries = url.attempts + 1;
    const retryOrFail = (
      error: string,
      httpStatus: number | undefined,
      transient: boolean,
      retryAfter?: number,
    ) => {
      const at = this.#now();
      if (transient && shouldRetry(this.#tuning.retry, tries)) {
        const delay = retryDelayMs(this.#tuning.retry, tries, { retryAfterMs: retryAfter });
        const outcome: CrawlPageOutcome = {
          ...base,
          ...none,
          kind: 'retry',
          crawlAttempts: 1,
          httpStatus,
          error,
          notBefore: at + delay,
          at,
        };
        return { outcome };
      }
      const outcome: CrawlPageOutcome = {
        ...base,
        ...none,
        kind: 'done',
        crawlAttempts: 1,
        outcome: 'fetch_failed',
        httpStatus,
        error,
        at,
      };
      return { outcome };
    };

    let page: Awaited<ReturnType<PageFetcher['fetch']>>;
    try {
      page = await this.#deps.fetcher.fetch(url.url, {
        headers: settings.customHeaders,
        signal: this.#abort.signal,
      });
    } catch (error) {
      if (this.#abort.signal.aborted) return undefined;
      if (error instanceof FetchError) return retryOrFail(error.message, error.httpStatus, error.transient);
      return retryOrFail(errorMessage(error), undefined, true);
    }
    if (page.status < 200 || page.status > 299) {
      const transient = isTransientStatus(page.status);
      const retryAfter = transient ? retryAfterMs(page.headers['retry-after'], this.#now()) : undefined;
      return retryOrFail(`HTTP ${page.status}`, page.status, transient, retryAfter);
    }

    const crawled = {
      ...base,
      kind: 'done' as const,
      crawlAttempts: 1,
      crawled: true,
      httpStatus: page.status,
    };
    const finalUrl = page.finalUrl !== url.url ? page.finalUrl : undefined;
    if (!matchesProcessPattern(settings.pageProcessPattern, url.url)) {
      return {
        outcome: {
          ...crawled,
          processAttempted: false,
          processed: false,
          objects: [],
          outcome: 'not_processed',
          finalUrl,
          at: this.#now(),
        },
      };
    }
    let extraction: PageExtraction;
    try {
      if (!isMarkup(page.contentType, page.body)) {
        throw new FetchError(
          'not_html',
          `The page is not HTML (Content-Type: ${page.contentType ?? 'none'})`,
        );
      }
      extraction = await this.#deps.extractor.extract({
        tokenId: run.job.tokenId,
        api: settings.api,
        pageUrl: url.url,
        finalUrl: page.finalUrl,
        body: page.body,
        contentType: page.headers['content-type'],
        timestamp: this.#now(),
      });
    } catch (error) {
      if (!(error instanceof QuarryError) && !(error instanceof ExtractionFailed)) {
        this.#deps.logger.warn({ err: error, url: url.url }, 'crawl: extraction failed unexpectedly');
      }
      return {
        outcome: {
          ...crawled,
          processAttempted: true,
          processed: false,
          objects: [],
          outcome: 'process_failed',
          error: errorMessage(error),
          finalUrl,
          at: this.#now(),
        },
      };
    }
    let ingest: PendingOutcome['ingest'];
    if (settings.kgIngest) {
      const objects = extraction.documents
        .filter((_, i) => GRAPH_TYPES.has(extraction.types[i]))
        .map((document) => JSON.parse(document) as ExtractedObject);
      if (objects.length > 0) ingest = { objects, origin: url.url };
    }
    return {
      outcome: {
        ...crawled,
        processAttempted: true,
        processed: true,
        objects: extraction.documents,
        outcome: 'processed',
        finalUrl,
        at: this.#now(),
      },
      ingest,
    };
  }

  #onWritten(written: readonly PendingOutcome[], applied: readonly boolean[]): void {
    const touched = new Set<number>();
    written.forEach((entry, i) => {
      touched.add(entry.outcome.jobId);
      if (!applied[i] || entry.outcome.kind !== 'retry') return;
      // A URL went back to the frontier: its host has work again at `notBefore`.
      const lane = this.#runs.get(entry.outcome.jobId)?.lanesById.get(entry.hostId);
      if (lane?.refilling) lane.lookAgain = true;
      else if (lane?.exhausted) {
        const at = entry.outcome.notBefore ?? 0;
        lane.wakeAt = lane.wakeAt === 0 ? at : Math.min(lane.wakeAt, at);
      }
    });
    for (const jobId of touched) {
      const run = this.#runs.get(jobId);
      if (run) {
        this.#checkRoundEnd(run).catch((error: unknown) =>
          this.#deps.logger.error({ err: error, jobId }, 'crawl: ending the round failed'),
        );
      }
    }
    this.#schedulePump();
  }

  /** Ends the round when nothing of it is left: no URL queued, in flight, unwritten or pending. */
  async #checkRoundEnd(run: JobRun): Promise<void> {
    const idle = () =>
      run.active &&
      !run.ending &&
      run.inflight === 0 &&
      !run.lanes.some(
        (lane) => lane.queue.length > 0 || lane.refilling || !lane.exhausted || lane.wakeAt !== 0,
      ) &&
      !this.#writer.hasPendingFor(run.job.id);
    if (!idle()) return;
    run.ending = true;
    try {
      const unfinished = await this.#store.unfinishedCount(run.job.id);
      if (unfinished > 0 || !run.active) return;
      await this.#endRound(run);
    } finally {
      run.ending = false;
    }
  }

  async #endRound(run: JobRun): Promise<void> {
    const now = this.#now();
    const job = await this.#store.getJob(run.job.id);
    this.#deactivate(run);
    if (!job || job.status !== JobStatus.inProgress) return;
    const end = endOfRound(
      job.settings,
      {
        roundsCompleted: job.counters.roundsCompleted,
        roundStartedAt: job.roundStartedAt,
        crawlSuccessesThisRound: job.counters.pageCrawlSuccessesThisRound,
      },
      now,
    );
    const ended = await this.#deps.storage.transaction(async ({ crawlJobs }) => {
      const changed = await crawlJobs.updateJob(
        job.id,
        {
          status: end.status,
          nextRoundAt: end.nextRoundAt,
          ...(end.completedAt !== null ? { completedAt: end.completedAt } : {}),
          addRoundsCompleted: 1,
        },
        [JobStatus.inProgress],
      );
      if (!changed) return undefined;
      const after = (await crawlJobs.getJob(job.id))!;
      if (after.settings.notifyWebhook !== '') {
        const record = jobRecord(after, { now });
        await crawlJobs.enqueueWebhook({
          jobId: after.id,
          url: after.settings.notifyWebhook,
          payload: JSON.stringify(record),
          headers: {
            'X-Crawl-Name': after.name,
            'X-Crawl-Status': statusMessage(after.status, after.nextRoundAt, now),
          },
          at: now,
        });
      }
      return after;
    });
    if (!ended) return;
    for (const lane of run.lanes) this.#slots.delete(`${job.id}:${lane.hostId}`);
    this.#deps.logger.info(
      { job: job.name, status: ended.status, rounds: ended.counters.roundsCompleted },
      'crawl: round ended',
    );
    if (ended.status === JobStatus.nextRoundScheduled) {
      this.#nextRounds.set(ended.id, ended.nextRoundAt ?? now);
      this.#schedulePump();
    }
    this.#deps.onRoundEnded?.(ended);
  }

  async #startNextRound(jobId: number): Promise<void> {
    this.#nextRounds.delete(jobId);
    const job = await this.#store.getJob(jobId);
    if (!job || job.status !== JobStatus.nextRoundScheduled) return;
    await this.#store.startRound(jobId, this.#now(), JobStatus.inProgress);
    await this.refresh(jobId);
  }
}

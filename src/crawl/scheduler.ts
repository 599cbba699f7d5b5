/**
 * The crawl scheduler: takes URLs from the persisted frontier of every running job, fetches
 * them politely and fairly, extracts objects and hands each page's outcome to the writer.
 *
 * - Fairness: each dispatch goes to the next token in turn, then to that token's next job,
 *   then to that job's next host — so tokens, jobs and hosts proceed side by side.
 * - Politeness per host, across every job (`host-politeness.ts`): with a delay (the larger of
 *   the job's `crawlDelay` and robots.txt's `Crawl-delay`), one request to the host at a time,
 *   each starting at least that delay after the previous one — any job's — began and ended;
 *   without, at most `perHostConcurrency` at once.
 * - robots.txt is consulted once per origin and pass (round) before the first fetch, and for
 *   every redirect hop on the hop's own origin (`polite-fetcher.ts`).
 * - Each page: `page-processor.ts` (fetch, status, retries, extraction, outcome).
 * - Transient failures go back to the frontier with a `notBefore` (backoff), so waiting never
 *   holds a fetch slot.
 * - Control: `refresh(jobId)` re-reads the job after any change of status; a job that is not
 *   running gets no new fetch from that moment on (in-flight fetches finish and count).
 */
import type { Logger } from '../logging.ts';
import type { CrawlMetrics } from '../metrics/index.ts';
import type { ClaimedUrl, CrawlJobStore, Storage, StoredCrawlJob } from '../storage/index.ts';
import type { GraphIngester, PageExtractor, PageFetcher } from './dependencies.ts';
import { type HostPoliteness, InProcessHostPoliteness, type PolitenessRule } from './host-politeness.ts';
import { type JobRun, type Lane, newJobRun, takeQueued } from './job-run.ts';
import { JobStatus, RUNNING_STATUSES } from './job-status.ts';
import { type OutcomeSink, OutcomeWriter, type PendingOutcome, StoreOutcomeSink } from './outcome-writer.ts';
import { PageProcessor, robotsOutcome } from './page-processor.ts';
import { PoliteFetcher } from './polite-fetcher.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import { RobotsCache, robotsCrawlDelaySeconds } from './robots.ts';
import { endRound } from './round-end.ts';

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
  /** On a shared store: how often other processes' changes to the jobs are looked for, ms. */
  readonly sharedSweepMs: number;
  /** On a shared store: sweeps between two looks for the claims of processes that died. */
  readonly lostClaimSweeps: number;
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
  sharedSweepMs: 400,
  lostClaimSweeps: 10,
});

export interface CrawlSchedulerDeps {
  readonly storage: Pick<Storage, 'transaction'> & { readonly crawlJobs: CrawlJobStore };
  readonly fetcher: PageFetcher;
  /** Politeness per host; shared with every other fetching feature of the process by default. */
  readonly politeness?: HostPoliteness;
  /** robots.txt verdicts; a cache of the scheduler's own by default. */
  readonly robots?: RobotsCache;
  readonly extractor: PageExtractor;
  readonly ingester?: GraphIngester;
  readonly logger: Logger;
  /** Where page outcomes are written; in this thread, through `storage`, by default. */
  readonly sink?: OutcomeSink;
  readonly tuning?: Partial<SchedulerTuning>;
  readonly now?: () => number;
  /** Called after a round ended (and its webhook, if any, was queued). */
  readonly onRoundEnded?: (job: StoredCrawlJob) => void;
  /**
   * Other processes work on the same store (PostgreSQL): jobs they create or control, and the
   * URLs claimed by those of them that died, are looked for every `sharedSweepMs`.
   */
  readonly shared?: boolean;
  /** Where applied page outcomes are reported (docs/metrics.md); default: nowhere. */
  readonly metrics?: CrawlMetrics;
}

/** Runs the fetching of every job in status 0 or 7. */
export class CrawlScheduler {
  readonly #deps: CrawlSchedulerDeps;
  readonly #store: CrawlJobStore;
  readonly #tuning: SchedulerTuning;
  readonly #now: () => number;
  readonly #robots: RobotsCache;
  readonly #politeness: HostPoliteness;
  readonly #fetcher: PoliteFetcher;
  readonly #pages: PageProcessor;
  readonly #writer: OutcomeWriter;
  readonly #runs = new Map<number, JobRun>();
  /** Runs grouped by token, in the order tokens take turns. */
  readonly #byToken = new Map<string, JobRun[]>();
  readonly #jobCursor = new Map<string, number>();
  #tokenCursor = 0;
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
  #sweepTimer: NodeJS.Timeout | undefined;
  #sweeps = 0;
  #sweeping = false;

  constructor(deps: CrawlSchedulerDeps) {
    this.#deps = deps;
    this.#store = deps.storage.crawlJobs;
    this.#tuning = { ...DEFAULT_SCHEDULER_TUNING, ...deps.tuning };
    this.#now = deps.now ?? Date.now;
    this.#robots =
      deps.robots ??
      new RobotsCache({ fetcher: deps.fetcher, ttlMs: this.#tuning.robotsTtlMs, now: this.#now });
    this.#politeness = deps.politeness ?? new InProcessHostPoliteness({ now: this.#now });
    // A request another feature (or another job's redirect) ends may make a host ready.
    this.#politeness.onRelease(() => this.#schedulePump());
    this.#fetcher = new PoliteFetcher({
      fetcher: deps.fetcher,
      robots: this.#robots,
      politeness: this.#politeness,
      perHostConcurrency: this.#tuning.perHostConcurrency,
    });
    this.#pages = new PageProcessor({
      fetcher: this.#fetcher,
      extractor: deps.extractor,
      logger: deps.logger,
      retry: this.#tuning.retry,
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
    if (this.#deps.shared) {
      this.#sweepTimer = setInterval(() => void this.#sweep(), this.#tuning.sharedSweepMs);
      this.#sweepTimer.unref();
    }
  }

  /**
   * On a shared store, what other processes changed: jobs they created, paused, resumed,
   * restarted, deleted or ended get `refresh`ed here (so a control request to any process is in
   * force on all within a sweep), and every few sweeps the URLs of processes that died go back
   * to pending, for the lanes here to take.
   */
  async #sweep(): Promise<void> {
    if (!this.#running || this.#sweeping) return;
    this.#sweeping = true;
    try {
      if (++this.#sweeps % this.#tuning.lostClaimSweeps === 0) {
        const recovered = await this.#store.recoverLostClaims();
        if (recovered > 0) {
          this.#deps.logger.info({ recovered }, 'crawl: URLs of a process that is gone go back to pending');
          this.#wakeAllLanes();
        }
      }
      const jobs = await this.#store.jobsWithStatus([...RUNNING_STATUSES, JobStatus.nextRoundScheduled]);
      const listed = new Set<number>();
      for (const job of jobs) {
        listed.add(job.id);
        const run = this.#runs.get(job.id);
        const changed =
          job.status === JobStatus.nextRoundScheduled
            ? run !== undefined || !this.#nextRounds.has(job.id)
            : run === undefined || run.job.roundStartedAt !== job.roundStartedAt;
        if (changed) await this.refresh(job.id);
      }
      for (const id of [...this.#runs.keys(), ...this.#nextRounds.keys()]) {
        if (!listed.has(id)) await this.refresh(id);
      }
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'crawl: looking at the shared store failed');
    } finally {
      this.#sweeping = false;
    }
  }

  /** Every exhausted lane looks at its host's frontier again (URLs came back to it). */
  #wakeAllLanes(): void {
    for (const run of this.#runs.values()) {
      for (const lane of run.lanes) {
        if (lane.refilling) lane.lookAgain = true;
        else if (lane.exhausted) {
          lane.exhausted = false;
          lane.wakeAt = 0;
        }
      }
    }
    this.#schedulePump();
  }

  /**
   * Stops: no new fetch; in-flight fetches are aborted (their URLs stay claimed and go back to
   * pending at the next start, uncounted); outcomes already known are written.
   */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    clearInterval(this.#sweepTimer);
    this.#sweepTimer = undefined;
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
    if (!job || !this.#running) return;
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
    const run = newJobRun(current, hosts, this.#tuning.defaultUserAgent);
    this.#runs.set(current.id, run);
    const runs = this.#byToken.get(current.tokenId) ?? [];
    runs.push(run);
    this.#byToken.set(current.tokenId, runs);
    this.#schedulePump();
  }

  #deactivate(run: JobRun): void {
    run.active = false;
    // Fetches still waiting for their host's turn are not made (their URLs go back, below).
    run.ended.abort();
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
    this.#release(takeQueued(run));
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
    // Writing lags behind: let it catch up (each write that completes pumps again).
    let dispatched = this.#writer.pending < this.#tuning.maxUnwritten;
    while (dispatched && this.#inflight < this.#tuning.maxConcurrency) {
      const round = this.#dispatchRound(now);
      dispatched = round.dispatched;
      wake = round.wake;
    }
    for (const at of this.#nextRounds.values()) wake = Math.min(wake, at);
    this.#wakeAt(wake);
  }

  /** One turn of every token (each dispatching from its next job that can); when to look again. */
  #dispatchRound(now: number): { dispatched: boolean; wake: number } {
    let dispatched = false;
    let wake = Number.POSITIVE_INFINITY;
    const tokens = [...this.#byToken.keys()];
    for (let i = 0; i < tokens.length && this.#inflight < this.#tuning.maxConcurrency; i++) {
      const token = tokens[(this.#tokenCursor + i) % tokens.length];
      // A copy: a run whose round ends during this turn leaves the token's list.
      const runs = [...(this.#byToken.get(token) ?? [])];
      const start = this.#jobCursor.get(token) ?? 0;
      for (let j = 0; j < runs.length; j++) {
        const index = (start + j) % runs.length;
        if (!runs[index].active) continue;
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
    return { dispatched, wake };
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
      // Claimed when they can begin: a URL claimed at a crash or stop counts as an attempt.
      const rule = this.#laneRule(run, lane);
      const capacity = this.#politeness.capacity(lane.host, rule, now);
      if (capacity === 0) return this.#politeness.readyAt(lane.host, rule, now);
      // Claiming goes to the store; the lane is looked at again when the claim is back.
      this.#refill(run, lane, now, capacity);
      return Number.POSITIVE_INFINITY;
    }
    const { settings } = run.job;
    const next = lane.queue[0].url;
    if (settings.obeyRobots) {
      const origin = new URL(next).origin;
      const verdict = run.robots.get(origin);
      if (verdict === undefined) {
        this.#lookupRobots(run, origin);
        return Number.POSITIVE_INFINITY;
      }
      if (verdict === 'pending') return Number.POSITIVE_INFINITY;
      // Settled without a request (and without the host's turn): dispatch now.
      if (robotsOutcome(lane.queue[0], verdict, run.userAgent, now)) return true;
    }
    const rule = this.#fetcher.ruleFor(next, {
      obeyRobots: settings.obeyRobots,
      crawlDelayMs: settings.crawlDelay * 1000,
      userAgent: run.userAgent,
    });
    const at = this.#politeness.readyAt(lane.host, rule, now);
    return at <= now ? true : at;
  }

  /** The politeness rule of the lane's host: the job's delay or its robots.txt `Crawl-delay`. */
  #laneRule(run: JobRun, lane: Lane): PolitenessRule {
    const delayMs = Math.max(run.job.settings.crawlDelay * 1000, lane.robotsDelayMs);
    return { delayMs, maxConcurrent: this.#tuning.perHostConcurrency };
  }

  /**
   * Claims the next URLs of a host: as many as its politeness lets begin now (`capacity`: one
   * for a host with a delay, up to `perHostConcurrency` otherwise), so that a URL is claimed
   * about when its fetch begins (the store counts a claim found at start-up as an attempt that
   * reached the site). With none claimable the lane is exhausted until its next retry is due
   * (or for good in this round); the lane is looked at again when the claim is back.
   */
  #refill(run: JobRun, lane: Lane, now: number, capacity: number): void {
    if (lane.refilling) return;
    lane.refilling = true;
    // Not bounded by the scheduler's own room: lanes with URLs in hand take turns fairly while
    // another lane's claim is on its way.
    const limit = Math.min(this.#tuning.claimBatch, capacity);
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

  #lookupRobots(run: JobRun, origin: string): void {
    run.robots.set(origin, 'pending');
    this.#robots.verdict(origin).then((verdict) => {
      run.robots.set(origin, verdict);
      const robotsDelayMs = robotsCrawlDelaySeconds(verdict, run.userAgent) * 1000;
      const host = new URL(origin).host;
      for (const lane of run.lanes) {
        if (lane.host === host) lane.robotsDelayMs = Math.max(lane.robotsDelayMs, robotsDelayMs);
      }
      this.#schedulePump();
    });
  }

  #dispatch(run: JobRun, lane: Lane, url: ClaimedUrl, now: number): void {
    const verdict = run.job.settings.obeyRobots ? run.robots.get(new URL(url.url).origin) : undefined;
    if (verdict !== undefined && verdict !== 'pending') {
      // Pages robots.txt rules out are settled without a request, and without the host's turn.
      const settled = robotsOutcome(url, verdict, run.userAgent, now);
      if (settled) {
        this.#writer.add({ outcome: settled, hostId: lane.hostId });
        return;
      }
    }
    run.inflight++;
    this.#inflight++;
    const work = this.#pages
      .process(run.job, url, run.userAgent, this.#abort.signal, run.ended.signal)
      .then(
        (entry) => {
          if (entry === 'cancelled') this.#release([url]);
          else if (entry) this.#writer.add({ ...entry, hostId: lane.hostId });
        },
        (error: unknown) => {
          // process() turns every failure into an outcome; reaching here is a bug. The URL stays
          // claimed and is retried after the next start.
          this.#deps.logger.error(
            { err: error, url: url.url },
            'crawl: unexpected failure processing a page',
          );
        },
      )
      .finally(() => {
        run.inflight--;
        this.#inflight--;
        this.#inflightWork.delete(work);
        this.#schedulePump();
      });
    this.#inflightWork.add(work);
  }

  #onWritten(written: readonly PendingOutcome[], applied: readonly boolean[]): void {
    const touched = new Set<number>();
    written.forEach((entry, i) => {
      touched.add(entry.outcome.jobId);
      if (applied[i]) {
        const { outcome } = entry;
        this.#deps.metrics?.pageOutcome(outcome.kind === 'retry' ? 'retry' : (outcome.outcome ?? 'unknown'));
      }
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
      this.#deactivate(run);
      // Other runs of the token may have been skipped in the turn that ended this one.
      this.#schedulePump();
      const ended = await endRound(this.#deps.storage, run.job.id, this.#now());
      if (!ended) return;
      this.#deps.logger.info(
        { job: ended.name, status: ended.status, rounds: ended.counters.roundsCompleted },
        'crawl: round ended',
      );
      if (ended.status === JobStatus.nextRoundScheduled) {
        this.#nextRounds.set(ended.id, ended.nextRoundAt ?? this.#now());
        this.#schedulePump();
      }
      this.#deps.onRoundEnded?.(ended);
    } finally {
      run.ending = false;
    }
  }

  async #startNextRound(jobId: number): Promise<void> {
    this.#nextRounds.delete(jobId);
    const job = await this.#store.getJob(jobId);
    if (!job || job.status !== JobStatus.nextRoundScheduled) return;
    // Conditional: of the processes whose timers fire for this round, one starts it.
    await this.#store.startRound(jobId, this.#now(), JobStatus.inProgress, JobStatus.nextRoundScheduled);
    await this.refresh(jobId);
  }
}

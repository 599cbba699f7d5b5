/**
 * Bulk extract jobs (issue 5, area C): creation and control (pause, resume, restart, delete),
 * the operator maintenance switch, downloads — and, once started, the scheduler that
 * processes the jobs and the webhook sender.
 *
 * Every job belongs to the token that created it; another token's job answers as unknown
 * (`{"errorCode":500,"error":"no collection record."}`, HTTP 404, docs/api.md#controlling-jobs).
 */
import type { Readable } from 'node:stream';
import { ConflictError, InvalidParameterError, NotFoundError } from '../errors.ts';
import type { WebhookPost } from '../bulk/index.ts';
import { type AddressPolicy, checkUrlAllowed } from '../extract/index.ts';
import type { Logger } from '../logging.ts';
import { RUNNING_STATUSES } from './job-status.ts';
import type { CrawlMetrics } from '../metrics/index.ts';
import type { CrawlJobStore, Storage, StoredCrawlJob } from '../storage/index.ts';
import { exportObjects, type ExportFormat, exportUrlReport } from './data-export.ts';
import type { GraphIngester, PageExtractor, PageFetcher } from './dependencies.ts';
import type { HostPoliteness } from './host-politeness.ts';
import { parseJobCreation, validateJobName } from './job-settings.ts';
import {
  initialStatus,
  JobStatus,
  MAINTENANCE_HELD_STATUSES,
  pause,
  restart,
  resume,
  type StatusChange,
} from './job-status.ts';
import type { OutcomeSink } from './outcome-writer.ts';
import { CrawlScheduler, type SchedulerTuning } from './scheduler.ts';
import type { RobotsCache } from './robots.ts';
import { WebhookSender, type WebhookRetry } from './webhook-sender.ts';

/** Name of the operator switch that holds every job for maintenance (`on` / `off`). */
export const MAINTENANCE_SWITCH = 'maintenance';
/** How often a running server looks at the maintenance switch, ms (it reacts within a second). */
export const MAINTENANCE_POLL_MS = 500;

/** Tuning of bulk extract jobs (tests shorten the waits). */
export interface CrawlTuning {
  readonly scheduler?: Partial<SchedulerTuning>;
  readonly webhook?: Partial<WebhookRetry>;
  readonly maintenancePollMs?: number;
}

export interface CrawlServiceDeps {
  readonly storage: Pick<Storage, 'transaction'> & { readonly crawlJobs: CrawlJobStore };
  readonly fetcher: PageFetcher;
  /** Sends webhook requests (bulk's `createWebhookPost` over the SSRF-safe fetcher). */
  readonly webhookPost: WebhookPost;
  readonly extractor: PageExtractor;
  readonly ingester?: GraphIngester;
  /**
   * Politeness per host: the process's one, shared with refresh and search
   * (`crawl/process-politeness.ts`; `SharedHostPoliteness` on a store several processes share).
   */
  readonly politeness?: HostPoliteness;
  /** robots.txt verdicts: the process's cache, shared with refresh and search; own by default. */
  readonly robots?: RobotsCache;
  /** Other processes work on the same store (see `CrawlSchedulerDeps.shared`). */
  readonly shared?: boolean;
  /** Where page outcomes are written (default: in this thread). */
  readonly sink?: OutcomeSink;
  readonly logger: Logger;
  /** Which addresses webhooks may reach (as the fetcher's); private networks refused by default. */
  readonly addressPolicy?: AddressPolicy;
  readonly tuning?: CrawlTuning;
  /** Where page outcomes are reported (docs/metrics.md); default: nowhere. */
  readonly metrics?: CrawlMetrics;
  readonly now?: () => number;
}

/** Reads whether maintenance is on from a store (also used by the `quarry maintenance` CLI). */
export async function maintenanceIsOn(store: CrawlJobStore): Promise<boolean> {
  return (await store.getSwitch(MAINTENANCE_SWITCH)) === 'on';
}

/** Creates, controls and exports bulk extract jobs; `start()` begins processing them. */
export class CrawlService {
  readonly #store: CrawlJobStore;
  readonly #deps: CrawlServiceDeps;
  readonly #now: () => number;
  readonly scheduler: CrawlScheduler;
  readonly webhooks: WebhookSender;
  #maintenanceTimer: NodeJS.Timeout | undefined;
  /** The maintenance state last applied to the jobs; undefined before `start()`. */
  #maintenanceApplied: boolean | undefined;

  constructor(deps: CrawlServiceDeps) {
    this.#deps = deps;
    this.#store = deps.storage.crawlJobs;
    this.#now = deps.now ?? Date.now;
    this.webhooks = new WebhookSender({
      store: this.#store,
      post: deps.webhookPost,
      logger: deps.logger,
      retry: deps.tuning?.webhook,
      now: this.#now,
    });
    this.scheduler = new CrawlScheduler({
      storage: deps.storage,
      fetcher: deps.fetcher,
      extractor: deps.extractor,
      ingester: deps.ingester,
      politeness: deps.politeness,
      robots: deps.robots,
      shared: deps.shared,
      sink: deps.sink,
      logger: deps.logger,
      tuning: deps.tuning?.scheduler,
      now: this.#now,
      onRoundEnded: () => this.webhooks.poke(),
      metrics: deps.metrics,
    });
  }

  /** Jobs crawling and their URLs not yet done this round (the metrics' queue depth). */
  async pendingWork(): Promise<{ jobs: number; urls: number }> {
    const store = this.#deps.storage.crawlJobs;
    const running = await store.jobsWithStatus(RUNNING_STATUSES);
    let urls = 0;
    for (const job of running) urls += await store.unfinishedCount(job.id);
    return { jobs: running.length, urls };
  }

  /**
   * Starts processing: applies the maintenance switch, resumes every unfinished job (URLs
   * in flight at a crash go back to pending) and delivers pending webhooks.
   */
  async start(): Promise<void> {
    const poll = this.#deps.tuning?.maintenancePollMs ?? MAINTENANCE_POLL_MS;
    this.#maintenanceTimer = setInterval(() => void this.#applyMaintenance(), poll);
    this.#maintenanceTimer.unref();
    await this.#applyMaintenance();
    await this.scheduler.start();
    this.webhooks.start();
  }

  /** Stops processing and webhook delivery; what is known is written. Idempotent. */
  async stop(): Promise<void> {
    if (this.#maintenanceTimer) clearInterval(this.#maintenanceTimer);
    this.#maintenanceTimer = undefined;
    await this.scheduler.stop();
    await this.webhooks.stop();
  }

  /** Stops (see `stop()`) and releases the extractor's threads; the service cannot start again. */
  async close(): Promise<void> {
    await this.stop();
    await this.#deps.extractor.close();
  }

  /** Whether the operator switched maintenance on. */
  maintenance(): Promise<boolean> {
    return maintenanceIsOn(this.#store);
  }

  /** Holds or restores jobs when the switch changed since the last look (idempotent). */
  async #applyMaintenance(): Promise<void> {
    try {
      const on = await this.maintenance();
      if (on === this.#maintenanceApplied) return;
      const changed = on
        ? await this.#store.holdJobs(MAINTENANCE_HELD_STATUSES, JobStatus.maintenance)
        : await this.#store.restoreHeldJobs(JobStatus.maintenance);
      this.#maintenanceApplied = on;
      if (changed.length > 0) {
        this.#deps.logger.info(
          { maintenance: on, jobs: changed.length },
          'crawl: maintenance switch applied',
        );
      }
      for (const id of changed) await this.scheduler.refresh(id);
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'crawl: applying the maintenance switch failed');
    }
  }

  /**
   * Refuses a `notifyWebhook` the fetcher would refuse (a loopback, private or link-local
   * address, or a name resolving to one) at creation, with a 400, instead of a notification
   * that fails silently later (as bulk enhance's `webhookurl`). A name that does not resolve
   * now is accepted: DNS may answer by the time the job ends.
   */
  async #checkWebhook(url: string): Promise<void> {
    if (url === '') return;
    const refusal = await checkUrlAllowed(url, this.#deps.addressPolicy ?? { allowPrivateNetwork: false });
    if (refusal && refusal.reason !== 'unresolvable') {
      throw new InvalidParameterError(
        'notifyWebhook',
        `Invalid parameter 'notifyWebhook': ${refusal.message}`,
      );
    }
  }

  /**
   * Creates a job from the submitted fields (docs/api.md#creating-a-job). `publicBaseUrl` (scheme,
   * host, port the request came through) is the base of its download links. Throws 400s naming the
   * parameter, 505 for a bad name, 457 for an unknown API, 400 when the name is taken.
   */
  async create(
    tokenId: string,
    fields: Record<string, unknown>,
    publicBaseUrl: string,
  ): Promise<StoredCrawlJob> {
    const creation = parseJobCreation(fields);
    await this.#deps.extractor.checkApi(tokenId, creation.settings.api);
    await this.#checkWebhook(creation.settings.notifyWebhook);
    const validUrls = creation.urls.filter((url) => url.invalid === undefined).length;
    const { status, resumeStatus } = initialStatus(validUrls, await this.maintenance());
    const job = await this.#store.createJob({
      tokenId,
      name: creation.name,
      settings: { ...creation.settings, publicBaseUrl },
      status,
      resumeStatus,
      urls: creation.urls,
      now: this.#now(),
    });
    if (!job) throw new ConflictError(`A job named ${creation.name} already exists.`);
    this.#deps.logger.info(
      { job: job.name, urls: creation.urls.length, valid: validUrls },
      'crawl: job created',
    );
    await this.scheduler.refresh(job.id);
    return (await this.#store.getJob(job.id)) ?? job;
  }

  /** The token's jobs, oldest first. */
  list(tokenId: string): Promise<StoredCrawlJob[]> {
    return this.#store.listJobs(tokenId);
  }

  /** The token's job of that name; 505 for an invalid name, 500/404 when there is none. */
  async get(tokenId: string, name: unknown): Promise<StoredCrawlJob> {
    const valid = validateJobName(name);
    const job = await this.#store.findJob(tokenId, valid);
    if (!job) throw new NotFoundError('no collection record.', { errorCode: 500 });
    return job;
  }

  async #change(job: StoredCrawlJob, change: StatusChange): Promise<StoredCrawlJob> {
    if (change.status !== job.status || change.resumeStatus !== job.resumeStatus) {
      await this.#store.updateJob(job.id, { status: change.status, resumeStatus: change.resumeStatus });
      await this.scheduler.refresh(job.id);
    }
    return (await this.#store.getJob(job.id)) ?? job;
  }

  /** `pause=1`: no new fetch from now on; in-flight fetches finish and count. */
  async pause(tokenId: string, name: unknown): Promise<StoredCrawlJob> {
    const job = await this.get(tokenId, name);
    return this.#change(job, pause(job));
  }

  /** `pause=0`: a paused job continues with what is left (or stays finished when it was). */
  async resume(tokenId: string, name: unknown): Promise<StoredCrawlJob> {
    const job = await this.get(tokenId, name);
    return this.#change(job, resume(job, await this.maintenance()));
  }

  /** `restart=1`: erases objects and counters and processes every URL again, same settings. */
  async restart(tokenId: string, name: unknown): Promise<StoredCrawlJob> {
    const job = await this.get(tokenId, name);
    const { status } = restart(job.urlCount, await this.maintenance());
    await this.#store.resetJob(job.id, this.#now(), status);
    if (status === JobStatus.maintenance) {
      await this.#store.updateJob(job.id, { resumeStatus: JobStatus.inProgress });
    }
    await this.scheduler.refresh(job.id);
    this.#deps.logger.info({ job: job.name }, 'crawl: job restarted');
    return (await this.#store.getJob(job.id)) ?? job;
  }

  /** `delete=1`: removes the job and all its data (irreversible). */
  async delete(tokenId: string, name: unknown): Promise<void> {
    const job = await this.get(tokenId, name);
    await this.#store.deleteJob(job.id);
    await this.scheduler.refresh(job.id);
    this.#deps.logger.info({ job: job.name }, 'crawl: job deleted');
  }

  /** The job's extracted objects (`type` omitted) or its per-URL report (`type=urls`), streamed. */
  async download(
    tokenId: string,
    name: unknown,
    options: { format: ExportFormat; type?: 'urls' },
  ): Promise<{ job: StoredCrawlJob; stream: Readable }> {
    const job = await this.get(tokenId, name);
    const stream =
      options.type === 'urls'
        ? exportUrlReport(this.#store, job.id, options.format)
        : exportObjects(this.#store, job.id, options.format);
    return { job, stream };
  }
}

/** Parses the `format` and `type` of a download request. */
export function parseDownloadQuery(query: Record<string, unknown>): { format: ExportFormat; type?: 'urls' } {
  const format = query.format === undefined || query.format === '' ? 'json' : query.format;
  if (format !== 'json' && format !== 'csv') {
    throw new InvalidParameterError('format', "Invalid parameter 'format': must be json or csv");
  }
  const type = query.type === undefined || query.type === '' ? undefined : query.type;
  if (type !== undefined && type !== 'urls') {
    throw new InvalidParameterError(
      'type',
      "Invalid parameter 'type': must be urls (or absent for the objects)",
    );
  }
  return { format, type };
}

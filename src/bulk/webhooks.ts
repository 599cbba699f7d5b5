import type { Logger } from '../logging.ts';
import type { BulkJobRow, BulkJobStore, BulkWebhookState } from '../storage/index.ts';
import type { BulkJobStatusRecord } from './job-record.ts';

/**
 * Sends one webhook request: POST `body` (JSON) to `url`. Resolves with the HTTP status; rejects
 * when the request could not be made (refused address, network error, timeout).
 */
export type WebhookPost = (
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
) => Promise<number>;

/**
 * Delays between tries, milliseconds: 6 tries spread over about ten minutes
 * (docs/api.md#bulk-webhooks: at least 5 tries over a few minutes, exponential backoff).
 */
export const DEFAULT_WEBHOOK_DELAYS_MS: readonly number[] = [5_000, 15_000, 45_000, 135_000, 405_000];

/**
 * How long a delivery claimed by a process stays its own, ms: six times a request's timeout, so
 * a live process always finishes first. A process that dies mid-delivery leaves it to the next
 * process that looks after the lease (a retry elsewhere, or any process's start).
 */
export const WEBHOOK_LEASE_MS = 60_000;

export interface WebhookSenderDeps {
  readonly store: BulkJobStore;
  readonly post: WebhookPost;
  /** The status record POSTed for a job. */
  readonly statusRecord: (job: BulkJobRow) => Promise<BulkJobStatusRecord>;
  readonly logger: Logger;
  /** Wait before try 2, 3, …; the number of tries is one more than its length. */
  readonly delaysMs?: readonly number[];
  readonly now?: () => number;
}

/**
 * Delivers the status record of a job that reached a final state to its `webhookurl`, retrying
 * with exponential backoff on network errors and non-2xx answers. Delivery state is stored with
 * the job, so pending deliveries survive a restart (`resume`). Never blocks the job: it runs on
 * timers, after the job is final.
 */
export class WebhookSender {
  readonly #deps: WebhookSenderDeps;
  readonly #delays: readonly number[];
  readonly #now: () => number;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();
  #closed = false;

  constructor(deps: WebhookSenderDeps) {
    this.#deps = deps;
    this.#delays = deps.delaysMs ?? DEFAULT_WEBHOOK_DELAYS_MS;
    this.#now = deps.now ?? Date.now;
  }

  /** Tries in total before a delivery is given up. */
  get maxTries(): number {
    return this.#delays.length + 1;
  }

  /** Starts delivering for a job that just reached a final state (no-op without `webhookurl`). */
  schedule(job: BulkJobRow): Promise<void> {
    if (!job.webhookUrl || this.#closed) return Promise.resolve();
    const state: BulkWebhookState = { state: 'pending', attempts: 0, nextAt: this.#now(), lastError: null };
    // Counted as running until armed: `settled()` waits for it.
    const scheduling = this.#deps.store
      .update(job.id, { webhook: state })
      .then(() => this.#arm(job.id, 0))
      .finally(() => this.#running.delete(scheduling));
    this.#running.add(scheduling);
    return scheduling;
  }

  /** Re-arms deliveries still pending in the store (at start-up). */
  resume(jobs: readonly BulkJobRow[]): void {
    for (const job of jobs) {
      if (job.webhook?.state === 'pending') {
        this.#arm(job.id, Math.max(0, (job.webhook.nextAt ?? this.#now()) - this.#now()));
      }
    }
  }

  /** Resolves when no attempt is running or due (tests). */
  async settled(): Promise<void> {
    while (this.#running.size > 0 || this.#timers.size > 0) {
      await Promise.race([...this.#running, new Promise((resolve) => setTimeout(resolve, 10))]);
    }
  }

  /** Cancels timers; pending deliveries stay pending in the store and resume at the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await Promise.allSettled([...this.#running]);
  }

  #arm(jobId: string, delayMs: number): void {
    if (this.#closed) return;
    clearTimeout(this.#timers.get(jobId));
    const timer = setTimeout(() => {
      this.#timers.delete(jobId);
      const attempt = this.#attempt(jobId)
        .catch((error: unknown) =>
          this.#deps.logger.error({ err: error, jobId }, 'bulk webhook attempt failed'),
        )
        .finally(() => this.#running.delete(attempt));
      this.#running.add(attempt);
    }, delayMs);
    // A pending webhook alone does not keep a process alive; it resumes at the next start.
    timer.unref();
    this.#timers.set(jobId, timer);
  }

  /**
   * The job if this process may deliver its webhook now: claimed in the store (its `nextAt`
   * moved a lease ahead) so that no other process sharing the store attempts it meanwhile. A
   * delivery claimed elsewhere or due later is looked at again when due.
   */
  async #claim(jobId: string): Promise<BulkJobRow | undefined> {
    const { store } = this.#deps;
    const job = await store.get(jobId);
    const pending = job?.webhook;
    if (!job?.webhookUrl || pending?.state !== 'pending') return undefined;
    const now = this.#now();
    if (pending.nextAt !== null && pending.nextAt > now) {
      this.#arm(jobId, pending.nextAt - now);
      return undefined;
    }
    if (await store.replaceWebhook(jobId, pending, { ...pending, nextAt: now + WEBHOOK_LEASE_MS }))
      return job;
    // Another process changed it first: see what it did.
    this.#arm(jobId, 0);
    return undefined;
  }

  async #attempt(jobId: string): Promise<void> {
    const { store, logger } = this.#deps;
    const job = await this.#claim(jobId);
    if (!job?.webhookUrl || job.webhook?.state !== 'pending') return;
    const attempts = job.webhook.attempts + 1;
    let error: string | null = null;
    try {
      const status = await this.#deps.post(
        job.webhookUrl,
        JSON.stringify(await this.#deps.statusRecord(job)),
        {
          'content-type': 'application/json',
          'x-bulkjob-id': job.id,
          'x-bulkjob-status': job.state,
        },
      );
      if (status < 200 || status >= 300) error = `HTTP ${status}`;
    } catch (cause) {
      error = (cause as Error).message;
    }
    // The job may have been deleted while the request was in flight.
    if (!(await store.get(jobId))) return;
    if (error === null) {
      await store.update(jobId, { webhook: { state: 'delivered', attempts, nextAt: null, lastError: null } });
      logger.info({ jobId, attempts }, 'bulk webhook delivered');
      return;
    }
    if (attempts >= this.maxTries) {
      await store.update(jobId, { webhook: { state: 'failed', attempts, nextAt: null, lastError: error } });
      logger.warn({ jobId, attempts, error }, 'bulk webhook given up');
      return;
    }
    const delay = this.#delays[attempts - 1];
    await store.update(jobId, {
      webhook: { state: 'pending', attempts, nextAt: this.#now() + delay, lastError: error },
    });
    logger.info({ jobId, attempts, error, retryInMs: delay }, 'bulk webhook failed; will retry');
    this.#arm(jobId, delay);
  }
}

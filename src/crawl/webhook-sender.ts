/**
 * Delivers `notifyWebhook` notifications from the persisted outbox: POST of the job record
 * (JSON) with `X-Crawl-Name` and `X-Crawl-Status`. Requests and retries are those of bulk
 * enhance webhooks (docs/api.md#job-webhook: "same retry policy"): through the SSRF-safe fetcher,
 * no redirect followed, a network error or a non-2xx answer retried with exponential backoff (6
 * tries over about ten minutes), then given up (logged). Delivery never blocks a job, and a pending
 * delivery survives a restart.
 */
import { DEFAULT_WEBHOOK_DELAYS_MS, type WebhookPost } from '../bulk/index.ts';
import type { Logger } from '../logging.ts';
import type { CrawlJobStore, CrawlWebhook } from '../storage/index.ts';

/** How webhook deliveries are retried. */
export interface WebhookRetry {
  /** Wait before try 2, 3, …, ms; the number of tries is one more than its length. */
  readonly delaysMs: readonly number[];
}

/** Bulk enhance's schedule: 6 tries, the waits tripling from 5 s. */
export const DEFAULT_WEBHOOK_RETRY: WebhookRetry = Object.freeze({ delaysMs: DEFAULT_WEBHOOK_DELAYS_MS });

export interface WebhookSenderDeps {
  readonly store: CrawlJobStore;
  /** Sends one request (bulk's `createWebhookPost` over the SSRF-safe fetcher). */
  readonly post: WebhookPost;
  readonly logger: Logger;
  readonly retry?: Partial<WebhookRetry>;
  readonly now?: () => number;
}

/** Sends due webhooks; `poke()` after queueing one, `stop()` before closing the store. */
export class WebhookSender {
  readonly #deps: WebhookSenderDeps;
  readonly #retry: WebhookRetry;
  readonly #now: () => number;
  /** Deliveries in flight, by job id. */
  readonly #sending = new Map<number, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  /** Deliveries that succeeded (for tests and metrics). */
  delivered = 0;
  #looking = false;
  #lookAgain = false;

  constructor(deps: WebhookSenderDeps) {
    this.#deps = deps;
    this.#retry = { ...DEFAULT_WEBHOOK_RETRY, ...deps.retry };
    this.#now = deps.now ?? Date.now;
  }

  start(): void {
    this.#running = true;
    this.poke();
  }

  /** Waits for deliveries in progress; sends nothing more. */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await Promise.allSettled([...this.#sending.values()]);
  }

  /** Sends what is due now and arms a timer for the next due delivery. */
  poke(): void {
    if (!this.#running) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    // One look at the outbox at a time: a second one could read a delivery the first has
    // meanwhile sent and removed.
    if (this.#looking) {
      this.#lookAgain = true;
      return;
    }
    this.#looking = true;
    this.#sendDue()
      .catch((error: unknown) => {
        this.#deps.logger.error({ err: error }, 'crawl: reading the webhook outbox failed');
        // Looked at again a little later.
        if (this.#running && !this.#timer) this.#timer = setTimeout(() => this.poke(), 1_000);
      })
      .finally(() => {
        this.#looking = false;
        if (this.#lookAgain) {
          this.#lookAgain = false;
          this.poke();
        }
      });
  }

  async #sendDue(): Promise<void> {
    const now = this.#now();
    for (const webhook of await this.#deps.store.dueWebhooks(now, 50)) {
      // One delivery per job at a time: a newer notification waits for the one in flight.
      if (this.#sending.has(webhook.jobId)) continue;
      const delivery = this.#deliver(webhook).finally(() => {
        this.#sending.delete(webhook.jobId);
        this.poke();
      });
      this.#sending.set(webhook.jobId, delivery);
    }
    const next = await this.#deps.store.nextWebhookAt();
    if (!this.#running) return;
    if (next !== undefined && next > now) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.poke(), Math.min(next - now, 2_147_000_000));
    }
  }

  async #deliver(webhook: CrawlWebhook): Promise<void> {
    let failure: string | undefined;
    try {
      const status = await this.#deps.post(webhook.url, webhook.payload, {
        'Content-Type': 'application/json',
        ...webhook.headers,
      });
      if (status < 200 || status > 299) failure = `HTTP ${status}`;
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    if (failure === undefined) {
      await this.#deps.store.webhookDelivered(webhook.id);
      this.delivered++;
      return;
    }
    const tries = webhook.attempts + 1;
    const delays = this.#retry.delaysMs;
    if (tries > delays.length) {
      this.#deps.logger.warn({ url: webhook.url, tries, error: failure }, 'crawl: webhook given up');
      await this.#deps.store.webhookFailed(webhook.id, failure, undefined);
      return;
    }
    const next = this.#now() + delays[tries - 1];
    this.#deps.logger.info({ url: webhook.url, tries, error: failure }, 'crawl: webhook failed, will retry');
    await this.#deps.store.webhookFailed(webhook.id, failure, next);
  }
}

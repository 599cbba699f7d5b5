/**
 * Delivers `notifyWebhook` notifications from the persisted outbox: POST of the job record
 * (JSON) with `X-Crawl-Name` and `X-Crawl-Status`, through the SSRF-safe fetcher. A network
 * error or a non-2xx answer is retried with exponential backoff — 6 tries over about five
 * minutes by default (DECISIONS.md §3, §5) — then given up (logged). Delivery never blocks a
 * job, and a pending delivery survives a restart.
 */
import type { Logger } from '../logging.ts';
import type { CrawlJobStore, CrawlWebhook } from '../storage/index.ts';
import type { PageFetcher } from './dependencies.ts';

/** How webhook deliveries are retried. */
export interface WebhookRetry {
  /** Tries at most, the first included. */
  readonly maxTries: number;
  /** Wait after the first failure, ms; doubled after each further one. */
  readonly baseDelayMs: number;
  /** Time cap of one delivery, ms. */
  readonly timeoutMs: number;
}

/** 6 tries, 10 s apart doubling: the last one about 5 minutes after the first. */
export const DEFAULT_WEBHOOK_RETRY: WebhookRetry = Object.freeze({
  maxTries: 6,
  baseDelayMs: 10_000,
  timeoutMs: 10_000,
});

export interface WebhookSenderDeps {
  readonly store: CrawlJobStore;
  readonly fetcher: PageFetcher;
  readonly logger: Logger;
  readonly retry?: Partial<WebhookRetry>;
  readonly now?: () => number;
}

/** Sends due webhooks; `poke()` after queueing one, `stop()` before closing the store. */
export class WebhookSender {
  readonly #deps: WebhookSenderDeps;
  readonly #retry: WebhookRetry;
  readonly #now: () => number;
  readonly #sending = new Map<number, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  /** Deliveries that succeeded (for tests and metrics). */
  delivered = 0;

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
    const now = this.#now();
    for (const webhook of this.#deps.store.dueWebhooks(now, 50)) {
      if (this.#sending.has(webhook.id)) continue;
      const delivery = this.#deliver(webhook).finally(() => {
        this.#sending.delete(webhook.id);
        this.poke();
      });
      this.#sending.set(webhook.id, delivery);
    }
    const next = this.#deps.store.nextWebhookAt();
    if (next !== undefined && next > now) {
      this.#timer = setTimeout(() => this.poke(), Math.min(next - now, 2_147_000_000));
    }
  }

  async #deliver(webhook: CrawlWebhook): Promise<void> {
    let failure: string | undefined;
    try {
      const response = await this.#deps.fetcher.fetch(webhook.url, {
        method: 'POST',
        body: webhook.payload,
        headers: { 'Content-Type': 'application/json', ...webhook.headers },
        timeoutMs: this.#retry.timeoutMs,
      });
      if (response.status < 200 || response.status > 299) failure = `HTTP ${response.status}`;
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    if (failure === undefined) {
      this.#deps.store.webhookDelivered(webhook.id);
      this.delivered++;
      return;
    }
    const tries = webhook.attempts + 1;
    if (tries >= this.#retry.maxTries) {
      this.#deps.logger.warn({ url: webhook.url, tries, error: failure }, 'crawl: webhook given up');
      this.#deps.store.webhookFailed(webhook.id, failure, undefined);
      return;
    }
    const next = this.#now() + this.#retry.baseDelayMs * 2 ** (tries - 1);
    this.#deps.logger.info({ url: webhook.url, tries, error: failure }, 'crawl: webhook failed, will retry');
    this.#deps.store.webhookFailed(webhook.id, failure, next);
  }
}

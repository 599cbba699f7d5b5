import type { Fetcher } from '../extract/index.ts';
import type { WebhookPost } from './webhooks.ts';

/** Time allowed for one webhook request. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Webhook requests through the SSRF-safe fetcher (docs/api.md#outbound-requests): non-public
 * destinations are refused unless the operator allows private networks, at connection time too (DNS
 * rebinding). No redirects are followed — a redirect is not a delivery — and each request has a
 * time cap. A refusal or a network failure rejects with a `FetchError` (the sender retries it).
 */
export function createWebhookPost(fetcher: Fetcher, options: { timeoutMs?: number } = {}): WebhookPost {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  return async (url, body, headers) => {
    const answer = await fetcher.fetch(url, { method: 'POST', body, headers, maxRedirects: 0, timeoutMs });
    return answer.status;
  };
}

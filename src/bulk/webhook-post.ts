import type { WebhookPost } from './webhooks.ts';

/** Time allowed for one webhook request. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Webhook requests with the platform `fetch`: POST, no redirects followed (a redirect is not a
 * delivery), a time cap.
 */
export function createWebhookPost(options: { timeoutMs?: number } = {}): WebhookPost {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  return async (url, body, headers) => {
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return response.status;
  };
}

/**
 * Which failed fetches are retried and when (docs/api.md#fetching): network errors, timeouts, 429
 * and 5xx are transient and retried up to `maxRetries` times with exponential backoff; everything
 * else fails the page at once.
 */
import { isRetryableHttpStatus } from '../errors.ts';

/** How many times and how fast transient failures are retried. */
export interface RetryPolicy {
  /** Retries after the first try (docs/api.md#fetching: 3). */
  readonly maxRetries: number;
  /** Wait before the first retry, in ms; doubled for each further retry. */
  readonly baseDelayMs: number;
  /** Longest wait, in ms, whatever the backoff or a `Retry-After` header says. */
  readonly maxDelayMs: number;
}

/** One second, doubling (1 s, 2 s, 4 s): a page that keeps failing is given up within ~7 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxRetries: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
});

/** True for HTTP statuses worth retrying: 429 (Too Many Requests) and every 5xx. */
export const isTransientStatus = isRetryableHttpStatus;

/** Whether a page that has failed transiently `triesSoFar` times gets another try. */
export function shouldRetry(policy: RetryPolicy, triesSoFar: number): boolean {
  return triesSoFar <= policy.maxRetries;
}

/**
 * Seconds from a `Retry-After` header (RFC 9110 §10.2.3: delay-seconds or an HTTP date);
 * `undefined` when absent or unreadable.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before the next try after `triesSoFar` failed tries: `baseDelayMs · 2^(tries−1)`
 * plus up to 20 % jitter (so pages failing together do not retry in lockstep), at least what
 * the server asked in `Retry-After`, at most `maxDelayMs`.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  triesSoFar: number,
  options: { retryAfterMs?: number; random?: () => number } = {},
): number {
  const backoff = policy.baseDelayMs * 2 ** Math.max(0, triesSoFar - 1);
  const jittered = backoff * (1 + 0.2 * (options.random ?? Math.random)());
  return Math.min(policy.maxDelayMs, Math.max(jittered, options.retryAfterMs ?? 0));
}

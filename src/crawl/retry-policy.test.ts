import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_RETRY_POLICY,
  isTransientStatus,
  retryAfterMs,
  retryDelayMs,
  shouldRetry,
} from './retry-policy.ts';

test('429 and 5xx are transient; other statuses are not', () => {
  assert.deepEqual([200, 301, 404, 410, 429, 500, 503, 599].map(isTransientStatus), [
    false,
    false,
    false,
    false,
    true,
    true,
    true,
    true,
  ]);
});

test('three retries after the first try', () => {
  assert.deepEqual(
    [1, 2, 3, 4].map((tries) => shouldRetry(DEFAULT_RETRY_POLICY, tries)),
    [true, true, true, false],
  );
});

test('backoff doubles with bounded jitter, honours Retry-After, is capped', () => {
  const policy = { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 1_000 };
  assert.equal(retryDelayMs(policy, 1, { random: () => 0 }), 100);
  assert.equal(retryDelayMs(policy, 2, { random: () => 0 }), 200);
  assert.equal(retryDelayMs(policy, 3, { random: () => 1 }), 480);
  assert.equal(retryDelayMs(policy, 1, { random: () => 0, retryAfterMs: 700 }), 700);
  assert.equal(retryDelayMs(policy, 1, { random: () => 0, retryAfterMs: 60_000 }), 1_000);
  assert.equal(retryAfterMs('3', 0), 3_000);
  assert.equal(
    retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')),
    5_000,
  );
  assert.equal(retryAfterMs('soon', 0), undefined);
  assert.equal(retryAfterMs(undefined, 0), undefined);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CrawlCounterDeltas } from './crawl-counters.ts';
import type { CrawlPageOutcome } from './ports.ts';

/** An outcome of `jobId` with the counting fields given (the rest as a store receives them). */
function outcome(jobId: number, fields: Partial<CrawlPageOutcome>): CrawlPageOutcome {
  return {
    jobId,
    seq: 1,
    claim: 1,
    kind: 'done',
    crawlAttempts: 1,
    crawled: false,
    processAttempted: false,
    processed: false,
    objects: [],
    at: 0,
    ...fields,
  };
}

test('outcomes add to their own job: attempts, 2xx pages, extraction tries and successes, objects', () => {
  const deltas = new CrawlCounterDeltas();
  // A retry (one attempt, nothing else), a processed page with two objects, a page extraction
  // failed on, a robots.txt refusal (no attempt), and another job's page fetched but not processed.
  deltas.add(outcome(1, { kind: 'retry' }));
  deltas.add(outcome(1, { crawled: true, processAttempted: true, processed: true, objects: ['{}', '{}'] }));
  deltas.add(outcome(1, { crawled: true, processAttempted: true }));
  deltas.add(outcome(1, { crawlAttempts: 0, outcome: 'robots_disallowed' }));
  deltas.add(outcome(2, { crawled: true, outcome: 'not_processed' }));
  assert.deepEqual(
    [...deltas.entries()],
    [
      [1, { crawlAttempts: 3, crawlSuccesses: 2, processAttempts: 2, processSuccesses: 1, objects: 2 }],
      [2, { crawlAttempts: 1, crawlSuccesses: 1, processAttempts: 0, processSuccesses: 0, objects: 0 }],
    ],
  );
});

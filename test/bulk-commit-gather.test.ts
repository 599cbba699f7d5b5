/**
 * The bulk runner stores the answers of several batches of a job in one transaction (issue 30:
 * each commit makes the worker threads' read snapshots drop their page caches), and a job still
 * completes with one result per record, each stored and charged once. Real worker threads (the
 * outcome fixture worker), the real runner and service, a real SQLite store.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { BulkService } from '../src/bulk/index.ts';
import type { Storage } from '../src/storage/index.ts';
import { type OutcomeBulk, startOutcomeBulk } from './support/outcome-bulk.ts';

const BATCH = 4;
const RECORDS = 60;

describe('bulk runner: answered batches stored together', () => {
  let service: OutcomeBulk;
  let storage: Storage;
  let bulk: BulkService;
  let tokenId: string;
  let batchesRun = 0;
  let batchesAnswered = 0;
  /** Records per commit, as the runner reports them. */
  const commits: number[] = [];

  before(async () => {
    service = await startOutcomeBulk({
      credits: 1_000,
      batchSize: BATCH,
      threads: 2,
      tasksPerWorker: 2,
      capacity: 4,
      metrics: {
        bulkRecordsStored: (answered, failed) => commits.push(answered + failed),
        creditsCharged: () => {},
      },
      onRun: () => batchesRun++,
      onAnswer: () => batchesAnswered++,
    });
    ({ storage, bulk, tokenId } = service);
  });
  after(() => service.close());

  test('several batches go into one commit; every record stored once, in its place', async () => {
    const names = Array.from({ length: RECORDS }, (_, i) => `Org ${i}`);
    const body = JSON.stringify(names.map((name) => ({ type: 'Organization', name })));
    const submitted = await bulk.submit(tokenId, { name: 'gather' }, Readable.from([body]));
    await bulk.idle();
    const job = (await storage.bulkJobs.get(submitted.id))!;
    assert.equal(job.state, 'COMPLETE');
    assert.equal(job.completed, RECORDS);
    assert.equal(batchesRun, RECORDS / BATCH);
    // Batches come back while others are in flight: they wait for each other (or the timer).
    assert.ok(commits.length < batchesRun, `${commits.length} commits for ${batchesRun} batches`);
    assert.equal(
      commits.reduce((sum, n) => sum + n, 0),
      RECORDS,
    );
    const results = await storage.bulkJobs.results(job.id, 0, RECORDS + 1);
    assert.deepEqual(
      results.map((r) => JSON.parse(r.response).request_ctx.query as string),
      names,
    );
  });

  test('a stop stores the records answered so far, as yet unstored, and charges them', async () => {
    // Two batches answered at once; the third holds its thread (slow) while the job is stopped.
    const names = [...Array.from({ length: 2 * BATCH }, (_, i) => `Stopped ${i}`), 'slow', 'x', 'y', 'z'];
    const body = JSON.stringify(names.map((name) => ({ type: 'Organization', name })));
    const answeredBefore = batchesAnswered;
    const storedBefore = commits.reduce((sum, n) => sum + n, 0);
    const submitted = await bulk.submit(tokenId, { name: 'stopped' }, Readable.from([body]));
    while (batchesAnswered < answeredBefore + 2) await new Promise((resolve) => setTimeout(resolve, 1));
    const answer = await bulk.stop(tokenId, submitted.id);
    assert.equal(answer.status, 'STOPPED');
    await bulk.idle();
    const job = (await storage.bulkJobs.get(submitted.id))!;
    assert.equal(job.state, 'STOPPED');
    // The slow batch came back after the stop: discarded, as any batch in flight then.
    assert.equal(job.completed, 2 * BATCH);
    assert.equal(commits.reduce((sum, n) => sum + n, 0) - storedBefore, 2 * BATCH);
    const results = await storage.bulkJobs.results(job.id, 0, names.length + 1);
    assert.deepEqual(
      results.map((r) => r.index),
      Array.from({ length: 2 * BATCH }, (_, i) => i),
    );
  });
});

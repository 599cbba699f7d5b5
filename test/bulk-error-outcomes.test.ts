/**
 * The bulk runner acts on an error's registered outcome (`errors.ts`, issue 25 §7): a record
 * whose error fails the record fails at once with that error's message, a batch it was in splits
 * at once; an error to retry is tried again; an error that stops the job stops it. Real worker
 * threads (a fixture worker throwing real registered errors across the thread boundary), the real
 * runner and service, a real SQLite store.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { answerBatch } from '../src/bulk/answer-batch.ts';
import type { EnhanceBatch, EnhanceBatchResult } from '../src/bulk/enhance-batch.ts';
import type { BulkService } from '../src/bulk/index.ts';
import { createLogger } from '../src/logging.ts';
import type { Storage } from '../src/storage/index.ts';
import { WorkerPool } from '../src/threads/index.ts';
import { type OutcomeBatch, type OutcomeBulk, startOutcomeBulk } from './support/outcome-bulk.ts';

describe('bulk runner: errors acted on by their registered outcome', () => {
  let service: OutcomeBulk;
  let storage: Storage;
  let bulk: BulkService;
  let tokenId: string;
  /** Runs of the worker threads per record name (a batch run counts for each of its records). */
  const runs = new Map<string, number>();

  before(async () => {
    service = await startOutcomeBulk({
      credits: null,
      batchSize: 4,
      threads: 1,
      capacity: 1,
      onRun(batch) {
        for (const record of batch.records) {
          const { name } = JSON.parse(record.query) as { name: string };
          runs.set(name, (runs.get(name) ?? 0) + 1);
        }
      },
    });
    ({ storage, bulk, tokenId } = service);
  });
  after(() => service.close());

  async function submit(names: string[]) {
    const body = JSON.stringify(names.map((name) => ({ type: 'Organization', name })));
    const job = await bulk.submit(tokenId, { name: names.join('+') }, Readable.from([body]));
    await bulk.idle();
    return (await storage.bulkJobs.get(job.id))!;
  }

  test('fail-record fails its record at once with its message; retry is tried again', async () => {
    const job = await submit(['Acme', 'poison', 'flaky', 'Beta']);
    assert.equal(job.state, 'COMPLETE_WITH_FAILURES');
    assert.equal(job.failed, 1);
    const results = await Promise.all([0, 1, 2, 3].map((i) => storage.bulkJobs.result(job.id, i)));
    assert.deepEqual(
      results.map((r) => r?.failed),
      [false, true, false, false],
    );
    const poisoned = JSON.parse(results[1]!.response) as { errors: string[] };
    assert.deepEqual(poisoned.errors, ["Invalid parameter 'name': poison"]);
    // The batch ran once and split at once; the poisonous record ran once more, alone.
    assert.equal(runs.get('poison'), 2);
    assert.equal(runs.get('Acme'), 2);
    // flaky: in the batch (not reached), alone (unavailable), alone again (answered).
    assert.equal(runs.get('flaky'), 3);
  });

  test('the shared queue runner answers a batch by the same outcomes (answerBatch)', async () => {
    const pool = new WorkerPool<OutcomeBatch, EnhanceBatchResult>({
      size: 1,
      script: new URL('./fixtures/outcome-worker.ts', import.meta.url),
    });
    let calls = 0;
    const executor = {
      run(batch: OutcomeBatch) {
        calls++;
        return pool.run(batch);
      },
    };
    try {
      const records = ['Gamma', 'poison', 'flaky', 'revoked'].map((name, index) => ({
        index,
        query: JSON.stringify({ type: 'Organization', name }),
      }));
      const batch: EnhanceBatch = {
        jobId: 'bj_queue',
        options: { size: 1, refresh: false, search: 'OFF', nonCanonicalFacts: false },
        records,
      };
      const results = await answerBatch(executor, batch, createLogger({ level: 'silent' }));
      assert.deepEqual(
        results.map((r) => r.failed),
        [false, true, false, true],
      );
      assert.deepEqual(JSON.parse(results[1].response).errors, ["Invalid parameter 'name': poison"]);
      assert.deepEqual(JSON.parse(results[3].response).errors, ['Unauthorized. Incorrect token.']);
      // The batch once, then each record alone once, and flaky once more.
      assert.equal(calls, 6);
    } finally {
      await pool.close();
    }
  });

  test('stop-job stops the job', async () => {
    const job = await submit(['revoked']);
    assert.equal(job.state, 'STOPPED');
    assert.equal(runs.get('revoked'), 1, 'not tried again');
  });
});

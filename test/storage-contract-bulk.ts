/**
 * Storage contract for bulk enhance jobs (`BulkJobStore`): every adapter runs it through
 * `runBulkStorageContract(name, open)`, called from the adapter's test file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BulkResult, NewBulkJob } from '../src/storage/index.ts';
import type { OpenStorage } from './storage-contract.ts';
import type { Storage } from '../src/storage/index.ts';

function newJob(id: string, tokenId: string, submitTime = Date.now()): NewBulkJob {
  return { id, tokenId, name: `job ${id}`, options: { size: 1 }, webhookUrl: null, submitTime };
}

function result(index: number, hits = 1, failed = false): BulkResult {
  return {
    index,
    hits,
    failed,
    response: JSON.stringify({ index, hits, note: 'résumé ✓' }),
    searchInfo: '{"x":1}',
  };
}

export function runBulkStorageContract(adapter: string, open: OpenStorage): void {
  describe(`storage contract: ${adapter}: bulk jobs`, () => {
    let storage: Storage;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ storage, cleanup } = await open());
    });
    after(async () => cleanup());

    test('a job being submitted is invisible until published', async () => {
      const jobs = storage.bulkJobs;
      const created = await jobs.create(newJob('bj_a', 'tok_1', 1000));
      assert.equal(created.state, 'SUBMITTING');
      assert.equal(created.total, 0);
      await jobs.appendRecords('bj_a', 0, ['{"n":0}', '{"n":1}']);
      await jobs.appendRecords('bj_a', 2, ['{"n":2}']);
      assert.equal(await jobs.get('bj_a'), undefined);
      assert.deepEqual(await jobs.listForToken('tok_1'), []);
      assert.equal((await jobs.listByState(['SUBMITTING'])).length, 1);
      const published = await jobs.publish('bj_a', 3);
      assert.equal(published.state, 'NOT_STARTED');
      assert.equal(published.total, 3);
      assert.deepEqual((await jobs.get('bj_a'))?.options, { size: 1 });
      await assert.rejects(async () => jobs.publish('bj_a', 3), 'publishing twice is an error');
    });

    test('pending records are those without a result, in order', async () => {
      const jobs = storage.bulkJobs;
      assert.deepEqual(
        (await jobs.pendingRecords('bj_a', 0, 10)).map((r) => [r.index, r.query]),
        [
          [0, '{"n":0}'],
          [1, '{"n":1}'],
          [2, '{"n":2}'],
        ],
      );
      await jobs.saveResults('bj_a', [result(1, 2)]);
      assert.deepEqual(
        (await jobs.pendingRecords('bj_a', 0, 10)).map((r) => r.index),
        [0, 2],
      );
      assert.deepEqual(
        (await jobs.pendingRecords('bj_a', 1, 1)).map((r) => r.index),
        [2],
      );
      assert.deepEqual(await jobs.pendingRecords('bj_missing', 0, 10), []);
    });

    test('results add to the counters and can be read back singly and in order', async () => {
      const jobs = storage.bulkJobs;
      await jobs.saveResults('bj_a', [result(0, 0), result(2, 1, true)]);
      const job = (await jobs.get('bj_a'))!;
      assert.equal(job.completed, 3);
      assert.equal(job.failed, 1);
      assert.equal(job.hits, 3);
      // JSON Lines bytes of the full responses: `{...,"searchInfo":{...}}` and a newline each.
      let bytes = 0;
      for (const i of [0, 1, 2]) {
        const { response, searchInfo } = (await jobs.result('bj_a', i))!;
        bytes += Buffer.byteLength(`${response.slice(0, -1)},"searchInfo":${searchInfo}}\n`);
      }
      assert.equal(job.resultBytes, bytes);
      assert.equal((await jobs.result('bj_a', 2))?.failed, true);
      assert.equal(JSON.parse((await jobs.result('bj_a', 1))!.response).note, 'résumé ✓');
      assert.equal((await jobs.result('bj_a', 1))!.searchInfo, '{"x":1}');
      assert.equal(await jobs.result('bj_a', 3), undefined);
      assert.equal(await jobs.result('bj_a', -1), undefined);
      assert.deepEqual(
        (await jobs.results('bj_a', 0, 10)).map((r) => [r.index, r.hits]),
        [
          [0, 0],
          [1, 2],
          [2, 1],
        ],
      );
      assert.deepEqual(
        (await jobs.results('bj_a', 1, 1)).map((r) => r.index),
        [1],
      );
      assert.deepEqual(await jobs.pendingRecords('bj_a', 0, 10), []);
      const lean = await jobs.results('bj_a', 0, 10, { searchInfo: false });
      assert.deepEqual(
        lean.map((r) => [r.index, r.searchInfo, r.response]),
        (await jobs.results('bj_a', 0, 10)).map((r) => [r.index, '', r.response]),
      );
    });

    test('results read with summary: the summary where one was stored, else the response', async () => {
      const jobs = storage.bulkJobs;
      await jobs.create(newJob('bj_sum', 'tok_1'));
      await jobs.appendRecords('bj_sum', 0, ['{}', '{}', '{}']);
      await jobs.publish('bj_sum', 3);
      // A JSON summary and a compact one (fields joined by U+001F): kept as they are, opaque.
      const summary = (index: number) =>
        index === 0
          ? JSON.stringify({ data: [{ entity: { id: `E-${index}` } }], é: '✓' })
          : ['s1', 'o', '0', '1', 'e', '1', '0', `E-${index}`, 'Zoë', 'Person'].join('\u001f');
      const saved = [result(0), result(1), result(2, 0, true)];
      await jobs.saveResults('bj_sum', [
        { ...saved[0], summary: summary(0) },
        saved[1],
        { ...saved[2], summary: summary(2) },
      ]);
      assert.deepEqual(
        (await jobs.results('bj_sum', 0, 10, { summary: true })).map((r) => [
          r.index,
          r.hits,
          r.failed,
          r.response,
          r.searchInfo,
          r.summary,
        ]),
        [
          [0, 1, false, '', '', summary(0)],
          [1, 1, false, saved[1].response, '', undefined],
          [2, 0, true, '', '', summary(2)],
        ],
      );
      assert.deepEqual(
        (await jobs.results('bj_sum', 2, 1, { summary: true })).map((r) => r.index),
        [2],
      );
      // Other reads are as they were: the whole response, no summary.
      assert.deepEqual(await jobs.result('bj_sum', 0), saved[0]);
      assert.deepEqual(
        (await jobs.results('bj_sum', 0, 10)).map((r) => [r.response, r.summary]),
        saved.map((r) => [r.response, undefined]),
      );
      while (!(await jobs.purge('bj_sum', 2)));
      assert.deepEqual(await jobs.results('bj_sum', 0, 10, { summary: true }), []);
    });

    test('a second result for a record throws and, in a transaction, keeps nothing of the call', async () => {
      const jobs = storage.bulkJobs;
      await jobs.create(newJob('bj_dup', 'tok_1'));
      await jobs.appendRecords('bj_dup', 0, ['{}', '{}']);
      await jobs.publish('bj_dup', 2);
      await jobs.saveResults('bj_dup', [result(0)]);
      await assert.rejects(() =>
        storage.transaction((tx) => tx.bulkJobs.saveResults('bj_dup', [result(1), result(0)])),
      );
      assert.equal(await jobs.result('bj_dup', 1), undefined);
      assert.equal((await jobs.get('bj_dup'))?.completed, 1);
    });

    test('a conditional update changes a job only in the given states', async () => {
      const jobs = storage.bulkJobs;
      await jobs.create(newJob('bj_if', 'tok_if'));
      await jobs.publish('bj_if', 0);
      assert.equal(await jobs.update('bj_if', { state: 'IN_PROCESS' }, ['IN_PROCESS']), undefined);
      assert.equal((await jobs.get('bj_if'))?.state, 'NOT_STARTED');
      assert.equal(
        (await jobs.update('bj_if', { state: 'IN_PROCESS' }, ['NOT_STARTED']))?.state,
        'IN_PROCESS',
      );
      await jobs.update('bj_if', { state: 'DELETING' });
      assert.equal(
        await jobs.update('bj_if', { state: 'COMPLETE' }, ['NOT_STARTED', 'IN_PROCESS']),
        undefined,
      );
      assert.deepEqual(
        (await jobs.listByState(['DELETING'])).map((j) => j.id),
        ['bj_if'],
      );
      assert.equal(await jobs.purge('bj_if', 10), true);
    });

    test('jobs are listed per token, newest first, and by state', async () => {
      const jobs = storage.bulkJobs;
      await jobs.create(newJob('bj_b', 'tok_2'));
      await jobs.publish('bj_b', 0);
      await jobs.create(newJob('bj_c', 'tok_1'));
      await jobs.publish('bj_c', 0);
      assert.deepEqual(
        (await jobs.listForToken('tok_1')).map((j) => j.id),
        ['bj_c', 'bj_dup', 'bj_a'],
      );
      assert.deepEqual(
        (await jobs.listForToken('tok_2')).map((j) => j.id),
        ['bj_b'],
      );
      assert.deepEqual(
        (await jobs.listByState(['NOT_STARTED'])).map((j) => j.id),
        ['bj_a', 'bj_dup', 'bj_b', 'bj_c'],
      );
    });

    test('update changes only the given fields and round-trips the webhook state', async () => {
      const jobs = storage.bulkJobs;
      const updated = (await jobs.update('bj_b', {
        state: 'COMPLETE',
        completedTime: 5000,
        estimateSec: null,
        webhook: { state: 'pending', attempts: 1, nextAt: 6000, lastError: 'HTTP 500' },
      }))!;
      assert.equal(updated.state, 'COMPLETE');
      assert.equal(updated.completedTime, 5000);
      assert.equal(updated.name, 'job bj_b');
      assert.deepEqual(updated.webhook, {
        state: 'pending',
        attempts: 1,
        nextAt: 6000,
        lastError: 'HTTP 500',
      });
      assert.equal((await jobs.update('bj_b', {}))?.state, 'COMPLETE');
      assert.equal(await jobs.update('bj_nope', { state: 'STOPPED' }), undefined);
      assert.deepEqual(
        (await jobs.listFinishedBefore(6000, 10)).map((j) => j.id),
        ['bj_b'],
      );
      assert.deepEqual(await jobs.listFinishedBefore(5000, 10), []);
    });

    test('replaceWebhook changes the webhook state only while it is the one expected', async () => {
      const jobs = storage.bulkJobs;
      const pending = (await jobs.get('bj_b'))!.webhook!;
      const claimed = { ...pending, nextAt: 66_000 };
      // Two processes read the same state and claim it at once: one wins.
      const won = await Promise.all([
        jobs.replaceWebhook('bj_b', pending, claimed),
        jobs.replaceWebhook('bj_b', pending, { ...pending, nextAt: 77_000 }),
      ]);
      assert.deepEqual(won.filter(Boolean).length, 1, `exactly one claim wins: ${won}`);
      const now = (await jobs.get('bj_b'))!.webhook!;
      assert.equal(now.nextAt, won[0] ? 66_000 : 77_000);
      assert.equal(await jobs.replaceWebhook('bj_b', pending, claimed), false);
      assert.equal(await jobs.replaceWebhook('bj_nope', pending, claimed), false);
      const delivered = { state: 'delivered' as const, attempts: 2, nextAt: null, lastError: null };
      assert.equal(await jobs.replaceWebhook('bj_b', now, delivered), true);
      assert.deepEqual((await jobs.get('bj_b'))!.webhook, delivered);
    });

    test('reports: one per job and key, listed in creation order, patched', async () => {
      const jobs = storage.bulkJobs;
      const base = {
        jobId: 'bj_a',
        format: 'csv',
        spec: 'name',
        exportFile: '',
        separator: ';',
        filter: '',
        status: 'IN_PROCESS' as const,
        exportStatus: 'NOT_STARTED' as const,
      };
      await jobs.addReport({ ...base, id: 'rp_1', key: 'k1', createdAt: 1 });
      await jobs.addReport({ ...base, id: 'rp_2', key: 'k2', createdAt: 2 });
      // A second report of a key (added concurrently elsewhere) is the first one: nothing is added.
      const same = await jobs.addReport({ ...base, id: 'rp_3', key: 'k1', createdAt: 3 });
      assert.equal(same.id, 'rp_1');
      assert.deepEqual(
        (await jobs.reports('bj_a')).map((r) => r.id),
        ['rp_1', 'rp_2'],
      );
      assert.equal((await jobs.reportByKey('bj_a', 'k2'))?.id, 'rp_2');
      assert.equal((await jobs.report('bj_a', 'rp_1'))?.spec, 'name');
      assert.equal(await jobs.report('bj_b', 'rp_1'), undefined, 'a report belongs to its job');
      const patched = (await jobs.updateReport('rp_1', {
        status: 'COMPLETE',
        exportStatus: 'COMPLETE',
        exportBytes: 42,
      }))!;
      assert.equal(patched.status, 'COMPLETE');
      assert.equal(patched.exportBytes, 42);
      assert.equal(patched.error, null);
    });

    test('purge deletes a job in steps, then the job and its reports; it is idempotent', async () => {
      const jobs = storage.bulkJobs;
      await jobs.update('bj_a', { state: 'DELETING' });
      assert.equal(await jobs.get('bj_a'), undefined, 'a job being deleted is invisible');
      assert.equal(await jobs.purge('bj_a', 2), false);
      let rounds = 1;
      while (!(await jobs.purge('bj_a', 2))) rounds++;
      assert.ok(rounds >= 2);
      assert.equal(await jobs.result('bj_a', 0), undefined);
      assert.deepEqual(await jobs.reports('bj_a'), []);
      assert.deepEqual(await jobs.listByState(['DELETING']), []);
      assert.equal(await jobs.purge('bj_a', 2), true);
      assert.equal((await jobs.get('bj_dup'))?.completed, 1, 'other jobs are untouched');
    });

    test("the pages refresh and search read add to the job's counts with the results, exactly once", async () => {
      const jobs = storage.bulkJobs;
      await jobs.create(newJob('bj_pages', 'tok_pages'));
      await jobs.appendRecords('bj_pages', 0, ['{}', '{}', '{}']);
      assert.deepEqual((await jobs.publish('bj_pages', 3)).pages, { fetched: 0, failed: 0, fresh: 0 });
      await jobs.saveResults('bj_pages', [
        { ...result(0), pages: { fetched: 3, failed: 1, fresh: 0 }, premium: 1 },
        { ...result(1), pages: { fetched: 0, failed: 0, fresh: 2 } },
      ]);
      await assert.rejects(() =>
        storage.transaction((tx) =>
          tx.bulkJobs.saveResults('bj_pages', [
            { ...result(2), pages: { fetched: 9, failed: 9, fresh: 9 } },
            result(0),
          ]),
        ),
      );
      assert.deepEqual((await jobs.get('bj_pages'))?.pages, { fetched: 3, failed: 1, fresh: 2 });
      await jobs.saveResults('bj_pages', [{ ...result(2), pages: { fetched: 1, failed: 0, fresh: 1 } }]);
      assert.deepEqual((await jobs.get('bj_pages'))?.pages, { fetched: 4, failed: 1, fresh: 3 });
      assert.equal(
        (await jobs.result('bj_pages', 0))?.pages,
        undefined,
        'counts are not stored with a result',
      );
    });
  });
}

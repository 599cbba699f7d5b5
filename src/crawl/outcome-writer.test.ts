import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { tempDir } from '../../test/support/temp-dir.ts';
import { createLogger } from '../logging.ts';
import type { ClaimedUrl, Storage } from '../storage/index.ts';
import { openSqliteStorage } from '../storage/sqlite/index.ts';
import { ThreadOutcomeSink } from './outcome-thread.ts';
import { type OutcomeSink, OutcomeWriter, type PendingOutcome, StoreOutcomeSink } from './outcome-writer.ts';

const logger = createLogger({ level: 'silent' });
let dir: { path: string; remove(): void };
let file: string;
let storage: Storage;
let jobId: number;

before(async () => {
  dir = tempDir();
  file = path.join(dir.path, 'quarry.sqlite');
  storage = openSqliteStorage(file);
  jobId = (await storage.crawlJobs.createJob({
    tokenId: 't',
    name: 'w',
    settings: {} as never,
    status: 7,
    resumeStatus: null,
    now: 1,
    urls: Array.from({ length: 30 }, (_, i) => ({ url: `https://w.example/${i}`, host: 'w.example' })),
  }))!.id;
});
after(() => {
  storage.close();
  dir.remove();
});

function outcome(url: ClaimedUrl, claim = url.claim): PendingOutcome {
  return {
    hostId: url.hostId,
    outcome: {
      jobId: url.jobId,
      seq: url.seq,
      claim,
      kind: 'done',
      crawlAttempts: 1,
      crawled: true,
      processAttempted: true,
      processed: true,
      objects: [JSON.stringify({ type: 'article', pageUrl: url.url })],
      outcome: 'processed',
      httpStatus: 200,
      at: 2,
    },
  };
}

test('batches outcomes into transactions of at most flushBatch; drain waits for all of them', async () => {
  const batches: number[] = [];
  const writer = new OutcomeWriter({
    sink: new StoreOutcomeSink({ storage, logger }),
    logger,
    flushIntervalMs: 5,
    flushBatch: 4,
    onWritten: (written, applied) => {
      batches.push(written.length);
      assert.ok(applied.every(Boolean));
    },
  });
  const claimed = await storage.crawlJobs.claim(jobId, 0, 10, 10, 1);
  for (const url of claimed) writer.add(outcome(url));
  assert.equal(writer.hasPendingFor(jobId), true);
  await writer.drain();
  assert.equal(writer.pending, 0);
  assert.equal(writer.hasPendingFor(jobId), false);
  assert.deepEqual(batches, [4, 4, 2]);
  assert.equal((await storage.crawlJobs.getJob(jobId))?.counters.objectsFound, 10);
  await writer.close();
});

test('a failed write is retried whole, and a stale claim is reported as not applied', async () => {
  const real = new StoreOutcomeSink({ storage, logger });
  let calls = 0;
  const flaky: OutcomeSink = {
    apply: (batch) => (++calls === 1 ? Promise.reject(new Error('disk full')) : real.apply(batch)),
    close: () => real.close(),
  };
  const results: boolean[] = [];
  const writer = new OutcomeWriter({
    sink: flaky,
    logger,
    flushIntervalMs: 5,
    flushBatch: 10,
    onWritten: (_written, applied) => results.push(...applied),
  });
  const [a, b] = await storage.crawlJobs.claim(jobId, 0, 10, 2, 2);
  writer.add(outcome(a));
  writer.add(outcome(b, 999));
  await writer.drain();
  assert.equal(calls, 2);
  assert.deepEqual(results, [true, false]);
  assert.equal((await storage.crawlJobs.getJob(jobId))?.counters.objectsFound, 11);
  await writer.close();
});

test('the writer thread applies batches in its own connection, visible to this one', async () => {
  const sink = new ThreadOutcomeSink({ store: { adapter: 'sqlite', file }, logLevel: 'silent', logger });
  try {
    const claimed = await storage.crawlJobs.claim(jobId, 0, 10, 3, 3);
    const applied = await sink.apply([...claimed.map((url) => outcome(url)), outcome(claimed[0])]);
    assert.deepEqual(applied, [true, true, true, false]);
    assert.equal((await storage.crawlJobs.getJob(jobId))?.counters.objectsFound, 14);
    assert.equal((await storage.crawlJobs.listUrls(jobId, claimed[2].seq - 1, 1))[0].state, 'done');
  } finally {
    await sink.close();
  }
  await assert.rejects(sink.apply([]), /closed/);
});

/**
 * The storage contract of `CrawlJobStore` (bulk extract jobs): every adapter runs it through
 * `runCrawlStorageContract(name, open)`, called from the adapter's test file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type {
  ClaimedUrl,
  CrawlJobSettings,
  CrawlPageOutcome,
  Storage,
  StoredCrawlJob,
} from '../src/storage/index.ts';
import { CRAWL_WEBHOOK_LEASE_MS } from '../src/storage/index.ts';
import type { OpenStorage } from './storage-contract.ts';
import type { StoragePair } from './support/store-adapters.ts';

type OpenPair = () => Promise<StoragePair>;

const SETTINGS: CrawlJobSettings = {
  apiUrl: '/v3/article',
  api: 'article',
  customHeaders: { 'X-Test': 'yes' },
  notifyWebhook: '',
  notifyEmail: '',
  obeyRobots: true,
  repeat: 0,
  maxRounds: 0,
  pageProcessPattern: '',
  crawlDelay: 0.25,
  kgIngest: false,
  publicBaseUrl: 'http://localhost:8080',
};

function done(url: ClaimedUrl, patch: Partial<CrawlPageOutcome> = {}): CrawlPageOutcome {
  return {
    jobId: url.jobId,
    seq: url.seq,
    claim: url.claim,
    kind: 'done',
    crawlAttempts: 1,
    crawled: true,
    processAttempted: true,
    processed: true,
    objects: [JSON.stringify({ type: 'article', pageUrl: url.url })],
    outcome: 'processed',
    httpStatus: 200,
    at: 1_000,
    ...patch,
  };
}

export function runCrawlStorageContract(adapter: string, open: OpenStorage, openPair: OpenPair): void {
  describe(`storage contract (bulk extract jobs): ${adapter}`, () => {
    let storage: Storage;
    let cleanup: () => Promise<void>;
    let job: StoredCrawlJob;
    before(async () => {
      ({ storage, cleanup } = await open());
      job = (await storage.crawlJobs.createJob({
        tokenId: 'tok_1',
        name: 'news',
        settings: SETTINGS,
        status: 0,
        resumeStatus: null,
        now: 500,
        urls: [
          { url: 'https://a.example/1', host: 'a.example' },
          { url: 'https://b.example/1', host: 'b.example' },
          { url: 'not a url', invalid: 'not an absolute http(s) URL' },
          { url: 'https://a.example/2', host: 'a.example' },
        ],
      }))!;
    });
    after(async () => cleanup());

    test('creates a job with its settings, hosts and URLs; names are unique per token', async () => {
      assert.equal(job.name, 'news');
      assert.equal(job.status, 0);
      assert.equal(job.urlCount, 3);
      assert.equal(job.createdAt, 500);
      assert.deepEqual(job.settings, SETTINGS);
      assert.deepEqual(job.counters, {
        pageCrawlAttempts: 0,
        pageCrawlSuccesses: 0,
        pageCrawlSuccessesThisRound: 0,
        pageProcessAttempts: 0,
        pageProcessSuccesses: 0,
        pageProcessSuccessesThisRound: 0,
        objectsFound: 0,
        roundsCompleted: 0,
      });
      assert.deepEqual(
        (await storage.crawlJobs.hosts(job.id)).map((h) => h.host),
        ['a.example', 'b.example'],
      );
      const again = await storage.crawlJobs.createJob({
        tokenId: 'tok_1',
        name: 'news',
        settings: SETTINGS,
        status: 0,
        resumeStatus: null,
        now: 600,
        urls: [{ url: 'https://c.example/', host: 'c.example' }],
      });
      assert.equal(again, undefined);
      const other = await storage.crawlJobs.createJob({
        tokenId: 'tok_2',
        name: 'news',
        settings: SETTINGS,
        status: 7,
        resumeStatus: null,
        now: 700,
        urls: [{ url: 'https://c.example/', host: 'c.example' }],
      });
      assert.ok(other);
      assert.notEqual(other.id, job.id);
      assert.equal((await storage.crawlJobs.findJob('tok_2', 'news'))?.id, other.id);
      assert.deepEqual(
        (await storage.crawlJobs.listJobs('tok_1')).map((j) => j.id),
        [job.id],
      );
      assert.equal(await storage.crawlJobs.findJob('tok_3', 'news'), undefined);
      assert.deepEqual(
        (await storage.crawlJobs.jobsWithStatus([7])).map((j) => j.id),
        [other.id],
      );
    });

    test('an invalid URL is reported as done at once and never claimed', async () => {
      const lines = await storage.crawlJobs.listUrls(job.id, -1, 10);
      assert.equal(lines.length, 4);
      assert.deepEqual(
        lines.map((l) => [l.seq, l.state, l.outcome]),
        [
          [0, 'pending', null],
          [1, 'pending', null],
          [2, 'done', 'invalid_url'],
          [3, 'pending', null],
        ],
      );
      assert.equal(lines[2].error, 'not an absolute http(s) URL');
      assert.equal(await storage.crawlJobs.unfinishedCount(job.id), 3);
    });

    test('claims per host in submitted order, only once, and releases while the claim holds', async () => {
      const [hostA] = await storage.crawlJobs.hosts(job.id);
      const first = await storage.crawlJobs.claim(job.id, hostA.hostId, 1_000, 1, 11);
      assert.deepEqual(
        first.map((u) => [u.seq, u.url, u.claim]),
        [[0, 'https://a.example/1', 11]],
      );
      const second = await storage.crawlJobs.claim(job.id, hostA.hostId, 1_000, 10, 12);
      assert.deepEqual(
        second.map((u) => u.seq),
        [3],
      );
      assert.equal((await storage.crawlJobs.claim(job.id, hostA.hostId, 1_000, 10, 13)).length, 0);
      assert.equal((await storage.crawlJobs.listUrls(job.id, -1, 1))[0].state, 'in_progress');
      // A release with a stale claim id changes nothing.
      await storage.crawlJobs.release([{ ...first[0], claim: 99 }]);
      assert.equal((await storage.crawlJobs.claim(job.id, hostA.hostId, 1_000, 10, 14)).length, 0);
      await storage.crawlJobs.release([...first, ...second]);
      const third = await storage.crawlJobs.claim(job.id, hostA.hostId, 1_000, 10, 15);
      assert.equal(third.length, 2);
      await storage.crawlJobs.release(third);
      assert.equal((await storage.crawlJobs.listUrls(job.id, -1, 1))[0].state, 'pending');
    });

    test('claims left at a crash go back to pending, each counted as a crawl attempt', async () => {
      const crashed = (await storage.crawlJobs.createJob({
        tokenId: 'tok_9',
        name: 'crashed',
        settings: SETTINGS,
        status: 7,
        resumeStatus: null,
        now: 900,
        urls: [
          { url: 'https://e.example/1', host: 'e.example' },
          { url: 'https://e.example/2', host: 'e.example' },
          { url: 'https://e.example/3', host: 'e.example' },
        ],
      }))!;
      const [host] = await storage.crawlJobs.hosts(crashed.id);
      assert.equal((await storage.crawlJobs.claim(crashed.id, host.hostId, 1_000, 2, 31)).length, 2);
      assert.equal(await storage.crawlJobs.recoverClaims(), 2);
      const lines = await storage.crawlJobs.listUrls(crashed.id, -1, 10);
      assert.deepEqual(
        lines.map((line) => [line.state, line.attempts]),
        [
          ['pending', 1],
          ['pending', 1],
          ['pending', 0],
        ],
      );
      assert.equal((await storage.crawlJobs.getJob(crashed.id))?.counters.pageCrawlAttempts, 2);
      assert.equal((await storage.crawlJobs.getJob(job.id))?.counters.pageCrawlAttempts, 0);
      assert.equal(await storage.crawlJobs.recoverClaims(), 0);
      await storage.crawlJobs.deleteJob(crashed.id);
    });

    test('records outcomes with their counters and objects, once per claim', async () => {
      const [hostA, hostB] = await storage.crawlJobs.hosts(job.id);
      const [a1, a2] = await storage.crawlJobs.claim(job.id, hostA.hostId, 1_000, 10, 21);
      const [b1] = await storage.crawlJobs.claim(job.id, hostB.hostId, 1_000, 10, 22);
      const retry: CrawlPageOutcome = {
        ...done(b1),
        kind: 'retry',
        crawled: false,
        processAttempted: false,
        processed: false,
        objects: [],
        outcome: undefined,
        httpStatus: 503,
        error: 'Service Unavailable',
        notBefore: 5_000,
      };
      const applied = await storage.crawlJobs.recordOutcomes([
        done(a1),
        {
          ...done(a2),
          outcome: 'fetch_failed',
          crawled: false,
          processAttempted: false,
          processed: false,
          objects: [],
          httpStatus: 404,
        },
        retry,
        { ...done(a1), claim: 999 },
      ]);
      assert.deepEqual(applied, [true, true, true, false]);
      // Applying the same outcome twice counts it once.
      assert.deepEqual(await storage.crawlJobs.recordOutcomes([done(a1)]), [false]);
      const counters = (await storage.crawlJobs.getJob(job.id))!.counters;
      assert.equal(counters.pageCrawlAttempts, 3);
      assert.equal(counters.pageCrawlSuccesses, 1);
      assert.equal(counters.pageCrawlSuccessesThisRound, 1);
      assert.equal(counters.pageProcessAttempts, 1);
      assert.equal(counters.pageProcessSuccesses, 1);
      assert.equal(counters.objectsFound, 1);
      const objects = await storage.crawlJobs.listObjects(job.id, 0, 10);
      assert.equal(objects.length, 1);
      assert.deepEqual(JSON.parse(objects[0].doc), { type: 'article', pageUrl: 'https://a.example/1' });
      assert.equal((await storage.crawlJobs.listObjects(job.id, objects[0].id, 10)).length, 0);
      // The retried URL waits until its notBefore, then is claimable with its attempts.
      assert.equal((await storage.crawlJobs.claim(job.id, hostB.hostId, 4_999, 10, 23)).length, 0);
      assert.equal(await storage.crawlJobs.nextPendingAt(job.id, hostB.hostId), 5_000);
      assert.equal(await storage.crawlJobs.nextPendingAt(job.id, hostA.hostId), undefined);
      const [again] = await storage.crawlJobs.claim(job.id, hostB.hostId, 5_000, 10, 24);
      assert.equal(again.attempts, 1);
      assert.equal(await storage.crawlJobs.unfinishedCount(job.id), 1);
      await storage.crawlJobs.recordOutcomes([done(again, { at: 6_000 })]);
      assert.equal(await storage.crawlJobs.unfinishedCount(job.id), 0);
      const lines = await storage.crawlJobs.listUrls(job.id, -1, 10);
      assert.deepEqual(
        lines.map((l) => [l.outcome, l.httpStatus, l.attempts]),
        [
          ['processed', 200, 1],
          ['processed', 200, 2],
          ['invalid_url', null, 0],
          ['fetch_failed', 404, 1],
        ],
      );
      assert.equal(lines[1].finishedAt, 6_000);
      assert.equal((await storage.crawlJobs.listUrls(job.id, 1, 10))[0].seq, 2);
    });

    test('updates status conditionally; holds and restores statuses for maintenance', async () => {
      assert.equal(await storage.crawlJobs.updateJob(job.id, { status: 7 }, [0]), true);
      assert.equal(await storage.crawlJobs.updateJob(job.id, { status: 6 }, [0]), false);
      assert.equal((await storage.crawlJobs.getJob(job.id))?.status, 7);
      assert.equal(
        await storage.crawlJobs.updateJob(job.id, { addRoundsCompleted: 1, completedAt: 9_000 }),
        true,
      );
      assert.equal((await storage.crawlJobs.getJob(job.id))?.counters.roundsCompleted, 1);
      const held = await storage.crawlJobs.holdJobs([0, 4, 7], 8);
      assert.ok(held.includes(job.id));
      assert.deepEqual(
        [
          (await storage.crawlJobs.getJob(job.id))?.status,
          (await storage.crawlJobs.getJob(job.id))?.resumeStatus,
        ],
        [8, 7],
      );
      const restored = await storage.crawlJobs.restoreHeldJobs(8);
      assert.ok(restored.includes(job.id));
      assert.deepEqual(
        [
          (await storage.crawlJobs.getJob(job.id))?.status,
          (await storage.crawlJobs.getJob(job.id))?.resumeStatus,
        ],
        [7, null],
      );
      assert.equal(await storage.crawlJobs.updateJob(424242, { status: 7 }), false);
    });

    test('a new round resets the frontier and this-round counters but keeps totals and objects', async () => {
      // Conditional on the status: a second process starting the same round changes nothing.
      const before = (await storage.crawlJobs.getJob(job.id))!;
      assert.notEqual(before.status, 4);
      assert.equal(await storage.crawlJobs.startRound(job.id, 9_000, 7, 4), false);
      assert.deepEqual(await storage.crawlJobs.getJob(job.id), before);
      assert.equal(await storage.crawlJobs.startRound(job.id, 10_000, 7), true);
      const after = (await storage.crawlJobs.getJob(job.id))!;
      assert.equal(after.roundStartedAt, 10_000);
      assert.equal(after.counters.pageCrawlSuccesses, 2);
      assert.equal(after.counters.pageCrawlSuccessesThisRound, 0);
      assert.equal(after.counters.pageProcessSuccessesThisRound, 0);
      assert.equal(after.counters.objectsFound, 2);
      assert.equal(await storage.crawlJobs.unfinishedCount(job.id), 3);
      assert.equal((await storage.crawlJobs.listObjects(job.id, 0, 10)).length, 2);
      assert.equal((await storage.crawlJobs.listUrls(job.id, -1, 10))[2].outcome, 'invalid_url');
    });

    test('restart erases objects and counters; delete removes everything', async () => {
      await storage.crawlJobs.enqueueWebhook({
        jobId: job.id,
        url: 'https://hook.example/',
        payload: '{}',
        headers: {},
        at: 1,
      });
      await storage.crawlJobs.resetJob(job.id, 20_000, 7);
      const reset = (await storage.crawlJobs.getJob(job.id))!;
      assert.deepEqual(Object.values(reset.counters), [0, 0, 0, 0, 0, 0, 0, 0]);
      assert.equal(reset.completedAt, null);
      assert.equal((await storage.crawlJobs.listObjects(job.id, 0, 10)).length, 0);
      assert.equal((await storage.crawlJobs.dueWebhooks(Number.MAX_SAFE_INTEGER, 10)).length, 0);
      assert.equal(await storage.crawlJobs.unfinishedCount(job.id), 3);
      assert.equal(await storage.crawlJobs.deleteJob(job.id), true);
      assert.equal(await storage.crawlJobs.getJob(job.id), undefined);
      assert.equal(await storage.crawlJobs.findJob('tok_1', 'news'), undefined);
      assert.equal((await storage.crawlJobs.listUrls(job.id, -1, 10)).length, 0);
      assert.equal((await storage.crawlJobs.hosts(job.id)).length, 0);
      assert.equal(await storage.crawlJobs.deleteJob(job.id), false);
    });

    test('webhook outbox: due order, failures rescheduled or dropped, delivery marks the job', async () => {
      const owner = (await storage.crawlJobs.findJob('tok_2', 'news'))!;
      const second = (await storage.crawlJobs.createJob({
        tokenId: 'tok_2',
        name: 'hooks',
        settings: SETTINGS,
        status: 7,
        resumeStatus: null,
        now: 800,
        urls: [{ url: 'https://d.example/', host: 'd.example' }],
      }))!;
      await storage.crawlJobs.enqueueWebhook({
        jobId: owner.id,
        url: 'https://hook.example/a',
        payload: '{"a":1}',
        headers: { 'X-Crawl-Name': 'news' },
        at: 100,
      });
      await storage.crawlJobs.enqueueWebhook({
        jobId: second.id,
        url: 'https://hook.example/b',
        payload: '{}',
        headers: {},
        at: 50,
      });
      assert.equal(await storage.crawlJobs.nextWebhookAt(), 50);
      assert.equal((await storage.crawlJobs.dueWebhooks(49, 10)).length, 0);
      const [b, a] = await storage.crawlJobs.dueWebhooks(100, 10);
      assert.deepEqual([b.url, a.url], ['https://hook.example/b', 'https://hook.example/a']);
      assert.deepEqual(a.headers, { 'X-Crawl-Name': 'news' });
      // Handed out once: claimed until reported on (or the lease runs out).
      assert.equal((await storage.crawlJobs.dueWebhooks(100, 10)).length, 0);
      assert.equal(await storage.crawlJobs.nextWebhookAt(), 100 + CRAWL_WEBHOOK_LEASE_MS);
      await storage.crawlJobs.webhookFailed(b.id, 'HTTP 500', 400);
      assert.equal((await storage.crawlJobs.dueWebhooks(399, 10)).length, 0);
      const [retried] = await storage.crawlJobs.dueWebhooks(400, 10);
      assert.deepEqual([retried.id, retried.attempts], [b.id, 1]);
      await storage.crawlJobs.webhookFailed(b.id, 'HTTP 500', undefined);
      await storage.crawlJobs.webhookDelivered(a.id);
      assert.equal(await storage.crawlJobs.nextWebhookAt(), undefined);
      assert.equal((await storage.crawlJobs.getJob(owner.id))?.sentDoneNotification, true);
      await storage.crawlJobs.deleteJob(second.id);
    });

    test('webhook outbox: a newer notification of a job supersedes its undelivered ones', async () => {
      const owner = (await storage.crawlJobs.findJob('tok_2', 'news'))!;
      const round = (n: number, at: number) =>
        storage.crawlJobs.enqueueWebhook({
          jobId: owner.id,
          url: 'https://hook.example/r',
          payload: `{"round":${n}}`,
          headers: {},
          at,
        });
      await round(1, 100);
      const [first] = await storage.crawlJobs.dueWebhooks(100, 10);
      await storage.crawlJobs.webhookFailed(first.id, 'HTTP 500', 5_000);
      await round(2, 200);
      const due = await storage.crawlJobs.dueWebhooks(10_000, 10);
      assert.deepEqual(
        due.map((w) => w.payload),
        ['{"round":2}'],
      );
      // Finishing the superseded delivery (it was in flight) changes nothing.
      await storage.crawlJobs.webhookFailed(first.id, 'HTTP 500', 6_000);
      await storage.crawlJobs.webhookDelivered(first.id);
      await storage.crawlJobs.webhookFailed(due[0].id, 'HTTP 500', 9_000);
      assert.deepEqual(
        (await storage.crawlJobs.dueWebhooks(10_000, 10)).map((w) => w.payload),
        ['{"round":2}'],
      );
      await storage.crawlJobs.webhookDelivered(due[0].id);
      assert.equal(await storage.crawlJobs.nextWebhookAt(), undefined);
    });

    test('operator switches', async () => {
      assert.equal(await storage.crawlJobs.getSwitch('maintenance'), undefined);
      await storage.crawlJobs.setSwitch('maintenance', 'on', 1);
      await storage.crawlJobs.setSwitch('maintenance', 'off', 2);
      assert.equal(await storage.crawlJobs.getSwitch('maintenance'), 'off');
    });
  });

  runWebhookClaimContract(adapter, openPair);
}

const hook = (jobId: number, n: number, at: number) => ({
  jobId,
  url: 'https://hook.example/claims',
  payload: `{"n":${n}}`,
  headers: {},
  at,
});

function runWebhookClaimContract(adapter: string, openPair: OpenPair): void {
  describe(`storage contract (crawl webhooks claimed by one process): ${adapter}`, () => {
    let pair: StoragePair;
    const jobIds: number[] = [];
    before(async () => {
      pair = await openPair();
      for (let i = 0; i < 30; i++) {
        const job = await pair.first.crawlJobs.createJob({
          tokenId: 'tok_claims',
          name: `job-${i}`,
          settings: SETTINGS,
          status: 7,
          resumeStatus: null,
          now: 1,
          urls: [{ url: `https://c${i}.example/`, host: `c${i}.example` }],
        });
        jobIds.push(job!.id);
      }
    });
    after(async () => pair.cleanup());

    test('two processes polling at once never both get a notification', async () => {
      for (const [i, id] of jobIds.entries()) await pair.first.crawlJobs.enqueueWebhook(hook(id, i, 10 + i));
      const got = { first: [] as number[], second: [] as number[] };
      // Each process polls as its sender does, a few at a time, both at once until the outbox is empty.
      const poll = async (name: 'first' | 'second') => {
        for (let round = 0; round < jobIds.length; round++) {
          const due = await pair[name].crawlJobs.dueWebhooks(1_000, 4);
          if (due.length === 0) return;
          got[name].push(...due.map((w) => w.id));
        }
      };
      await Promise.all([poll('first'), poll('second'), poll('first'), poll('second')]);
      const all = [...got.first, ...got.second];
      assert.equal(new Set(all).size, all.length, `a notification went to two pollers: ${all}`);
      assert.equal(all.length, jobIds.length);
      // Claimed: neither process gets them again while the lease lasts; both see the lease's end.
      assert.equal(
        (await pair.second.crawlJobs.dueWebhooks(1_000 + CRAWL_WEBHOOK_LEASE_MS - 1, 50)).length,
        0,
      );
      assert.equal(await pair.second.crawlJobs.nextWebhookAt(), 1_000 + CRAWL_WEBHOOK_LEASE_MS);
      for (const id of all) await pair.first.crawlJobs.webhookDelivered(id);
      assert.equal(await pair.second.crawlJobs.nextWebhookAt(), undefined);
    });

    test("a newer notification waits for the job's delivery in flight, then supersedes older ones", async () => {
      const [job, other] = jobIds;
      await pair.first.crawlJobs.enqueueWebhook(hook(job, 1, 100));
      const [inFlight] = await pair.first.crawlJobs.dueWebhooks(100, 10);
      assert.equal(inFlight.payload, '{"n":1}');
      await pair.first.crawlJobs.enqueueWebhook(hook(job, 2, 200));
      await pair.first.crawlJobs.enqueueWebhook(hook(other, 3, 200));
      // Job's second notification is not handed out while its first is being delivered.
      const [third] = await pair.second.crawlJobs.dueWebhooks(300, 10);
      assert.equal(third.payload, '{"n":3}');
      assert.equal((await pair.second.crawlJobs.dueWebhooks(300, 10)).length, 0);
      await pair.second.crawlJobs.webhookDelivered(third.id);
      await pair.first.crawlJobs.webhookDelivered(inFlight.id);
      const [next] = await pair.second.crawlJobs.dueWebhooks(300, 10);
      assert.equal(next.payload, '{"n":2}');
      // A delivery that fails after a newer notification was queued is superseded by it.
      await pair.second.crawlJobs.enqueueWebhook(hook(job, 4, 300));
      await pair.second.crawlJobs.webhookFailed(next.id, 'HTTP 500', 400);
      const last = await pair.first.crawlJobs.dueWebhooks(10_000, 10);
      assert.deepEqual(
        last.map((w) => w.payload),
        ['{"n":4}'],
      );
      await pair.first.crawlJobs.webhookDelivered(last[0].id);
      assert.equal(await pair.first.crawlJobs.nextWebhookAt(), undefined);
    });

    test("a claim outlives no lease: a dead process's notification goes to another", async () => {
      const job = jobIds[5];
      await pair.first.crawlJobs.enqueueWebhook(hook(job, 5, 20_000));
      const [claimed] = await pair.first.crawlJobs.dueWebhooks(20_000, 10);
      assert.equal(claimed.payload, '{"n":5}');
      assert.equal(
        (await pair.second.crawlJobs.dueWebhooks(20_000 + CRAWL_WEBHOOK_LEASE_MS - 1, 10)).length,
        0,
      );
      const again = await pair.second.crawlJobs.dueWebhooks(20_000 + CRAWL_WEBHOOK_LEASE_MS, 10);
      assert.deepEqual(
        again.filter((w) => w.jobId === job).map((w) => [w.id, w.payload]),
        [[claimed.id, '{"n":5}']],
      );
    });
  });
}

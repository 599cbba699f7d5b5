import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../logging.ts';
import type { Storage } from '../storage/index.ts';
import { openSqliteStorage } from '../storage/sqlite/index.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { createTempDatabase } from '../../test/support/temp-postgres.ts';
import { openStorage } from '../storage/index.ts';
import { newJobId } from './ids.ts';
import { statusRecord } from './job-record.ts';
import { createFetcher } from '../extract/index.ts';
import { createWebhookPost } from './webhook-post.ts';
import { WebhookSender } from './webhooks.ts';

interface Received {
  body: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

/** A real local receiver answering with the next status of `script` (then 200). */
async function receiver(script: number[]) {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ body, headers: request.headers, at: Date.now() });
      response.statusCode = script.shift() ?? 200;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('WebhookSender', () => {
  const dir = tempDir();
  let storage: Storage;
  const logger = createLogger({ level: 'silent' });
  // The local receivers are on loopback: private networks allowed, as in every test.
  const fetcher = createFetcher({ allowPrivateNetwork: true });
  before(() => {
    storage = openSqliteStorage(path.join(dir.path, 'quarry.sqlite'));
  });
  after(async () => {
    await fetcher.close();
    await storage.close();
    dir.remove();
  });

  async function finishedJob(webhookUrl: string) {
    const id = newJobId();
    await storage.bulkJobs.create({
      id,
      tokenId: 'tok_w',
      name: 'w',
      options: {},
      webhookUrl,
      submitTime: 1,
    });
    await storage.bulkJobs.publish(id, 0);
    return (await storage.bulkJobs.update(id, { state: 'COMPLETE', completedTime: 2 }))!;
  }

  function sender(delaysMs: number[]) {
    return new WebhookSender({
      store: storage.bulkJobs,
      post: createWebhookPost(fetcher, { timeoutMs: 2_000 }),
      statusRecord: async (job) => statusRecord(job, []),
      logger,
      delaysMs,
    });
  }

  test('POSTs the status record; retries non-2xx answers with growing delays until delivered', async () => {
    const hook = await receiver([500, 503]);
    // Delays far apart, so that each gap's lower bound alone shows the growth: on a loaded host
    // a try can come late (a 30 ms delay was once 161 ms), never early.
    const webhooks = sender([30, 300, 900]);
    // Closed whatever happens: an open receiver would keep the test file running forever.
    try {
      const job = await finishedJob(hook.url);
      await webhooks.schedule(job);
      await webhooks.settled();
      assert.equal(hook.received.length, 3);
      const record = JSON.parse(hook.received[2].body);
      assert.equal(record.job_id, job.id);
      assert.equal(record.status, 'COMPLETE');
      assert.equal(hook.received[0].headers['content-type'], 'application/json');
      assert.equal(hook.received[0].headers['x-bulkjob-id'], job.id);
      const gaps = [hook.received[1].at - hook.received[0].at, hook.received[2].at - hook.received[1].at];
      assert.ok(gaps[0] >= 25 && gaps[1] >= 280, `backoff grows: ${gaps.join(', ')} ms`);
      assert.deepEqual((await storage.bulkJobs.get(job.id))?.webhook, {
        state: 'delivered',
        attempts: 3,
        nextAt: null,
        lastError: null,
      });
    } finally {
      await webhooks.close();
      await hook.close();
    }
  });

  test('gives up after the last try, remembering why; network errors count as failures', async () => {
    const hook = await receiver([]);
    await hook.close();
    const webhooks = sender([5, 10]);
    assert.equal(webhooks.maxTries, 3);
    const job = await finishedJob(hook.url);
    await webhooks.schedule(job);
    await webhooks.settled();
    const state = (await storage.bulkJobs.get(job.id))?.webhook;
    assert.equal(state?.state, 'failed');
    assert.equal(state?.attempts, 3);
    assert.ok(state?.lastError, 'the last error is kept');
    await webhooks.close();
  });

  test('non-public destinations are refused unless private networks are allowed', async () => {
    const hook = await receiver([]);
    const strict = createFetcher({ allowPrivateNetwork: false });
    const webhooks = new WebhookSender({
      store: storage.bulkJobs,
      post: createWebhookPost(strict),
      statusRecord: async (job) => statusRecord(job, []),
      logger,
      delaysMs: [5],
    });
    const job = await finishedJob(hook.url.replace('127.0.0.1', 'localhost'));
    await webhooks.schedule(job);
    await webhooks.settled();
    const state = (await storage.bulkJobs.get(job.id))?.webhook;
    assert.equal(state?.state, 'failed');
    assert.match(state?.lastError ?? '', /not a public address/);
    assert.equal(hook.received.length, 0, 'nothing reached the receiver');
    await webhooks.close();
    await strict.close();
    await hook.close();
  });

  test('a delivery pending at shutdown resumes from the store', async () => {
    const hook = await receiver([500]);
    const first = sender([60_000]);
    const job = await finishedJob(hook.url);
    await first.schedule(job);
    // The first try fails; the retry is a minute away. Shut down and "restart" with short delays.
    while ((await storage.bulkJobs.get(job.id))?.webhook?.attempts !== 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await first.close();
    const pending = (await storage.bulkJobs.get(job.id))!;
    assert.equal(pending.webhook?.state, 'pending');
    assert.equal(pending.webhook?.attempts, 1);
    await storage.bulkJobs.update(job.id, { webhook: { ...pending.webhook!, nextAt: Date.now() } });
    const second = sender([10]);
    second.resume([(await storage.bulkJobs.get(job.id))!]);
    await second.settled();
    assert.equal(hook.received.length, 2);
    assert.equal((await storage.bulkJobs.get(job.id))?.webhook?.state, 'delivered');
    await second.close();
    await hook.close();
  });
});

/**
 * Processes sharing a store that each resume a pending delivery (every process re-arms them at
 * its start) send it once: PostgreSQL opened twice as two processes do, and the embedded store
 * with two senders on it.
 */
describe('WebhookSender: one delivery over processes sharing a store', () => {
  const logger = createLogger({ level: 'silent' });
  const fetcher = createFetcher({ allowPrivateNetwork: true });
  after(() => fetcher.close());

  async function deliverFromTwo(first: Storage, second: Storage, script: number[]) {
    const hook = await receiver(script);
    const senders = [first, second].map(
      (storage) =>
        new WebhookSender({
          store: storage.bulkJobs,
          post: createWebhookPost(fetcher, { timeoutMs: 2_000 }),
          statusRecord: async (job) => statusRecord(job, []),
          logger,
          delaysMs: [20, 40],
        }),
    );
    try {
      const id = newJobId();
      await first.bulkJobs.create({
        id,
        tokenId: 'tok_w',
        name: 'w',
        options: {},
        webhookUrl: hook.url,
        submitTime: 1,
      });
      await first.bulkJobs.publish(id, 0);
      await first.bulkJobs.update(id, {
        state: 'COMPLETE',
        completedTime: 2,
        webhook: { state: 'pending', attempts: 0, nextAt: Date.now(), lastError: null },
      });
      // Both processes start at once and find the delivery pending.
      const job = (await second.bulkJobs.get(id))!;
      for (const sender of senders) sender.resume([job]);
      // Not `settled()`: the process that lost a claim looks again only when its lease ends (60 s).
      let webhook = (await first.bulkJobs.get(id))?.webhook;
      while (webhook?.state === 'pending') {
        await new Promise((resolve) => setTimeout(resolve, 10));
        webhook = (await first.bulkJobs.get(id))?.webhook;
      }
      // Time for a second POST to arrive, were one made.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { received: hook.received.length, webhook };
    } finally {
      await Promise.all(senders.map((sender) => sender.close()));
      await hook.close();
    }
  }

  test('postgres: two stores resuming one delivery POST it once, retries included', async () => {
    const database = await createTempDatabase();
    const first = openStorage({ adapter: 'postgres', url: database.url });
    const second = openStorage({ adapter: 'postgres', url: database.url });
    try {
      const once = await deliverFromTwo(first, second, []);
      assert.equal(once.received, 1);
      assert.deepEqual(once.webhook, { state: 'delivered', attempts: 1, nextAt: null, lastError: null });
      // A failed try is retried once per try, not once per process.
      const retried = await deliverFromTwo(first, second, [500, 500]);
      assert.equal(retried.received, 3);
      assert.deepEqual(retried.webhook, { state: 'delivered', attempts: 3, nextAt: null, lastError: null });
    } finally {
      await Promise.all([first.close(), second.close()]);
      await database.drop();
    }
  });

  test('sqlite: two senders on one store POST a delivery once', async () => {
    const dir = tempDir();
    const storage = openSqliteStorage(path.join(dir.path, 'quarry.sqlite'));
    try {
      const once = await deliverFromTwo(storage, storage, []);
      assert.equal(once.received, 1);
      assert.deepEqual(once.webhook, { state: 'delivered', attempts: 1, nextAt: null, lastError: null });
    } finally {
      await storage.close();
      dir.remove();
    }
  });
});

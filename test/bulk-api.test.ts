import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { UNPAID_MESSAGE } from '../src/bulk/index.ts';
import { loadConfig } from '../src/config.ts';
import { bulkClient, sampleRecords } from './support/bulk-client.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');

describe('bulk enhance API: submit, list, status, single result, stop, delete', () => {
  let t: TestRuntime;
  let token: string;
  let client: ReturnType<typeof bulkClient>;
  before(async () => {
    t = await startTestRuntime({
      limits: {
        enhanceBodyBytes: 10 * 1024 * 1024,
        bulkBodyBytes: 256 * 1024,
        bulkMaxRecords: 2_000,
        maxSize: 100,
      },
    });
    await loadFixtureGraph(t.runtime.storage.entities, FIXTURE);
    token = await t.token(null);
    client = bulkClient(t.runtime.app);
  });
  after(async () => t.close());

  const jobsOf = async (secret: string) =>
    (await client.get(secret, '/status')).json() as { job_id: string }[];

  describe('submission', () => {
    test('202 with job_id and bulkjobId; the job completes with one result per record', async () => {
      const records = sampleRecords(30);
      const res = await client.submit(token, records, '&name=first&size=2');
      assert.equal(res.statusCode, 202);
      const ack = res.json();
      assert.match(ack.job_id, /^bj_[0-9a-f]{24}$/);
      assert.equal(ack.bulkjobId, ack.job_id);
      const content = await client.waitFinal(token, ack.job_id);
      assert.equal(content.status, 'COMPLETE');
      assert.equal(content.jobs_total, 30);
      assert.equal(content.jobs_completed, 30);
      assert.equal(content.name, 'first');
      assert.equal(content.estimate_remaining_time, null);
      assert.ok((content.completed_time_ms as number) >= (content.start_time_ms as number));
      assert.ok((content.start_time_ms as number) >= (content.submit_time_ms as number));
      // 10 name queries (hit) + 10 id queries (hit) + 10 misses.
      assert.equal(content.total_results, 20);
      assert.equal(content.totalResults, 20);
      assert.equal(content.fileSizeBytes, content.fileSizeBytes as number);
      assert.ok((content.fileSizeBytes as number) > 1000);
    });

    test('records accept strings or arrays for name/url/email, and id records without type', async () => {
      const res = await client.submit(token, [
        { type: 'Person', name: ['Jane Doe'], email: 'jane.doe@acme-robotics.example' },
        { type: 'Organization', url: ['acme-robotics.example'], name: 'Acme' },
        { id: 'ORG-acme', customId: 42 },
      ]);
      assert.equal(res.statusCode, 202);
      const id = res.json().job_id;
      await client.waitFinal(token, id);
      const third = (await client.get(token, `/${id}/2`)).json();
      assert.equal(third.data[0].entity.id, 'ORG-acme');
      assert.equal(third.data[0].score, 1);
      assert.equal(third.request_ctx.query.customId, '42');
      assert.equal(third.request_ctx.query_ctx.bulkjobId, id);
      assert.equal(third.request_ctx.query_ctx.jobIdx, 2);
    });

    test('bad bodies are 400s naming the problem, and create no job', async () => {
      const fresh = await t.token(null);
      const cases: [unknown, RegExp][] = [
        [[], /empty array/],
        ['', /not a valid JSON array.*empty/],
        ['{"type":"Organization","name":"x"}', /must be a JSON array/],
        ['[{"type":"Organization","name":"x"},', /not a valid JSON array.*not closed/],
        ['[{"type":"Organization","name":"x"} {"a":1}]', /expected a comma/],
        [
          [{ type: 'Organization', name: 'x' }, 'just a string'],
          /'body\[1\]': must be a JSON object, got a string/,
        ],
        [[{ type: 'Organization', name: 'x' }, [1, 2]], /'body\[1\]': must be a JSON object, got an array/],
        [[{ type: 'Organization', name: 'x' }, null], /'body\[1\]': must be a JSON object, got null/],
        [[{ type: 'Planet', name: 'x' }], /'body\[0\]\.type': must be Person or Organization/],
        [[{ name: 'x' }], /'body\[0\]\.type'/],
        [
          [
            { type: 'Organization', name: 'x' },
            { type: 'Organization', name: 5 },
          ],
          /'body\[1\]\.name'.*string/,
        ],
        [[{ type: 'Organization', email: 'a@b.example', name: 'x' }], /'body\[0\]\.email'.*Person only/],
        [[{ type: 'Organization' }], /'body\[0\]'.*no identifying field/],
        [[{ type: 'Organization', ip: 'not-an-ip', name: 'x' }], /'body\[0\]\.ip'/],
        ['[{"type":"Organization","name":x}]', /'body\[0\]': not valid JSON/],
      ];
      for (const [body, message] of cases) {
        const res = await client.submit(fresh, body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)} → ${res.body}`);
        const error = res.json();
        assert.equal(error.code, 400);
        assert.equal(error.error, true);
        assert.match(error.message, message);
      }
      assert.deepEqual(await jobsOf(fresh), [], 'no job was created');
    });

    test('bad query parameters are 400s naming the parameter', async () => {
      const fresh = await t.token(null);
      const records = sampleRecords(2);
      for (const [query, parameter] of [
        ['&size=0', 'size'],
        ['&size=abc', 'size'],
        ['&threshold=1.5', 'threshold'],
        ['&refresh=maybe', 'refresh'],
        ['&jsonmode=compact', 'jsonmode'],
        ['&webhookurl=ftp://example.org/hook', 'webhookurl'],
        ['&webhookurl=not%20a%20url', 'webhookurl'],
        [`&name=${'n'.repeat(201)}`, 'name'],
      ]) {
        const res = await client.submit(fresh, records, query);
        assert.equal(res.statusCode, 400, query);
        assert.match(res.json().message, new RegExp(`'${parameter}'`), query);
      }
      assert.deepEqual(await jobsOf(fresh), []);
    });

    test('a body over the byte limit or over the record limit is a 413; no job is created', async () => {
      const fresh = await t.token(null);
      const big = JSON.stringify(sampleRecords(2_000).map((r) => ({ ...r, description: 'd'.repeat(200) })));
      assert.ok(big.length > 256 * 1024);
      let res = await client.submit(fresh, big);
      assert.equal(res.statusCode, 413);
      assert.equal(res.json().code, 413);
      res = await client.submit(fresh, sampleRecords(2_001));
      assert.equal(res.statusCode, 413);
      assert.match(res.json().message, /at most 2000 records/);
      res = await client.submit(fresh, [
        { type: 'Organization', name: 'x', description: 'd'.repeat(1_100_000) },
      ]);
      assert.equal(res.statusCode, 413);
      assert.deepEqual(await jobsOf(fresh), []);
      // The records of refused submissions are purged, not left behind.
      await t.runtime.services.bulk.purged();
      assert.deepEqual(await t.runtime.storage.bulkJobs.listByState(['SUBMITTING', 'DELETING']), []);
    });

    test('without a token: 401 and no job', async () => {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: '/kg/v3/enhance/bulk',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(sampleRecords(2)),
      });
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().code, 401);
    });

    test('the token may come as a Bearer header and the content type may be missing', async () => {
      const fresh = await t.token(null);
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: '/kg/v3/enhance/bulk',
        headers: { authorization: `Bearer ${fresh}` },
        payload: Buffer.from(JSON.stringify(sampleRecords(3))),
      });
      assert.equal(res.statusCode, 202, res.body);
      assert.equal((await jobsOf(fresh)).length, 1);
    });
  });

  describe('status and list', () => {
    test('list is a bare array of the token’s jobs, newest first', async () => {
      const fresh = await t.token(null);
      const a = (await client.submit(fresh, sampleRecords(2), '&name=a')).json().job_id;
      const b = (await client.submit(fresh, sampleRecords(2), '&name=b')).json().job_id;
      const list = await jobsOf(fresh);
      assert.deepEqual(
        list.map((j) => j.job_id),
        [b, a],
      );
      const record = list[0] as Record<string, unknown>;
      for (const field of [
        'job_id',
        'name',
        'refresh',
        'search',
        'message',
        'jobs_total',
        'jobs_completed',
        'status',
        'estimate_remaining_time',
        'submit_time_ms',
        'start_time_ms',
        'completed_time_ms',
        'total_results',
        'bulkjobId',
        'totalJobs',
        'finishedJobs',
        'estimateRemainingTimeSec',
        'submitTimeMs',
        'startTimeMs',
        'completedTimeMs',
        'totalResults',
        'fileSizeBytes',
        'reports',
      ]) {
        assert.ok(field in record, `status record has ${field}`);
      }
      assert.equal(record.search, 'OFF');
      assert.equal(record.refresh, false);
    });

    test('status answers 200 when complete, with code 200 in the body', async () => {
      const id = (await client.submit(token, sampleRecords(5))).json().job_id;
      await client.waitFinal(token, id);
      const res = await client.get(token, `/${id}/status`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().code, 200);
      assert.equal(res.json().content.status, 'COMPLETE');
    });

    test('malformed ids are 400, unknown ones 404', async () => {
      for (const path of ['/nope/status', '/bj_123/status', '/nope/stop', '/nope/delete', '/nope/0']) {
        const res = await client.get(token, path);
        assert.equal(res.statusCode, 400, path);
        assert.match(res.json().message, /Invalid bulkjobId/);
      }
      const unknown = 'bj_000000000000000000000000';
      for (const path of ['/status', '/stop', '/delete', '/0']) {
        const res = await client.get(token, `/${unknown}${path}`);
        assert.equal(res.statusCode, 404, path);
        assert.equal(res.json().code, 404);
        assert.match(res.json().message, /not found/);
      }
    });
  });

  describe('single result', () => {
    test('jobIdx is 0-based; beyond the last record 404; a non-number 400', async () => {
      const records = [
        { type: 'Organization', name: 'Acme Robotics', customId: 'first' },
        { type: 'Organization', name: 'Globex', customId: 'second' },
      ];
      const id = (await client.submit(token, records)).json().job_id;
      await client.waitFinal(token, id);
      const first = await client.get(token, `/${id}/0`);
      assert.equal(first.statusCode, 200);
      assert.match(first.headers['content-type'] as string, /application\/json/);
      assert.equal(first.json().request_ctx.query.customId, 'first');
      assert.equal((await client.get(token, `/${id}/1`)).json().request_ctx.query.customId, 'second');
      assert.equal((await client.get(token, `/${id}/2`)).statusCode, 404);
      const bad = await client.get(token, `/${id}/-1`);
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().message, /jobIdx/);
      assert.equal((await client.get(token, `/${id}/x`)).statusCode, 400);
    });
  });

  describe('stop and delete', () => {
    test('stopping a running job makes it STOPPED at once; records not done answer 201', async () => {
      const fresh = await t.token(null);
      const id = (await client.submit(fresh, sampleRecords(2_000))).json().job_id;
      const res = await client.get(fresh, `/${id}/stop`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'STOPPED', message: `Bulkjob [${id}] was stopped` });
      const status = await client.get(fresh, `/${id}/status`);
      assert.equal(status.statusCode, 201, 'a stopped job answers 201');
      const content = status.json().content;
      assert.equal(content.status, 'STOPPED');
      assert.ok(content.jobs_completed < 2_000, `stopped early (${content.jobs_completed} done)`);
      // Nothing more is processed after the stop.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const later = (await client.get(fresh, `/${id}/status`)).json().content;
      assert.equal(later.jobs_completed, content.jobs_completed);
      assert.equal((await t.runtime.storage.bulkJobs.get(id))?.completed, content.jobs_completed);
      const pending = await client.get(fresh, `/${id}/1999`);
      assert.equal(pending.statusCode, 201);
      assert.equal(pending.json().code, 201);
      // Issue 28: a record the stopped job never reached is not "in process".
      assert.equal(pending.json().status, 'STOPPED');
      assert.match(pending.json().message, /Record 1999 .* was not processed: the job was stopped/);
      assert.equal(pending.json().bulkjobStatus.status, 'STOPPED');
      const again = await client.get(fresh, `/${id}/stop`);
      assert.equal(again.json().status, 'STOPPED');
    });

    test('stopping a finished job changes nothing', async () => {
      const id = (await client.submit(token, sampleRecords(3))).json().job_id;
      await client.waitFinal(token, id);
      const res = await client.get(token, `/${id}/stop`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'COMPLETE', message: `Bulkjob [${id}] is completed` });
      assert.equal((await client.get(token, `/${id}/status`)).json().content.status, 'COMPLETE');
    });

    test('delete answers 200 with an empty body; afterwards every endpoint answers 404', async () => {
      const fresh = await t.token(null);
      const id = (await client.submit(fresh, sampleRecords(50))).json().job_id;
      const res = await client.get(fresh, `/${id}/delete`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.body, '');
      for (const path of ['/status', '/stop', '/delete', '/0']) {
        assert.equal((await client.get(fresh, `/${id}${path}`)).statusCode, 404, path);
      }
      assert.deepEqual(await jobsOf(fresh), []);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(await t.runtime.storage.bulkJobs.result(id, 0), undefined, 'results are purged');
      assert.deepEqual(await t.runtime.storage.bulkJobs.listByState(['DELETING']), []);
    });
  });

  describe('retention', () => {
    test('finished jobs older than the retention are deleted like the delete endpoint does', async () => {
      const fresh = await t.token(null);
      const old = (await client.submit(fresh, sampleRecords(3))).json().job_id;
      await client.waitFinal(fresh, old);
      const finishedAt = (await t.runtime.storage.bulkJobs.get(old))!.completedTime!;
      const running = (await client.submit(fresh, sampleRecords(2_000))).json().job_id;
      const bulk = t.runtime.services.bulk;
      await bulk.deleteFinishedBefore(finishedAt);
      assert.equal((await client.get(fresh, `/${old}/status`)).statusCode, 200, 'finished at, not before');
      assert.ok((await bulk.deleteFinishedBefore(finishedAt + 1)) >= 1);
      assert.equal((await client.get(fresh, `/${old}/status`)).statusCode, 404);
      assert.notEqual((await client.get(fresh, `/${running}/status`)).statusCode, 404, 'a running job stays');
      await client.get(fresh, `/${running}/stop`);
    });

    test('QUARRY_BULK_RETENTION_DAYS: days, fractions allowed, 0 or unset keeps jobs', async () => {
      const retentionMsFromEnv = (env: NodeJS.ProcessEnv) => loadConfig(env).bulkRetentionMs;
      assert.equal(retentionMsFromEnv({}), 0);
      assert.equal(retentionMsFromEnv({ QUARRY_BULK_RETENTION_DAYS: '0' }), 0);
      assert.equal(retentionMsFromEnv({ QUARRY_BULK_RETENTION_DAYS: '1.5' }), 129_600_000);
      assert.throws(
        () => retentionMsFromEnv({ QUARRY_BULK_RETENTION_DAYS: '-1' }),
        /QUARRY_BULK_RETENTION_DAYS/,
      );
    });
  });

  describe('token isolation', () => {
    test('another token can neither see, read, stop nor delete a job', async () => {
      const owner = await t.token(null);
      const other = await t.token(null);
      const id = (await client.submit(owner, sampleRecords(5))).json().job_id;
      await client.waitFinal(owner, id);
      assert.deepEqual(await jobsOf(other), []);
      for (const path of ['/status', '/0', '/stop', '/delete']) {
        const res = await client.get(other, `/${id}${path}`);
        assert.equal(res.statusCode, 404, path);
      }
      // Still there for its owner, untouched.
      const status = await client.get(owner, `/${id}/status`);
      assert.equal(status.statusCode, 200);
      assert.equal(status.json().content.status, 'COMPLETE');
    });
  });

  describe('webhooks', () => {
    test('a job reaching a final state POSTs its status record to webhookurl', async () => {
      const received: { body: string; type: string | undefined }[] = [];
      const server = http.createServer((request, response) => {
        let body = '';
        request.on('data', (chunk) => {
          body += chunk;
        });
        request.on('end', () => {
          received.push({ body, type: request.headers['content-type'] });
          response.end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/done?x=1`;
      try {
        const done = (
          await client.submit(token, sampleRecords(4), `&webhookurl=${encodeURIComponent(hook)}`)
        ).json().job_id;
        await client.waitFinal(token, done);
        const stopped = (
          await client.submit(token, sampleRecords(2_000), `&webhookurl=${encodeURIComponent(hook)}`)
        ).json().job_id;
        await client.get(token, `/${stopped}/stop`);
        await t.runtime.services.bulk.webhooks.settled();
        const bodies = received.map((r) => JSON.parse(r.body));
        assert.equal(received[0].type, 'application/json');
        const forDone = bodies.find((b) => b.job_id === done);
        assert.equal(forDone?.status, 'COMPLETE');
        assert.equal(forDone?.jobs_completed, 4);
        assert.equal(bodies.find((b) => b.job_id === stopped)?.status, 'STOPPED');
        assert.equal(received.length, 2, 'one delivery per job');
        assert.equal((await t.runtime.storage.bulkJobs.get(done))?.webhook?.state, 'delivered');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('credits', () => {
    test('each record is charged as processed; unpaid records carry the 429 message', async () => {
      // 4 records match one entity each (25 credits), 2 match nothing (free); 60 credits pay 2.
      const records = [
        { type: 'Organization', name: 'Acme Robotics' },
        { type: 'Organization', name: 'Zzyzx Nothing' },
        { id: 'ORG-globex' },
        { type: 'Organization', name: 'Zzyzx Nothing Either' },
        { id: 'ORG-initech' },
        { id: 'ORG-acme' },
      ];
      const paying = await t.token(60);
      const id = (await client.submit(paying, records)).json().job_id;
      const content = await client.waitFinal(paying, id);
      assert.equal(content.status, 'COMPLETE_WITH_FAILURES');
      assert.equal(content.jobs_completed, 6);
      const tokenId = (await t.runtime.services.tokens.find(paying))!.id;
      assert.equal(await t.runtime.services.tokens.balance(tokenId), 10);
      const results = await Promise.all(
        records.map(async (_, i) => (await client.get(paying, `/${id}/${i}`)).json()),
      );
      assert.deepEqual(
        results.map((r) => r.hits),
        [1, 0, 1, 0, 0, 0],
      );
      for (const i of [4, 5]) {
        assert.deepEqual(results[i].data, []);
        assert.ok(results[i].errors.includes(UNPAID_MESSAGE), `record ${i} says why`);
      }
      assert.equal(UNPAID_MESSAGE, 'Insufficient credits');
      for (const i of [0, 1, 2, 3]) assert.ok(!results[i].errors.includes(UNPAID_MESSAGE));
      assert.equal(content.total_results, 2);
    });
  });
});

/**
 * Enhance threads on PostgreSQL answer the requests queued for them together (one read
 * snapshot, their reads made at once: src/enhance/enhance-thread.ts). Through the real app, its
 * threads and a PostgreSQL database of its own: answers made in a batch are exactly the answers
 * made one at a time, on PostgreSQL and on SQLite, and every answer is charged as before.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type AnswerKind,
  createEnhanceThreads,
  type EncodedAnswer,
  parseEnhanceQuery,
} from '../src/enhance/index.ts';
import { sqliteFileFor } from '../src/storage/sqlite/index.ts';
import {
  ANSWER_SHAPES,
  assertBatchedChargesExact,
  comparable,
  type EnhanceRequest,
  sendEnhance,
  watchBatches,
} from './support/enhance-requests.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { createTempDatabase, type TempDatabase } from './support/temp-postgres.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');
const MORE_SOURCES = path.join(import.meta.dirname, 'fixtures', 'kg-small-more-sources.jsonl');

/** Every shape of answer, an id the graph does not have, an employer, and a duplicate. */
const REQUESTS: readonly EnhanceRequest[] = [
  ...ANSWER_SHAPES,
  { method: 'GET', url: '/kg/v3/enhance?type=Organization&id=ORG-nobody' },
  { method: 'GET', url: '/kg/v3/enhance?type=Person&name=Jane%20Doe&employer=Acme%20Robotics' },
  ANSWER_SHAPES[0],
];

describe('enhance threads on PostgreSQL answer queued requests together', () => {
  let database: TempDatabase;
  let postgres: TestRuntime;
  let sqlite: TestRuntime;
  let batches: number[];
  before(async () => {
    database = await createTempDatabase();
    // One thread: concurrent requests queue for it, and it takes them together.
    postgres = await startTestRuntime({ enhanceThreads: 1, databaseUrl: database.url });
    sqlite = await startTestRuntime({ enhanceThreads: 0, databaseUrl: undefined });
    for (const t of [postgres, sqlite])
      await loadFixtureGraph(t.runtime.storage.entities, FIXTURE, MORE_SOURCES);
    batches = watchBatches(postgres);
  });
  after(async () => {
    await postgres.close();
    await sqlite.close();
    await database.drop();
  });

  test('answers made in batches are the answers made one at a time, on both stores', async () => {
    const token = await postgres.token(null);
    const sqliteToken = await sqlite.token(null);
    const alone: Record<string, unknown>[] = [];
    for (const request of REQUESTS) {
      const res = await sendEnhance(postgres, token, request);
      assert.equal(res.statusCode, 200, `${request.url}: ${res.body}`);
      alone.push(comparable(res.json()));
      const embedded = await sendEnhance(sqlite, sqliteToken, request);
      assert.deepEqual(alone.at(-1), comparable(embedded.json()), `${request.url}: PostgreSQL vs SQLite`);
    }
    assert.deepEqual(
      batches,
      REQUESTS.map(() => 1),
      'one at a time, each request is read alone',
    );
    batches.length = 0;

    const together = await Promise.all(
      Array.from({ length: 66 }, (_, i) => sendEnhance(postgres, token, REQUESTS[i % REQUESTS.length])),
    );
    together.forEach((res, i) => {
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(comparable(res.json()), alone[i % REQUESTS.length], REQUESTS[i % REQUESTS.length].url);
    });
    assert.equal(batches.length, 66);
    assert.ok(
      batches.some((size) => size > 1),
      `some requests were answered together (batch sizes ${batches.join(',')})`,
    );
  });

  test('each answer of a batch is charged for its own matches, never beyond the balance', async () => {
    await assertBatchedChargesExact(postgres, batches);
  });
});

describe('batching threads over SQLite, against threads answering one at a time', () => {
  let sqlite: TestRuntime;
  before(async () => {
    sqlite = await startTestRuntime({ enhanceThreads: 0, databaseUrl: undefined });
    await loadFixtureGraph(sqlite.runtime.storage.entities, FIXTURE, MORE_SOURCES);
  });
  after(() => sqlite.close());

  test('a batch answers as one-at-a-time threads do, and a failing request fails alone', async () => {
    const store = { adapter: 'sqlite' as const, file: sqliteFileFor(sqlite.dataDir) };
    const tasks: { kind: AnswerKind; query: Record<string, unknown> }[] = [
      { kind: 'enhance', query: { type: 'Organization', name: 'Acme Robotics', size: '3' } },
      { kind: 'enhance', query: { type: 'Organization', id: 'ORG-acme', filter: '$.name[' } },
      { kind: 'enhance', query: { type: 'Person', name: 'Jane Doe', threshold: '0.1' } },
      { kind: 'combine', query: { type: 'Person', email: 'jane.doe@acme-robotics.example' } },
      { kind: 'enhance', query: { type: 'Organization', id: 'ORG-globex' } },
    ];
    const run = async (batch: boolean) => {
      const threads = createEnhanceThreads({ store, threads: 1, batch });
      try {
        return await Promise.allSettled(
          Array.from({ length: 40 }, (_, i) => {
            const { kind, query } = tasks[i % tasks.length];
            return threads.answer({ kind, request: parseEnhanceQuery(query, 'get'), queryCtx: { i } });
          }),
        );
      } finally {
        await threads.close();
      }
    };
    const alone = await run(false);
    const together = await run(true);
    together.forEach((outcome, i) => {
      const expected = alone[i];
      if (i % tasks.length === 1) {
        assert.equal(outcome.status, 'rejected');
        assert.equal(expected.status, 'rejected');
        assert.match(String((outcome as PromiseRejectedResult).reason), /filter/);
        return;
      }
      assert.equal(outcome.status, 'fulfilled', String((outcome as PromiseRejectedResult).reason));
      assert.equal(expected.status, 'fulfilled');
      const a = (outcome as PromiseFulfilledResult<EncodedAnswer>).value;
      const b = (expected as PromiseFulfilledResult<EncodedAnswer>).value;
      assert.deepEqual(a.body, b.body);
      assert.equal(a.matched, b.matched);
      assert.deepEqual(a.summary, b.summary);
    });
    assert.ok(together.some((o) => o.status === 'fulfilled' && o.value.batched > 1));
    assert.ok(alone.every((o) => o.status === 'rejected' || o.value.batched === 1));
  });
});

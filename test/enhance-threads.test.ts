import assert from 'node:assert/strict';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { importEntities } from '../src/import/index.ts';
import {
  ANSWER_SHAPES,
  assertBatchedChargesExact,
  comparable,
  type EnhanceRequest,
  sendEnhance,
  watchBatches,
} from './support/enhance-requests.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');
const MORE_SOURCES = path.join(import.meta.dirname, 'fixtures', 'kg-small-more-sources.jsonl');

/** Every shape of answer, and a search. */
const REQUESTS: readonly EnhanceRequest[] = [
  ...ANSWER_SHAPES,
  { method: 'GET', url: '/kg/v3/enhance?type=Organization&name=Acme&search=true' },
];

describe('enhance answered on threads', () => {
  let threaded: TestRuntime;
  let inline: TestRuntime;
  before(async () => {
    threaded = await startTestRuntime({ enhanceThreads: 2 });
    inline = await startTestRuntime({ enhanceThreads: 0 });
    for (const t of [threaded, inline])
      await loadFixtureGraph(t.runtime.storage.entities, FIXTURE, MORE_SOURCES);
  });
  after(async () => {
    await threaded.close();
    await inline.close();
  });

  test('the runtime has answering threads only when configured', async () => {
    assert.ok(threaded.runtime.services.enhanceThreads);
    assert.equal(inline.runtime.services.enhanceThreads, undefined);
  });

  test('threads answer exactly what the main thread answers, as JSON', async () => {
    const threadedToken = await threaded.token(null);
    const inlineToken = await inline.token(null);
    // Counts the answers the threads give (the service holds this very object).
    const threads = threaded.runtime.services.enhanceThreads!;
    const answer = threads.answer.bind(threads);
    let answered = 0;
    threads.answer = (task) => {
      answered++;
      return answer(task);
    };
    for (const request of REQUESTS) {
      const a = await sendEnhance(threaded, threadedToken, request);
      const b = await sendEnhance(inline, inlineToken, request);
      assert.equal(a.statusCode, 200, `${request.url}: ${a.body}`);
      assert.equal(b.statusCode, 200, `${request.url}: ${b.body}`);
      assert.match(String(a.headers['content-type']), /^application\/json/);
      assert.deepEqual(comparable(a.json()), comparable(b.json()), request.url);
    }
    assert.equal(answered, REQUESTS.length, 'every threaded answer came from a thread');
  });

  test("a thread's answer is sent as the very bytes the main thread writes, non-ASCII text included", async () => {
    const threadedToken = await threaded.token(null);
    const inlineToken = await inline.token(null);
    // Echoed in request_ctx: letters of two and three UTF-8 bytes, and one of four.
    const echoed: EnhanceRequest = {
      method: 'GET',
      url: `/kg/v3/enhance?type=Person&name=${encodeURIComponent('Zoë Müller')}&customId=${encodeURIComponent('№ 7 ✓ 𝄞')}`,
    };
    for (const request of [...REQUESTS, echoed]) {
      const a = await sendEnhance(threaded, threadedToken, request);
      const b = await sendEnhance(inline, inlineToken, request);
      assert.equal(a.statusCode, 200, `${request.url}: ${a.body}`);
      assert.equal(a.headers['content-type'], b.headers['content-type'], request.url);
      assert.equal(Number(a.headers['content-length']), a.rawPayload.length, request.url);
      const withoutVersion = (body: Buffer) => body.toString('utf8').replace(/"kgversion":"[^"]*"/, '');
      assert.equal(withoutVersion(a.rawPayload), withoutVersion(b.rawPayload), request.url);
    }
    const a = await sendEnhance(threaded, threadedToken, echoed);
    assert.match(a.body, /Zoë Müller/);
    assert.match(a.body, /№ 7 ✓ 𝄞/);
  });

  test('many concurrent requests each get their own answer', async () => {
    const token = await threaded.token(null);
    const urls = REQUESTS.filter((r) => r.method === 'GET');
    const sequential: Record<string, unknown>[] = [];
    for (const request of urls)
      sequential.push(comparable((await sendEnhance(threaded, token, request)).json()));
    const concurrent = await Promise.all(
      Array.from({ length: 60 }, (_, i) => sendEnhance(threaded, token, urls[i % urls.length])),
    );
    concurrent.forEach((res, i) => {
      assert.equal(res.statusCode, 200);
      assert.deepEqual(comparable(res.json()), sequential[i % urls.length]);
    });
  });

  test('a write made after the threads started is seen by the next request', async () => {
    const token = await threaded.token(null);
    const url = '/kg/v3/enhance?type=Organization&name=Quillfeather%20Ropeworks';
    const before = await sendEnhance(threaded, token, { method: 'GET', url });
    assert.equal(before.json().hits, 0);
    const line = { id: 'ORG-quill', type: 'Organization', name: 'Quillfeather Ropeworks' };
    await importEntities(threaded.runtime.storage.entities, Readable.from([JSON.stringify(line)]), {
      fileName: 'more.jsonl',
      workers: 0,
    });
    const after = await sendEnhance(threaded, token, { method: 'GET', url });
    assert.equal(after.json().hits, 1);
    assert.equal(after.json().data[0].entity.id, 'ORG-quill');
    assert.notEqual(after.json().kgversion, before.json().kgversion);
  });

  test('a bad filter is a 400 naming it, and the balance pays only for answers sent', async () => {
    const secret = await threaded.token(60);
    const id = (await threaded.runtime.services.tokens.find(secret))!.id;
    const bad = await sendEnhance(threaded, secret, {
      method: 'GET',
      url: `/kg/v3/enhance?type=Organization&id=ORG-acme&filter=${encodeURIComponent('$.name[')}`,
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().message, /filter/);
    const codes = (
      await Promise.all(
        Array.from({ length: 5 }, () =>
          sendEnhance(threaded, secret, {
            method: 'GET',
            url: '/kg/v3/enhance?type=Organization&id=ORG-globex',
          }),
        ),
      )
    ).map((r) => r.statusCode);
    assert.deepEqual(
      codes.toSorted((a, b) => a - b),
      [200, 200, 429, 429, 429],
    );
    assert.equal(await threaded.runtime.services.tokens.balance(id), 10);
  });
});

describe('on SQLite, an enhance thread answers the requests queued for it together', () => {
  let threaded: TestRuntime;
  let inline: TestRuntime;
  let batches: number[];
  before(async () => {
    // One thread: concurrent requests queue for it, and it takes them together (the default).
    threaded = await startTestRuntime({ enhanceThreads: 1 });
    inline = await startTestRuntime({ enhanceThreads: 0 });
    for (const t of [threaded, inline])
      await loadFixtureGraph(t.runtime.storage.entities, FIXTURE, MORE_SOURCES);
    batches = watchBatches(threaded);
  });
  after(async () => {
    await threaded.close();
    await inline.close();
  });

  test('answers made in batches are the answers the main thread makes', async () => {
    const inlineToken = await inline.token(null);
    const expected: Record<string, unknown>[] = [];
    for (const request of REQUESTS)
      expected.push(comparable((await sendEnhance(inline, inlineToken, request)).json()));
    const token = await threaded.token(null);
    const together = await Promise.all(
      Array.from({ length: 63 }, (_, i) => sendEnhance(threaded, token, REQUESTS[i % REQUESTS.length])),
    );
    together.forEach((res, i) => {
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        comparable(res.json()),
        expected[i % REQUESTS.length],
        REQUESTS[i % REQUESTS.length].url,
      );
    });
    assert.equal(batches.length, 63);
    assert.ok(
      batches.some((size) => size > 1),
      `some requests were answered together (batch sizes ${batches.join(',')})`,
    );
  });

  test('each answer of a batch is charged for its own matches, never beyond the balance', async () => {
    await assertBatchedChargesExact(threaded, batches);
  });
});

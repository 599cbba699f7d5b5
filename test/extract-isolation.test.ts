/**
 * Extraction cannot stall the service (issue 24 §8, issue 28 items 1 and 6): heavy Custom API
 * selectors run in the extraction threads and end at their time budget with a clear 422,
 * hostile regular expressions run in linear time, deeply nested pages extract normally, and
 * `/healthz` keeps answering at once meanwhile.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { REDOS_CORPUS } from '../src/user-pattern/index.ts';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const BUDGET_MS = 1_500;

/**
 * A page of `chains` chains of 400 nested `<div>`s, each with a paragraph: every element's
 * subtree is deep, so `*:has(*:contains(...))` computes the text of thousands of descendants
 * for each of thousands of elements (minutes of work in one thread).
 */
function heavyPage(chains: number): string {
  const chain = `${'<div><p>lorem ipsum dolor sit amet</p>'.repeat(400)}${'</div>'.repeat(400)}`;
  return `<html><body><article><h1>Heavy</h1>${chain.repeat(chains)}</article></body></html>`;
}

describe('extraction isolation', () => {
  let t: TestRuntime;
  let server: FixtureServer;
  let token: string;
  before(async () => {
    t = await startTestRuntime({ workerThreads: 2 }, { extraction: { budgetMs: BUDGET_MS } });
    server = await startFixtureServer();
    server.route('/heavy', respond.body(heavyPage(60), { contentType: 'text/html' }));
    token = await t.token();
  });
  after(async () => {
    await t.close();
    await server.close();
  });

  /** Latencies of /healthz, one request after another, until `done` settles. */
  async function healthzWhile(done: Promise<unknown>): Promise<number[]> {
    const latencies: number[] = [];
    let finished = false;
    done.finally(() => {
      finished = true;
    });
    while (!finished) {
      const started = performance.now();
      const res = await t.runtime.app.inject({ method: 'GET', url: '/healthz' });
      latencies.push(performance.now() - started);
      assert.equal(res.statusCode, 200);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return latencies;
  }

  test('heavy previews end at their budget with a 422 and never hold /healthz', async () => {
    const preview = () =>
      t.runtime.app.inject({
        method: 'POST',
        url: `/v3/custom/preview?token=${token}`,
        payload: {
          api: '/api/heavy',
          urlPattern: 'heavy',
          url: server.url('/heavy'),
          // About 8 s of work in one thread on this page (measured: 0.7 s for 5 chains).
          rules: [
            { name: 'hit', selector: '*:has(*:contains(zzz))' },
            { name: 'text', selector: '*:contains(zzz)' },
          ],
        },
      });
    // Fastify compiles its routes on the first request: not part of what is measured.
    await t.runtime.app.inject({ method: 'GET', url: '/healthz' });
    const started = performance.now();
    const all = Promise.all([preview(), preview(), preview()]);
    const latencies = await healthzWhile(all);
    const answers = await all;
    for (const res of answers) {
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().errorCode, 422);
      assert.match(res.json().error, /longer than its 1\.5 s budget/);
    }
    // Two threads: the third preview waited for one of them.
    assert.ok(performance.now() - started >= 2 * BUDGET_MS - 100);
    assert.ok(t.runtime.services.extractionThreads.replaced >= 3);
    // The event loop was never held by a page: in-thread, a /healthz behind one of these
    // previews would wait minutes (4.7 s was reported for a smaller case). A garbage collection,
    // a thread start or a loaded CI machine may still slow one down; the bench measures the p99
    // (target 50 ms), this only that nothing waits for a page.
    assert.ok(Math.max(...latencies) < 3_000, `slowest /healthz ${Math.max(...latencies).toFixed(0)} ms`);

    // The replaced threads work: a normal extraction answers.
    const ok = await t.runtime.app.inject({
      method: 'GET',
      url: `/v3/article?token=${token}&url=${encodeURIComponent(server.url('/pages/article.html'))}`,
    });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().objects[0].title, 'Quarry Lake Reopens After Restoration');
  });

  test('hostile patterns in urlPattern, replace filters and :matches() answer at once', async () => {
    for (const { pattern, input } of REDOS_CORPUS.slice(0, 8)) {
      const saved = await t.runtime.app.inject({
        method: 'POST',
        url: `/v3/custom?token=${token}`,
        payload: {
          api: '/api/redos',
          urlPattern: pattern,
          rules: [
            { name: 'm', selector: `p:matches(${pattern})` },
            { name: 'r', selector: 'p', filters: [{ type: 'replace', args: [pattern, 'x'] }] },
          ],
        },
      });
      assert.equal(saved.statusCode, 200, saved.body);
      const html = `<html><body><p>${input}</p></body></html>`;
      const started = performance.now();
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: `/v3/redos?token=${token}&url=${encodeURIComponent(`https://example.test/${input}`)}`,
        headers: { 'content-type': 'text/html' },
        payload: html,
      });
      assert.equal(res.statusCode, 200, res.body);
      // Backtracking would take hours on these inputs; 5 s leaves room for a loaded machine.
      assert.ok(performance.now() - started < 5_000, pattern);
    }
  });

  test('10,000 nested <div>s extract normally with every API', async () => {
    const html = `<html><body><article><h1>Deep</h1>${'<div>'.repeat(10_000)}<p>Deep text, written far below the surface of the page, still counts.</p>${'</div>'.repeat(10_000)}</article></body></html>`;
    for (const api of ['analyze', 'article', 'product', 'organization', 'person']) {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: `/v3/${api}?token=${token}&url=${encodeURIComponent('https://example.test/deep')}`,
        headers: { 'content-type': 'text/html' },
        payload: html,
      });
      assert.equal(res.statusCode, 200, `${api}: ${res.body.slice(0, 200)}`);
    }
    const article = await t.runtime.app.inject({
      method: 'POST',
      url: `/v3/article?token=${token}&url=${encodeURIComponent('https://example.test/deep')}`,
      headers: { 'content-type': 'text/html' },
      payload: html,
    });
    assert.equal(article.json().objects[0].title, 'Deep');
    assert.match(article.json().objects[0].text, /Deep text, written far below/);
  });
});

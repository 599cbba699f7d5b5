/**
 * Issue 27 §2: `GET /metrics`. Real traffic (enhance requests, a small bulk job, a crawl of a
 * local fixture site) moves every counter by exactly what was done, and the whole scrape passes
 * the real `promtool check metrics` (Debian's `prometheus` package; `.ci/run` installs it).
 * `QUARRY_METRICS_TOKEN` closes the endpoint to anyone without that secret.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bulkClient, sampleRecords } from './support/bulk-client.ts';
import {
  type CrawlTestRuntime,
  articlePage,
  createJob,
  startCrawlRuntime,
  waitForStatus,
} from './support/crawl-runtime.ts';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import { loadFixtureGraph } from './support/load-graph.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');

/** `promtool check metrics` over `text`; fails the test, saying how to install it, when absent. */
function promtoolCheck(text: string): { status: number; output: string } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT') {
    assert.fail(
      "promtool is not installed: it comes with Debian's prometheus package (apt-get update && apt-get install -y prometheus); .ci/run installs it",
    );
  }
  return { status: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}

/** The samples of a scrape: `name{label="v",…}` (labels sorted) → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const labels = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, name, value]) => `${name}="${value}"`)
      .sort();
    out.set(`${match[1]}{${labels.join(',')}}`, Number(match[3]));
  }
  return out;
}

/** One sample's value, 0 when absent. */
function value(scrape: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  const key = Object.entries(labels)
    .map(([label, v]) => `${label}="${v}"`)
    .sort()
    .join(',');
  return scrape.get(`${name}{${key}}`) ?? 0;
}

describe('GET /metrics', () => {
  let site: FixtureServer;
  let t: CrawlTestRuntime;

  before(async () => {
    site = await startFixtureServer();
    site.route('/robots.txt', respond.text('User-agent: *\nDisallow: /private/\n'));
    site.route('/a/1', respond.html(articlePage('Article one')));
    site.route('/private/x', respond.html(articlePage('Private')));
    let flaky = 0;
    site.route('/flaky', (request, response, url) =>
      (++flaky === 1 ? respond.html('<h1>oops</h1>', 500) : respond.html(articlePage('Flaky')))(
        request,
        response,
        url,
      ),
    );
    t = await startCrawlRuntime();
    await loadFixtureGraph(t.runtime.storage.entities, FIXTURE);
  });
  after(async () => {
    await t?.close();
    await site?.close();
  });

  async function scrape(): Promise<{ text: string; values: Map<string, number> }> {
    const res = await t.runtime.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return { text: res.body, values: samples(res.body) };
  }

  test('counters move by exactly the traffic driven, and promtool accepts the scrape', async () => {
    const app = t.runtime.app;
    const before = (await scrape()).values;

    // Enhance: three answers, charged per match.
    const enhancer = await t.runtime.services.tokens.create({ credits: 100_000 });
    const enhanceToken = enhancer.secret;
    const queries = ['Acme Robotics', 'Globex', 'Zzyzx Bakery Nowhere'];
    let candidates = 0;
    const bestScores: number[] = [];
    let matched = 0;
    for (const name of queries) {
      const res = await app.inject({
        method: 'GET',
        url: `/kg/v3/enhance?token=${enhanceToken}&type=Organization&name=${encodeURIComponent(name)}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      const scores = Object.values(body.searchInfo as Record<string, { mlScore: number }>).map(
        (c) => c.mlScore,
      );
      candidates += scores.length;
      if (scores.length > 0) bestScores.push(Math.max(...scores));
      matched += body.hits;
    }
    assert.ok(matched >= 2, 'the fixture graph answers Acme and Globex');
    const enhanceCredits = 100_000 - ((await t.runtime.services.tokens.balance(enhancer.record.id)) ?? 0);
    assert.equal(enhanceCredits, matched * t.runtime.config.credits.perMatch);

    // A bulk job whose token pays for two matches: 4 of its 6 records match, 2 stay unpaid (failed).
    const payer = await t.runtime.services.tokens.create({ credits: 2 * t.runtime.config.credits.perMatch });
    const bulk = bulkClient(app);
    const jobId = (await bulk.submit(payer.secret, sampleRecords(6))).json().job_id as string;
    const final = await bulk.waitFinal(payer.secret, jobId);
    assert.equal(final.status, 'COMPLETE_WITH_FAILURES');
    assert.equal((await t.runtime.services.tokens.balance(payer.record.id)) ?? -1, 0);

    // A crawl: robots.txt, a page, a page robots.txt rules out, a 404, and a 500 then 200.
    const token = (await t.runtime.services.tokens.create({ credits: null })).secret;
    await createJob(t.runtime, token, {
      name: 'metrics-site',
      apiUrl: '/v3/article',
      urls: ['/a/1', '/private/x', '/missing', '/flaky'].map((p) => site.url(p)).join(' '),
      crawlDelay: 0,
    });
    await waitForStatus(t.runtime, token, 'metrics-site', [9]);
    assert.equal(site.count('/flaky'), 2);
    assert.equal(site.count('/private/x'), 0);

    const { text, values: now } = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      value(now, name, labels) - value(before, name, labels);

    const enhanceRoute = { method: 'GET', route: '/kg/v3/enhance', status: '200' };
    assert.equal(delta('quarry_http_requests_total', enhanceRoute), queries.length);
    assert.equal(
      delta('quarry_http_request_duration_seconds_count', { method: 'GET', route: '/kg/v3/enhance' }),
      queries.length,
    );
    assert.equal(delta('quarry_match_candidates_count', { kind: 'enhance' }), queries.length);
    assert.equal(delta('quarry_match_candidates_sum', { kind: 'enhance' }), candidates);
    assert.equal(delta('quarry_match_best_score_count', { kind: 'enhance' }), bestScores.length);
    assert.ok(
      Math.abs(
        delta('quarry_match_best_score_sum', { kind: 'enhance' }) - bestScores.reduce((a, b) => a + b, 0),
      ) < 1e-9,
    );
    for (const le of ['0.5', '0.9', '+Inf']) {
      const expected = bestScores.filter((s) => le === '+Inf' || s <= Number(le)).length;
      assert.equal(delta('quarry_match_best_score_bucket', { kind: 'enhance', le }), expected, `le=${le}`);
    }
    assert.equal(delta('quarry_credits_charged_total', { operation: 'enhance' }), enhanceCredits);
    assert.equal(
      delta('quarry_credits_charged_total', { operation: 'bulk' }),
      2 * t.runtime.config.credits.perMatch,
    );
    assert.equal(delta('quarry_bulk_records_total', { result: 'answered' }), 4);
    assert.equal(delta('quarry_bulk_records_total', { result: 'failed' }), 2);

    assert.equal(delta('quarry_crawl_pages_total', { outcome: 'processed' }), 2);
    assert.equal(delta('quarry_crawl_pages_total', { outcome: 'robots_disallowed' }), 1);
    assert.equal(delta('quarry_crawl_pages_total', { outcome: 'fetch_failed' }), 1);
    assert.equal(delta('quarry_crawl_pages_total', { outcome: 'retry' }), 1);
    // /a/1, /missing and /flaky twice, then robots.txt: every request the site saw, all answered.
    assert.equal(delta('quarry_fetch_duration_seconds_count', { purpose: 'crawl', result: 'response' }), 4);
    assert.equal(delta('quarry_fetch_duration_seconds_count', { purpose: 'robots', result: 'response' }), 1);
    const seen = ['/robots.txt', '/a/1', '/missing', '/flaky'].reduce((n, p) => n + site.count(p), 0);
    assert.equal(seen, 5);

    // Nothing waits any more; process and event-loop metrics are there.
    assert.equal(value(now, 'quarry_bulk_records_pending'), 0);
    assert.equal(value(now, 'quarry_crawl_urls_pending'), 0);
    assert.ok(value(now, 'process_resident_memory_bytes') > 0);
    assert.ok(now.has('nodejs_eventloop_lag_p99_seconds{}'));

    const check = promtoolCheck(text);
    assert.equal(check.status, 0, `promtool check metrics:\n${check.output}`);
    assert.equal(check.output.trim(), '', `promtool's lint found problems:\n${check.output}`);
  });

  test('the queue depth counts the records of a running job', async () => {
    const token = (await t.runtime.services.tokens.create({ credits: null })).secret;
    const bulk = bulkClient(t.runtime.app);
    // Stopped before it runs: the runner is given no time, so the records are counted pending.
    await t.runtime.services.bulk.close();
    const jobId = (await bulk.submit(token, sampleRecords(7))).json().job_id as string;
    const { values } = await scrape();
    assert.equal(value(values, 'quarry_bulk_jobs_running'), 1, jobId);
    assert.equal(value(values, 'quarry_bulk_records_pending'), 7);
  });
});

describe('GET /metrics with QUARRY_METRICS_TOKEN', () => {
  let t: CrawlTestRuntime;
  before(async () => {
    t = await startCrawlRuntime({ config: { metricsToken: 'scrape-secret' }, start: false });
  });
  after(async () => t?.close());

  test('401 without the secret or with another (an API token too), 200 with it', async () => {
    const apiToken = (await t.runtime.services.tokens.create({ credits: null })).secret;
    const get = (headers: Record<string, string>, query = '') =>
      t.runtime.app.inject({ method: 'GET', url: `/metrics${query}`, headers });
    const missing = await get({});
    assert.equal(missing.statusCode, 401);
    assert.doesNotMatch(missing.body, /quarry_/);
    assert.equal((await get({ authorization: 'Bearer wrong-secret' })).statusCode, 401);
    assert.equal((await get({}, `?token=${apiToken}`)).statusCode, 401);
    const bearer = await get({ authorization: 'Bearer scrape-secret' });
    assert.equal(bearer.statusCode, 200);
    assert.match(bearer.body, /^# HELP quarry_http_requests_total/m);
    assert.equal((await get({}, '?token=scrape-secret')).statusCode, 200);
  });
});

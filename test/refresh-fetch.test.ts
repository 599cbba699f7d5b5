/**
 * The page fetching of refresh and search (`PoliteOriginFetcher`) against real local servers,
 * through the real SSRF-safe fetcher with a policy that allows loopback only: politeness per
 * host, priorities, robots.txt at every redirect hop, retries, and every way a page fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createFetcher } from '../src/extract/index.ts';
import { PoliteOriginFetcher } from '../src/refresh/index.ts';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';

const PAGE = '<!DOCTYPE html><html><head><title>Page</title></head><body><p>hello</p></body></html>';
const FAST_RETRY = { maxRetries: 3, baseDelayMs: 20, maxDelayMs: 200 };

describe('PoliteOriginFetcher', () => {
  let one: FixtureServer;
  let two: FixtureServer;
  const fetcher = createFetcher({
    allowPrivateNetwork: false,
    allowedAddresses: ['127.0.0.0/8'],
    maxBodyBytes: 64 * 1024,
  });
  before(async () => {
    [one, two] = await Promise.all([startFixtureServer(), startFixtureServer()]);
    for (const site of [one, two]) {
      for (let i = 0; i < 6; i++) site.route(`/p${i}`, respond.html(PAGE));
    }
  });
  after(async () => {
    await fetcher.close();
    await Promise.all([one.close(), two.close()]);
  });

  const make = (crawlDelayMs: number) =>
    new PoliteOriginFetcher({ fetcher, crawlDelayMs, retry: FAST_RETRY, timeoutMs: 2_000 });

  /** Gaps between consecutive requests the server saw for `paths`, ms. */
  const gaps = (site: FixtureServer, paths: readonly string[]) => {
    const times = site
      .requests()
      .filter((r) => paths.includes(r.path))
      .map((r) => r.atPrecise)
      .sort((x, y) => x - y);
    return times.slice(1).map((time, i) => time - times[i]);
  };

  test('one request at a time per host, at least the delay apart; hosts do not wait for each other', async () => {
    one.clearLog();
    two.clearLog();
    const polite = make(80);
    const paths = Array.from({ length: 6 }, (_, i) => `/p${i}`);
    const pages = await Promise.all([
      ...paths.map((p) => polite.fetchPage(one.url(p))),
      ...paths.map((p) => polite.fetchPage(two.url(p))),
    ]);
    assert.ok(pages.every((p) => p.ok));
    for (const site of [one, two]) {
      const seen = gaps(site, ['/robots.txt', ...paths]);
      assert.equal(seen.length, 6, 'robots.txt and six pages');
      for (const gap of seen) assert.ok(gap >= 80, `requests to one host ${gap.toFixed(1)} ms apart`);
    }
    const firstOfTwo = Math.min(...two.requests().map((r) => r.atPrecise));
    const lastOfOne = Math.max(...one.requests().map((r) => r.atPrecise));
    assert.ok(firstOfTwo < lastOfOne, 'the second host was fetched while the first one waited');
    assert.deepEqual(polite.stats, { fetched: 12, failed: 0 });
  });

  test('a person waiting goes before bulk work queued at the same host', async () => {
    one.clearLog();
    const polite = make(40);
    await polite.fetchPage(one.url('/p0'), { priority: 'bulk' });
    const bulk = [1, 2, 3, 4].map((i) => polite.fetchPage(one.url(`/p${i}`), { priority: 'bulk' }));
    const person = polite.fetchPage(one.url('/p5'), { priority: 'interactive' });
    await Promise.all([...bulk, person]);
    const order = one
      .requests()
      .map((r) => r.path)
      .filter((p) => p !== '/robots.txt');
    assert.equal(order[0], '/p0');
    assert.ok(order.indexOf('/p5') <= 2, `the interactive page came early: ${order.join(' ')}`);
  });

  test('robots.txt: a disallowed page is never requested, nor one a redirect leads to', async () => {
    const site = await startFixtureServer();
    try {
      site.route('/robots.txt', respond.text('User-agent: *\nDisallow: /private\n'));
      site.route('/private/page', respond.html(PAGE));
      one.route('/to-private', respond.redirect(site.url('/private/page')));
      const polite = make(0);
      const direct = await polite.fetchPage(site.url('/private/page'));
      assert.equal(direct.ok, false);
      assert.equal(!direct.ok && direct.reason, 'robots');
      const redirected = await polite.fetchPage(one.url('/to-private'));
      assert.equal(!redirected.ok && redirected.reason, 'robots');
      assert.match(
        !redirected.ok ? redirected.message : '',
        /robots\.txt disallows it \(redirected to http:\/\/127\.0\.0\.1:\d+\/private\/page\)/,
      );
      assert.equal(site.count('/private/page'), 0);
      assert.equal(one.count('/to-private'), 1);
    } finally {
      await site.close();
    }
  });

  test('a robots.txt Crawl-delay raises the host delay', async () => {
    const site = await startFixtureServer();
    try {
      site.route('/robots.txt', respond.text('User-agent: *\nCrawl-delay: 0.25\n'));
      for (let i = 0; i < 3; i++) site.route(`/c${i}`, respond.html(PAGE));
      const polite = make(10);
      await Promise.all([0, 1, 2].map((i) => polite.fetchPage(site.url(`/c${i}`))));
      for (const gap of gaps(site, ['/c0', '/c1', '/c2'])) assert.ok(gap >= 250, `${gap.toFixed(1)} ms`);
    } finally {
      await site.close();
    }
  });

  test('transient failures are tried again; others fail at once with a message', async () => {
    let calls = 0;
    one.route('/flaky', (request, response, url) => {
      calls++;
      if (calls < 3) respond.body('busy', { status: 503 })(request, response, url);
      else respond.html(PAGE)(request, response, url);
    });
    one.route('/pdf', respond.body('%PDF-1.4', { contentType: 'application/pdf' }));
    one.route('/big', respond.html(`<html><body>${'x'.repeat(200 * 1024)}</body></html>`));
    one.route('/always-503', respond.body('down', { status: 503 }));
    const polite = make(0);
    const flaky = await polite.fetchPage(one.url('/flaky'));
    assert.equal(flaky.ok, true);
    assert.equal(flaky.requests, 3);

    const cases: Array<[string, string, RegExp]> = [
      [one.url('/status/404'), 'http_status', /^HTTP 404$/],
      [one.url('/always-503'), 'http_status', /^HTTP 503$/],
      [one.url('/pdf'), 'not_html', /not HTML \(Content-Type: application\/pdf\)/],
      [one.url('/big'), 'too_large', /page too large/],
      [one.url('/redirect/loop/a'), 'redirects', /redirect loop/],
      [one.url('/redirect/chain/7'), 'redirects', /more than 5 redirects/],
      ['http://10.1.2.3/admin', 'refused', /refused address/],
      ['http://169.254.169.254/latest/meta-data/', 'refused', /refused address/],
      ['http://[::1]:9/', 'refused', /refused address/],
      ['ftp://127.0.0.1/file', 'invalid_url', /only http and https/],
      ['not a url', 'invalid_url', /not a valid absolute URL/],
    ];
    for (const [url, reason, message] of cases) {
      const page = await polite.fetchPage(url);
      assert.equal(page.ok, false, url);
      assert.equal(!page.ok && page.reason, reason, url);
      assert.match(!page.ok ? page.message : '', message, url);
    }
    assert.equal(one.count('/always-503'), 4, 'one try and three retries');
  });

  test('a deadline stops waiting for a busy host', async () => {
    const polite = make(400);
    await polite.fetchPage(two.url('/p0'));
    const started = Date.now();
    const late = await polite.fetchPage(two.url('/p1'), { deadline: Date.now() + 50 });
    assert.equal(late.ok, false);
    assert.equal(!late.ok && late.reason, 'timeout');
    assert.ok(Date.now() - started < 400, 'it did not wait for its turn past the deadline');
  });
});

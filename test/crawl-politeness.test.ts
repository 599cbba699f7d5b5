/**
 * A crawl never oversteps robots.txt, even through redirects, and is polite per host across
 * every job (issue 24 §2, §3): each redirect hop is checked against its own origin's
 * robots.txt before it is requested, and two jobs on one host share its crawl delay.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import {
  articlePage,
  type CrawlTestRuntime,
  createJob,
  startCrawlRuntime,
  waitForStatus,
} from './support/crawl-runtime.ts';

describe('robots.txt on every redirect hop, politeness per host', () => {
  let t: CrawlTestRuntime;
  let token: string;
  let site: FixtureServer;
  let other: FixtureServer;

  before(async () => {
    site = await startFixtureServer();
    other = await startFixtureServer();
    site.route('/robots.txt', respond.text('User-agent: *\nDisallow: /private/\n'));
    other.route('/robots.txt', respond.text('User-agent: *\nDisallow: /closed/\n'));
    site.route('/private/page', respond.html(articlePage('Private')));
    site.route('/to-private', respond.redirect('/private/page', 302));
    site.route('/to-other-closed', respond.redirect(other.url('/closed/page'), 301));
    site.route('/to-other-open', respond.redirect(other.url('/open/page'), 301));
    other.route('/closed/page', respond.html(articlePage('Closed')));
    other.route('/open/page', respond.html(articlePage('Open')));
    t = await startCrawlRuntime();
    token = await t.token();
  });
  after(async () => {
    await t.close();
    await site.close();
    await other.close();
  });

  async function report(name: string): Promise<Map<string, Record<string, unknown>>> {
    const res = await t.runtime.app.inject({
      method: 'GET',
      url: `/v3/bulk/data?token=${token}&name=${name}&type=urls&format=json`,
    });
    assert.equal(res.statusCode, 200, res.body);
    return new Map(
      res.json().map((line: Record<string, unknown>) => [new URL(String(line.url)).pathname, line]),
    );
  }

  test('a redirect to a disallowed page, on the same host or another, is never followed', async () => {
    await createJob(t.runtime, token, {
      name: 'hops',
      apiUrl: '/v3/article',
      urls: ['/to-private', '/to-other-closed', '/to-other-open'].map((p) => site.url(p)).join(' '),
      crawlDelay: 0,
    });
    const done = await waitForStatus(t.runtime, token, 'hops', [9]);
    assert.equal(site.count('/private/page'), 0, 'same-host disallowed hop not fetched');
    assert.equal(other.count('/closed/page'), 0, 'cross-host disallowed hop not fetched');
    assert.equal(other.count('/open/page'), 1);
    // The other origin's robots.txt was read before its first hop was requested.
    const otherLog = other.requests();
    assert.equal(otherLog[0].path, '/robots.txt');
    const lines = await report('hops');
    assert.equal(lines.get('/to-private')?.status, 'robots_disallowed');
    assert.match(
      String(lines.get('/to-private')?.error),
      /Redirected to .*\/private\/page: Disallowed by robots\.txt/,
    );
    assert.equal(lines.get('/to-other-closed')?.status, 'robots_disallowed');
    assert.equal(lines.get('/to-other-open')?.status, 'processed');
    // The first request of each was made (it answered with the redirect): one attempt each.
    assert.equal(lines.get('/to-private')?.attempts, 1);
    assert.equal(done.pageCrawlAttempts, 3);
    assert.equal(done.pageProcessSuccesses, 1);
  });

  test('two jobs on one host share its crawl delay: the host sees requests that far apart', async () => {
    const shared = await startFixtureServer();
    try {
      shared.route('/robots.txt', respond.text('User-agent: *\nAllow: /\n'));
      for (let i = 0; i < 6; i++) shared.route(`/s/${i}`, respond.html(articlePage(`S${i}`)));
      for (const [name, pages] of [
        ['polite-a', [0, 1, 2]],
        ['polite-b', [3, 4, 5]],
      ] as const) {
        await createJob(t.runtime, token, {
          name,
          apiUrl: '/v3/article',
          urls: pages.map((i) => shared.url(`/s/${i}`)).join(' '),
          crawlDelay: 0.25,
        });
      }
      await waitForStatus(t.runtime, token, 'polite-a', [9]);
      await waitForStatus(t.runtime, token, 'polite-b', [9]);
      const arrivals = shared
        .requests()
        .filter((r) => r.path.startsWith('/s/'))
        .map((r) => r.at);
      assert.equal(arrivals.length, 6);
      for (let i = 1; i < arrivals.length; i++) {
        assert.ok(arrivals[i] - arrivals[i - 1] >= 245, `gap ${arrivals[i] - arrivals[i - 1]} ms`);
      }
    } finally {
      await shared.close();
    }
  });
});

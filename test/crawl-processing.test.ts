/**
 * Bulk extract jobs processing a known local site: exact counters, per-URL report, downloads,
 * politeness, robots.txt, retries, rounds, webhooks, custom headers and SSRF refusal.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import {
  articlePage,
  type CrawlTestRuntime,
  createJob,
  jobNamed,
  startCrawlRuntime,
  waitFor,
  waitForStatus,
} from './support/crawl-runtime.ts';

describe('bulk extract job on a known site', () => {
  let site: FixtureServer;
  let t: CrawlTestRuntime;
  let token: string;
  let flakyCalls = 0;

  before(async () => {
    site = await startFixtureServer();
    site.route('/robots.txt', respond.text('User-agent: *\nDisallow: /private/\n'));
    for (let i = 1; i <= 5; i++) site.route(`/a/${i}`, respond.html(articlePage(`Article ${i}`)));
    site.route('/moved', respond.redirect('/a/1?from=moved', 301));
    site.route('/private/secret', respond.html(articlePage('Secret')));
    site.route('/slow', respond.delay(300, respond.html(articlePage('Slow'))));
    site.route('/flaky', (request, response, url) => {
      flakyCalls++;
      const handler =
        flakyCalls === 1 ? respond.html('<h1>oops</h1>', 500) : respond.html(articlePage('Flaky'));
      return handler(request, response, url);
    });
    site.route('/down', respond.html('<h1>down</h1>', 503));
    site.route('/skip/x', respond.html(articlePage('Skipped')));
    site.route(
      '/data.bin',
      respond.body(Buffer.from([0, 1, 2, 3]), { contentType: 'application/octet-stream' }),
    );
    t = await startCrawlRuntime();
    token = await t.token();
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  const paths = [
    '/a/1',
    '/a/2',
    '/a/3',
    '/a/4',
    '/a/5',
    '/missing',
    '/moved',
    '/private/secret',
    '/slow',
    '/flaky',
    '/down',
    '/skip/x',
    '/data.bin',
  ];

  test('counters, report and downloads are exact', async () => {
    const urls = [...paths.map((p) => site.url(p)), 'notaurl', site.url('/a/1')].join(' ');
    const created = await createJob(t.runtime, token, {
      name: 'known-site',
      apiUrl: '/v3/article',
      urls,
      crawlDelay: 0,
      pageProcessPattern: '/a/||/moved||/slow||/flaky||/data',
    });
    assert.equal(created.urlsHarvested, 13);
    assert.ok([0, 7].includes(created.jobStatus.status));
    const done = await waitForStatus(t.runtime, token, 'known-site', [9]);
    assert.deepEqual(
      {
        pageCrawlAttempts: done.pageCrawlAttempts,
        pageCrawlSuccesses: done.pageCrawlSuccesses,
        pageCrawlSuccessesThisRound: done.pageCrawlSuccessesThisRound,
        pageProcessAttempts: done.pageProcessAttempts,
        pageProcessSuccesses: done.pageProcessSuccesses,
        pageProcessSuccessesThisRound: done.pageProcessSuccessesThisRound,
        objectsFound: done.objectsFound,
        urlsHarvested: done.urlsHarvested,
        roundsCompleted: done.roundsCompleted,
      },
      {
        // 5 articles + 404 + redirect + slow + 2 (500 then 200) + 4 (503 ×4) + skipped + binary
        pageCrawlAttempts: 16,
        pageCrawlSuccesses: 10,
        pageCrawlSuccessesThisRound: 10,
        pageProcessAttempts: 9,
        pageProcessSuccesses: 8,
        pageProcessSuccessesThisRound: 8,
        objectsFound: 8,
        urlsHarvested: 13,
        roundsCompleted: 1,
      },
    );
    assert.equal(done.jobStatus.message, 'Job has completed and no repeat is scheduled.');
    assert.ok(done.jobCompletionTimeUTC >= done.jobCreationTimeUTC);
    assert.equal(site.count('/private/secret'), 0);
    assert.equal(site.count('/flaky'), 2);
    assert.equal(site.count('/down'), 4);
    assert.equal(site.count('/robots.txt'), 1);
    assert.equal(site.count('/a/2'), 1);

    const report = await t.runtime.app.inject({
      method: 'GET',
      url: `/v3/bulk/data?token=${token}&name=known-site&type=urls&format=json`,
    });
    assert.equal(report.statusCode, 200);
    const byPath = new Map<string, Record<string, unknown>>(
      report.json().map((line: Record<string, unknown>) => [String(line.url).replace(site.origin, ''), line]),
    );
    assert.equal(byPath.size, 14);
    assert.deepEqual(
      Object.fromEntries(
        [...byPath].map(([path, line]) => [path, [line.status, line.httpStatus, line.attempts]]),
      ),
      {
        '/a/1': ['processed', 200, 1],
        '/a/2': ['processed', 200, 1],
        '/a/3': ['processed', 200, 1],
        '/a/4': ['processed', 200, 1],
        '/a/5': ['processed', 200, 1],
        '/missing': ['fetch_failed', 404, 1],
        '/moved': ['processed', 200, 1],
        '/private/secret': ['robots_disallowed', null, 0],
        '/slow': ['processed', 200, 1],
        '/flaky': ['processed', 200, 2],
        '/down': ['fetch_failed', 503, 4],
        '/skip/x': ['not_processed', 200, 1],
        '/data.bin': ['process_failed', 200, 1],
        notaurl: ['invalid_url', null, 0],
      },
    );
    assert.equal(byPath.get('/moved')?.resolvedPageUrl, site.url('/a/1?from=moved'));
    assert.match(String(byPath.get('/private/secret')?.error), /robots\.txt/);
    assert.match(String(byPath.get('/data.bin')?.error), /not HTML/);

    const data = await t.runtime.app.inject({
      method: 'GET',
      url: done.downloadJson.replace(/^https?:\/\/[^/]+/, ''),
    });
    assert.equal(data.statusCode, 200);
    assert.match(String(data.headers['content-type']), /application\/json/);
    const objects = data.json() as Array<Record<string, unknown>>;
    assert.equal(objects.length, 8);
    for (const object of objects) {
      assert.equal(object.type, 'article');
      assert.equal(typeof object.timestamp, 'number');
      assert.ok(String(object.pageUrl).startsWith(site.origin));
    }
    const moved = objects.find((o) => o.pageUrl === site.url('/moved'));
    assert.equal(moved?.resolvedPageUrl, site.url('/a/1?from=moved'));
    assert.equal(objects.find((o) => o.pageUrl === site.url('/a/3'))?.title, 'Article 3');

    const csv = await t.runtime.app.inject({
      method: 'GET',
      url: done.downloadUrls.replace(/^https?:\/\/[^/]+/, ''),
    });
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /text\/csv/);
    const rows = parse(csv.body) as string[][];
    assert.deepEqual(rows[0].slice(0, 4), ['url', 'status', 'httpStatus', 'attempts']);
    assert.equal(rows.length, 15);

    const objectsCsv = await t.runtime.app.inject({
      method: 'GET',
      url: `/v3/bulk/data?token=${token}&name=known-site&format=csv`,
    });
    const objectRows = parse(objectsCsv.body) as string[][];
    assert.deepEqual(objectRows[0].slice(0, 4), ['pageUrl', 'resolvedPageUrl', 'type', 'timestamp']);
    assert.ok(objectRows[0].includes('title'));
    assert.equal(objectRows.length, 9);
  });

  test('politeness: with a crawl delay, a host sees one request at a time, that far apart', async () => {
    const polite = await startFixtureServer();
    try {
      for (let i = 0; i < 4; i++) polite.route(`/p/${i}`, respond.html(articlePage(`P${i}`)));
      await createJob(t.runtime, token, {
        name: 'polite',
        apiUrl: '/v3/article',
        urls: [0, 1, 2, 3].map((i) => polite.url(`/p/${i}`)).join(' '),
        crawlDelay: 0.3,
        obeyRobots: 0,
      });
      await waitForStatus(t.runtime, token, 'polite', [9]);
      // Each fetch starts 300 ms after the previous one ended: the site sees them that far apart.
      const arrivals = polite.requests().map((r) => r.at);
      assert.equal(arrivals.length, 4);
      for (let i = 1; i < arrivals.length; i++) {
        assert.ok(arrivals[i] - arrivals[i - 1] >= 300, `gap ${arrivals[i] - arrivals[i - 1]} ms`);
      }
    } finally {
      await polite.close();
    }
  });

  test('robots.txt Crawl-delay slows a host down; customHeaders are sent, with the custom user agent', async () => {
    const robots = await startFixtureServer();
    try {
      robots.route('/robots.txt', respond.text('User-agent: TestBot\nCrawl-delay: 0.4\nDisallow: /nope\n'));
      for (let i = 0; i < 3; i++) robots.route(`/r/${i}`, respond.html(articlePage(`R${i}`)));
      robots.route('/nope', respond.html(articlePage('Nope')));
      const record = await createJob(t.runtime, token, {
        name: 'robots-delay',
        apiUrl: '/v3/article',
        urls: [robots.url('/r/0'), robots.url('/nope'), robots.url('/r/1'), robots.url('/r/2')].join(' '),
        crawlDelay: 0,
        customHeaders: ['User-Agent: TestBot/1.0', 'X-Quarry-Test: yes'],
      });
      assert.deepEqual(record.customHeaders, { 'User-Agent': 'TestBot/1.0', 'X-Quarry-Test': 'yes' });
      const done = await waitForStatus(t.runtime, token, 'robots-delay', [9]);
      assert.equal(done.pageCrawlSuccesses, 3);
      assert.equal(robots.count('/nope'), 0);
      const pages = robots.requests().filter((r) => r.path.startsWith('/r/'));
      assert.equal(pages.length, 3);
      for (const page of pages) {
        assert.equal(page.headers['x-quarry-test'], 'yes');
        assert.equal(page.headers['user-agent'], 'TestBot/1.0');
      }
      for (let i = 1; i < pages.length; i++) assert.ok(pages[i].at - pages[i - 1].at >= 400);
    } finally {
      await robots.close();
    }
  });

  test('robots.txt answering 5xx disallows the whole site for the round; 404 allows everything', async () => {
    const broken = await startFixtureServer();
    const absent = await startFixtureServer();
    try {
      broken.route('/robots.txt', respond.text('busy', 503));
      broken.route('/b/1', respond.html(articlePage('B1')));
      absent.route('/robots.txt', respond.text('none', 404));
      absent.route('/c/1', respond.html(articlePage('C1')));
      await createJob(t.runtime, token, {
        name: 'robots-broken',
        apiUrl: '/v3/article',
        urls: `${broken.url('/b/1')} ${absent.url('/c/1')}`,
        crawlDelay: 0,
      });
      const done = await waitForStatus(t.runtime, token, 'robots-broken', [9]);
      assert.equal(broken.count('/b/1'), 0);
      assert.equal(absent.count('/c/1'), 1);
      assert.equal(done.pageCrawlAttempts, 1);
      assert.equal(done.pageCrawlSuccesses, 1);
      const report = await t.runtime.app.inject({
        method: 'GET',
        url: `/v3/bulk/data?token=${token}&name=robots-broken&type=urls`,
      });
      const first = report.json()[0];
      assert.equal(first.status, 'robots_disallowed');
      assert.match(first.error, /robots\.txt unreachable \(HTTP 503\)/);
    } finally {
      await broken.close();
      await absent.close();
    }
  });

  test('repeat and maxRounds: rounds run again, this-round counters restart, totals add up', async () => {
    const rounds = await startFixtureServer();
    try {
      for (let i = 0; i < 3; i++) rounds.route(`/r/${i}`, respond.html(articlePage(`Round ${i}`)));
      // 0.00002 days = 1.728 s between round starts: the wait between rounds is seen.
      await createJob(t.runtime, token, {
        name: 'two-rounds',
        apiUrl: '/v3/article',
        urls: [0, 1, 2].map((i) => rounds.url(`/r/${i}`)).join(' '),
        crawlDelay: 0,
        repeat: 0.00002,
        maxRounds: 2,
      });
      const between = await waitForStatus(t.runtime, token, 'two-rounds', [4]);
      assert.match(between.jobStatus.message, /^Next round to start in [0-2] seconds\.$/);
      assert.equal(between.roundsCompleted, 1);
      assert.equal(between.pageCrawlSuccessesThisRound, 3);
      assert.equal(between.jobCompletionTimeUTC, 0);
      const done = await waitForStatus(t.runtime, token, 'two-rounds', [1]);
      assert.equal(done.jobStatus.message, 'Job has reached maxRounds limit.');
      assert.equal(done.roundsCompleted, 2);
      assert.equal(done.pageCrawlSuccesses, 6);
      assert.equal(done.pageCrawlSuccessesThisRound, 3);
      assert.equal(done.pageProcessSuccessesThisRound, 3);
      assert.equal(done.objectsFound, 6);
      assert.equal(rounds.count('/r/0'), 2);
      assert.equal(rounds.count('/robots.txt'), 1, 'robots.txt is cached across rounds');
    } finally {
      await rounds.close();
    }
  });

  test('notifyWebhook: the job record is POSTed at completion, retried after a failure', async () => {
    const hooks = await startFixtureServer();
    try {
      hooks.route('/page', respond.html(articlePage('Hooked')));
      const bodies: Array<{ headers: Record<string, unknown>; body: string }> = [];
      hooks.route('/hook', async (request, response) => {
        let body = '';
        for await (const chunk of request) body += chunk;
        bodies.push({ headers: request.headers, body });
        response.writeHead(bodies.length === 1 ? 500 : 204);
        response.end();
      });
      await createJob(t.runtime, token, {
        name: 'hooked',
        apiUrl: '/v3/article',
        urls: hooks.url('/page'),
        crawlDelay: 0,
        notifyWebhook: hooks.url('/hook'),
      });
      await waitFor(() => (bodies.length >= 2 ? true : undefined));
      const [first, second] = bodies;
      assert.equal(first.body, second.body);
      assert.equal(second.headers['x-crawl-name'], 'hooked');
      assert.equal(second.headers['x-crawl-status'], 'Job has completed and no repeat is scheduled.');
      assert.match(String(second.headers['content-type']), /application\/json/);
      const record = JSON.parse(second.body);
      assert.equal(record.name, 'hooked');
      assert.equal(record.jobStatus.status, 9);
      assert.equal(record.pageProcessSuccesses, 1);
      assert.equal(record.notifyWebhook, hooks.url('/hook'));
      const after = await waitFor(async () => {
        const job = await jobNamed(t.runtime, token, 'hooked');
        return job.sentJobDoneNotification === 1 ? job : undefined;
      });
      assert.equal(after.jobStatus.status, 9);
    } finally {
      await hooks.close();
    }
  });

  test('notifyWebhook: a hook that keeps failing is tried 3 times (test schedule), then given up', async () => {
    const hooks = await startFixtureServer();
    try {
      hooks.route('/page', respond.html(articlePage('Unheard')));
      hooks.route('/hook', respond.text('nope', 500));
      hooks.route('/moved-hook', respond.redirect('/hook', 307));
      await createJob(t.runtime, token, {
        name: 'unheard',
        apiUrl: '/v3/article',
        urls: hooks.url('/page'),
        crawlDelay: 0,
        notifyWebhook: hooks.url('/hook'),
      });
      await createJob(t.runtime, token, {
        name: 'redirected-hook',
        apiUrl: '/v3/article',
        urls: hooks.url('/page?again'),
        crawlDelay: 0,
        notifyWebhook: hooks.url('/moved-hook'),
      });
      await waitFor(() => (hooks.count('/hook') >= 3 && hooks.count('/moved-hook') >= 3 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(hooks.count('/hook'), 3, 'a redirect is not followed: only the first job reaches /hook');
      assert.equal(hooks.count('/moved-hook'), 3);
      assert.equal((await jobNamed(t.runtime, token, 'unheard')).sentJobDoneNotification, 0);
    } finally {
      await hooks.close();
    }
  });
});

describe('fairness between tokens', () => {
  test('jobs of different tokens and hosts proceed side by side', async () => {
    const one = await startFixtureServer();
    const two = await startFixtureServer();
    // One fetch at a time overall: the order of requests is the order of dispatch.
    const t = await startCrawlRuntime({ crawl: { scheduler: { maxConcurrency: 1, flushIntervalMs: 10 } } });
    try {
      for (let i = 0; i < 20; i++) {
        one.route(`/x/${i}`, respond.html(articlePage(`One ${i}`)));
        one.route(`/y/${i}`, respond.html(articlePage(`One bis ${i}`)));
        two.route(`/x/${i}`, respond.html(articlePage(`Two ${i}`)));
      }
      const list = (server: FixtureServer, dir = 'x') =>
        Array.from({ length: 20 }, (_, i) => server.url(`/${dir}/${i}`)).join(' ');
      const a = await t.token();
      const b = await t.token();
      // Token a first submits two jobs; token b one. Each token gets every other fetch.
      await createJob(t.runtime, a, {
        name: 'a1',
        apiUrl: '/v3/article',
        urls: list(one),
        crawlDelay: 0,
        obeyRobots: 0,
      });
      await createJob(t.runtime, a, {
        name: 'a2',
        apiUrl: '/v3/article',
        urls: list(one, 'y'),
        crawlDelay: 0,
        obeyRobots: 0,
      });
      await createJob(t.runtime, b, {
        name: 'b1',
        apiUrl: '/v3/article',
        urls: list(two),
        crawlDelay: 0,
        obeyRobots: 0,
      });
      await waitForStatus(t.runtime, b, 'b1', [9]);
      // Counted from b's first fetch: before b1 exists (creating it takes a while, longer on
      // PostgreSQL under load) token a has the fetcher to itself.
      const [first, last] = [two.requests()[0].at, two.requests().at(-1)!.at];
      const fromOne = one.requests().filter((r) => r.at >= first && r.at <= last).length;
      // While b's 20 pages were fetched, a got about as many fetches (its two jobs sharing them).
      assert.ok(fromOne >= 15 && fromOne <= 25, `token a had ${fromOne} fetches while token b had 20`);
    } finally {
      await t.close();
      await one.close();
      await two.close();
    }
  });
});

describe('private networks not allowed', () => {
  test('URLs on loopback are refused without any request; the job fails to crawl any URL', async () => {
    const site = await startFixtureServer();
    const t = await startCrawlRuntime({ config: { allowPrivateNetwork: false } });
    try {
      site.route('/x', respond.html(articlePage('X')));
      const token = await t.token();
      await createJob(t.runtime, token, {
        name: 'ssrf',
        apiUrl: '/v3/article',
        urls: `${site.url('/x')} http://localhost:${site.port}/x http://[::1]:${site.port}/x`,
        crawlDelay: 0,
      });
      const done = await waitForStatus(t.runtime, token, 'ssrf', [10]);
      assert.equal(done.jobStatus.message, 'Job failed to crawl any URL.');
      assert.equal(done.pageCrawlSuccesses, 0);
      assert.equal(done.pageCrawlAttempts, 3);
      assert.equal(site.requests().length, 0);
      const report = await t.runtime.app.inject({
        method: 'GET',
        url: `/v3/bulk/data?token=${token}&name=ssrf&type=urls`,
      });
      for (const line of report.json()) {
        assert.equal(line.status, 'fetch_failed');
        assert.match(line.error, /not a public address|private/i);
      }
    } finally {
      await t.close();
      await site.close();
    }
  });
});

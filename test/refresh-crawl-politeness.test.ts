/**
 * One politeness per process: a refresh and a crawl of the same host, running at once, keep the
 * host's one delay between all their requests (issue 23), through the real runtime, a real
 * local web server logging the arrival time of every request, and a real store.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { importEntities } from '../src/import/index.ts';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import { organizationPage } from './support/fixture-web.ts';
import {
  articlePage,
  type CrawlTestRuntime,
  createJob,
  startCrawlRuntime,
  waitForStatus,
} from './support/crawl-runtime.ts';

const DELAY_MS = 250;

describe('refresh and crawl share one politeness per host', () => {
  let site: FixtureServer;
  let t: CrawlTestRuntime;
  let token: string;

  before(async () => {
    site = await startFixtureServer();
    site.route('/robots.txt', respond.text('User-agent: *\nAllow: /\n'));
    for (let i = 0; i < 4; i++) site.route(`/crawl/${i}`, respond.html(articlePage(`Article ${i}`)));
    for (let i = 0; i < 3; i++) {
      site.route(
        `/org/${i}`,
        respond.html(
          organizationPage({
            name: 'Shared Host Robotics GmbH',
            url: site.url('/'),
            phone: '+49 30 5550199',
            city: 'Berlin',
            country: 'Germany',
          }),
        ),
      );
    }
    t = await startCrawlRuntime({
      config: { web: { refreshMaxAgeMs: 0, crawlDelayMs: DELAY_MS, searchUrl: undefined } },
    });
    token = await t.token();
    const record = {
      id: 'ORG-shared-host',
      type: 'Organization',
      name: 'Shared Host Robotics GmbH',
      origins: [0, 1, 2].map((i) => site.url(`/org/${i}`)),
      location: { city: { name: 'Berlin' }, country: { name: 'Germany' } },
    };
    const summary = await importEntities(
      t.runtime.storage.entities,
      Readable.from([`${JSON.stringify(record)}\n`]),
      { fileName: 'shared-host.jsonl', workers: 0 },
    );
    assert.equal(summary.rejected, 0);
    // The first enhance loads the matcher's vocabularies (seconds on a busy machine): not in the test.
    const warm = await t.runtime.app.inject({
      method: 'GET',
      url: `/kg/v3/enhance?token=${token}&type=Organization&id=ORG-shared-host`,
    });
    assert.equal(warm.statusCode, 200, warm.body);
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  test('a crawl and a refresh of one host at once: every request the delay apart', async () => {
    site.clearLog();
    await createJob(t.runtime, token, {
      name: 'shared-host',
      apiUrl: '/v3/article',
      urls: [0, 1, 2, 3].map((i) => site.url(`/crawl/${i}`)).join(' '),
      crawlDelay: DELAY_MS / 1000,
    });
    // The refresh begins while the crawl is at the host: just after its first request.
    while (site.count('/crawl/0') === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const refreshed = await t.runtime.app.inject({
      method: 'GET',
      url: `/kg/v3/enhance?token=${token}&type=Organization&id=ORG-shared-host&refresh=true`,
    });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    const [hit] = refreshed.json().data;
    const info = Object.values(hit.refreshInfo) as { hasResult: boolean }[];
    assert.equal(info.length, 3);
    assert.ok(
      info.every((i) => i.hasResult),
      JSON.stringify(info),
    );
    await waitForStatus(t.runtime, token, 'shared-host', [9]);

    const pages = site.requests().filter((r) => r.path !== '/robots.txt');
    assert.equal(pages.length, 7, pages.map((r) => r.path).join(' '));
    // Both features were at the host during the same stretch: their requests interleave.
    const kinds = pages.map((r) => (r.path.startsWith('/crawl/') ? 'c' : 'r')).join('');
    assert.match(kinds, /^c.*r.*c/);
    const times = pages.map((r) => r.atPrecise).sort((x, y) => x - y);
    for (let i = 1; i < times.length; i++) {
      const gap = times[i] - times[i - 1];
      assert.ok(gap >= DELAY_MS - 5, `requests ${gap.toFixed(1)} ms apart (${kinds})`);
    }
  });
});

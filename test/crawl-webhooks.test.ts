/**
 * Notifications of one job arrive in order (issue 24 §9): a round's notification that failed
 * and waits for its retry is superseded by the next round's, so a receiver that keeps the last
 * message it got never ends with an old status.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { respond, startFixtureServer } from './support/fixture-server.ts';
import {
  articlePage,
  createJob,
  FAST_CRAWL,
  startCrawlRuntime,
  waitForStatus,
} from './support/crawl-runtime.ts';

test('a retried round-1 notification never arrives after the final one', async () => {
  const site = await startFixtureServer();
  // Retries wait 1.5 s: longer than the next round takes, as in the report.
  const t = await startCrawlRuntime({ crawl: { ...FAST_CRAWL, webhook: { delaysMs: [1_500, 1_500] } } });
  try {
    site.route('/page', respond.html(articlePage('Rounds')));
    const received: { status: string; at: number }[] = [];
    site.route('/hook', async (request, response) => {
      for await (const _ of request);
      received.push({ status: String(request.headers['x-crawl-status']), at: Date.now() });
      response.writeHead(received.length === 1 ? 500 : 204);
      response.end();
    });
    const token = await t.token();
    await createJob(t.runtime, token, {
      name: 'rounds',
      apiUrl: '/v3/article',
      urls: site.url('/page'),
      crawlDelay: 0,
      repeat: 0.00001,
      maxRounds: 2,
      notifyWebhook: site.url('/hook'),
    });
    await waitForStatus(t.runtime, token, 'rounds', [1]);
    // Long enough for a retry of round 1's notification to have come (1.5 s after its failure).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.ok(received.length >= 2, JSON.stringify(received));
    assert.equal(received.at(-1)?.status, 'Job has reached maxRounds limit.');
    assert.equal(received.filter((r) => r.status === 'Job has reached maxRounds limit.').length, 1);
    assert.match(received[0].status, /^Next round/);
  } finally {
    await t.close();
    await site.close();
  }
});

test('a notifyWebhook the fetcher would refuse is a 400 at creation, as bulk enhance webhookurl', async () => {
  const t = await startCrawlRuntime({ config: { allowPrivateNetwork: false }, start: false });
  try {
    const token = await t.token();
    for (const hook of [
      'http://127.0.0.1:9/hook',
      'http://10.1.2.3/hook',
      'http://[::1]/hook',
      'http://169.254.169.254/',
    ]) {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: `/v3/bulk?token=${token}`,
        payload: {
          name: 'hooked',
          apiUrl: '/v3/article',
          urls: 'https://example.test/a',
          notifyWebhook: hook,
        },
      });
      assert.equal(res.statusCode, 400, hook);
      assert.match(res.json().error, /'notifyWebhook': .*not a public address/, hook);
    }
    const list = await t.runtime.app.inject({ method: 'GET', url: `/v3/bulk?token=${token}&name=hooked` });
    assert.equal(list.statusCode, 404, 'nothing was created');
  } finally {
    await t.close();
  }
});

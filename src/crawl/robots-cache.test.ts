import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type FixtureServer, respond, startFixtureServer } from '../../test/support/fixture-server.ts';
import { createFetcher, type Fetcher } from '../extract/index.ts';
import { RobotsCache, robotsAllow } from './robots.ts';

let site: FixtureServer;
let fetcher: Fetcher;
before(async () => {
  site = await startFixtureServer();
  fetcher = createFetcher({ allowPrivateNetwork: true });
});
after(async () => {
  await fetcher.close();
  await site.close();
});

test('concurrent lookups share one fetch; the verdict is cached until its time to live', async () => {
  site.route('/robots.txt', respond.delay(50, respond.text('User-agent: *\nDisallow: /x\n')));
  let now = 1_000;
  const cache = new RobotsCache({ fetcher, ttlMs: 10_000, now: () => now });
  const verdicts = await Promise.all([cache.verdict(site.url('/a')), cache.verdict(site.url('/b'))]);
  assert.equal(site.count('/robots.txt'), 1);
  assert.equal(robotsAllow(verdicts[0], site.url('/x'), 'QuarryBot'), false);
  assert.equal(robotsAllow(verdicts[1], site.url('/y'), 'QuarryBot'), true);
  await cache.verdict(site.url('/c'));
  assert.equal(site.count('/robots.txt'), 1);
  now += 10_001;
  await cache.verdict(site.url('/c'));
  assert.equal(site.count('/robots.txt'), 2);
  assert.equal(cache.fetches, 2);
});

test('an unreachable robots.txt is not cached: the next pass asks again', async () => {
  site.clearLog();
  site.route('/robots.txt', respond.text('down', 503));
  const cache = new RobotsCache({ fetcher });
  const first = await cache.verdict(site.url('/a'));
  assert.equal(first.kind, 'unreachable');
  site.route('/robots.txt', respond.text('User-agent: *\nAllow: /\n'));
  const second = await cache.verdict(site.url('/a'));
  assert.equal(second.kind, 'rules');
  assert.equal(site.count('/robots.txt'), 2);
});

test('a refused destination is reported as refused, without a request', async () => {
  const strict = createFetcher({ allowPrivateNetwork: false });
  try {
    site.clearLog();
    const verdict = await new RobotsCache({ fetcher: strict }).verdict(site.url('/a'));
    assert.equal(verdict.kind, 'refused');
    assert.equal(site.requests().length, 0);
  } finally {
    await strict.close();
  }
});

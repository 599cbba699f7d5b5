import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FetchError } from '../errors.ts';
import { productToken, robotsAllow, robotsCrawlDelaySeconds, verdictOf } from './robots.ts';

const ROBOTS = 'https://site.example/robots.txt';

test('product tokens of user agents', () => {
  assert.equal(productToken('Mozilla/5.0 (compatible; QuarryBot/0.1; self-hosted)'), 'QuarryBot');
  assert.equal(productToken('MyCrawler/2.0 (+https://x.example/bot)'), 'MyCrawler');
  assert.equal(
    productToken('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'),
    'Googlebot',
  );
  assert.equal(productToken('QuarryBot'), 'QuarryBot');
});

test('2xx: group rules apply to the matching user agent, with longest-match precedence', () => {
  const verdict = verdictOf(ROBOTS, {
    status: 200,
    text: [
      'User-agent: *',
      'Disallow: /private/',
      'Allow: /private/open',
      'Crawl-delay: 2',
      '',
      'User-agent: QuarryBot',
      'Disallow: /no-quarry',
      'Crawl-delay: 90',
    ].join('\n'),
  });
  assert.equal(verdict.kind, 'rules');
  assert.equal(robotsAllow(verdict, 'https://site.example/private/x', 'OtherBot'), false);
  assert.equal(robotsAllow(verdict, 'https://site.example/private/open', 'OtherBot'), true);
  assert.equal(robotsAllow(verdict, 'https://site.example/no-quarry', 'QuarryBot'), false);
  // QuarryBot has its own group: the * group does not apply to it.
  assert.equal(robotsAllow(verdict, 'https://site.example/private/x', 'QuarryBot'), true);
  assert.equal(robotsCrawlDelaySeconds(verdict, 'OtherBot'), 2);
  // Crawl-delay is honoured up to 30 s.
  assert.equal(robotsCrawlDelaySeconds(verdict, 'QuarryBot'), 30);
});

test('4xx and redirect trouble: everything allowed; 5xx, 429 and network errors: nothing', () => {
  const page = 'https://site.example/a';
  for (const status of [401, 403, 404, 410]) {
    assert.equal(
      robotsAllow(verdictOf(ROBOTS, { status, text: '' }), page, 'QuarryBot'),
      true,
      String(status),
    );
  }
  for (const status of [429, 500, 503]) {
    const verdict = verdictOf(ROBOTS, { status, text: '' });
    assert.equal(verdict.kind, 'unreachable');
    assert.equal(robotsAllow(verdict, page, 'QuarryBot'), false);
  }
  const network = verdictOf(ROBOTS, {
    error: new FetchError('fetch_network', 'ECONNREFUSED', { transient: true }),
  });
  assert.equal(network.kind, 'unreachable');
  const redirects = verdictOf(ROBOTS, {
    error: new FetchError('fetch_too_many_redirects', 'More than 5 redirects'),
  });
  assert.equal(redirects.kind, 'allow-all');
  const refused = verdictOf(ROBOTS, {
    error: new FetchError('fetch_refused', 'Refusing to fetch 127.0.0.1'),
  });
  assert.deepEqual(refused, { kind: 'refused', reason: 'Refusing to fetch 127.0.0.1' });
  assert.equal(robotsAllow(refused, page, 'QuarryBot'), false);
});

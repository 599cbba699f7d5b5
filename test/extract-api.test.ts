import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  FIXTURE_PAGES_DIR,
  type FixtureServer,
  respond,
  startFixtureServer,
} from './support/fixture-server.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

describe('extraction API (/v3/:api)', () => {
  let t: TestRuntime;
  let server: FixtureServer;
  let token: string;
  before(async () => {
    t = await startTestRuntime();
    server = await startFixtureServer();
    token = await t.token();
  });
  after(async () => {
    await t.close();
    await server.close();
  });

  const get = (api: string, pageUrl: string, extra = '') =>
    t.runtime.app.inject({
      method: 'GET',
      url: `/v3/${api}?token=${token}&url=${encodeURIComponent(pageUrl)}${extra}`,
    });

  test('article: every field, in the reference response shape', async () => {
    const pageUrl = server.url('/pages/article.html');
    const res = await get('article', pageUrl);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body.request, { pageUrl, api: 'article', version: 3 });
    assert.equal(body.objects.length, 1);
    const [article] = body.objects;
    assert.equal(article.type, 'article');
    assert.equal(article.pageUrl, pageUrl);
    assert.equal(article.resolvedPageUrl, undefined);
    assert.equal(article.title, 'Quarry Lake Reopens After Restoration');
    assert.equal(article.author, 'Maria Okafor');
    assert.equal(article.date, 'Tue, 05 Mar 2024 08:30:00 GMT');
    assert.equal(article.siteName, 'The Valley Herald');
    assert.match(article.text, /^The old quarry lake on the edge of town reopened/);
    assert.match(article.html, /^<p>The old quarry lake/);
    assert.deepEqual(article.images[0], {
      url: 'https://cdn.valleyherald.example/img/lake-hero.jpg',
      primary: true,
    });
    assert.equal(article.images[1].url, server.url('/img/lake-shore.jpg'));
    assert.equal(article.images[1].caption, 'The restored north shore, with its new beach and jetty.');
  });

  test('product, organization and person extractors answer over HTTP', async () => {
    const product = (await get('product', server.url('/pages/product.html'))).json().objects[0];
    assert.equal(product.type, 'product');
    assert.equal(product.offerPrice, '$129.99');
    assert.equal(product.currency, 'USD');
    assert.equal(product.availability, true);
    assert.equal(product.brand, 'Ridgeline');
    assert.equal(product.sku, 'TB2-BRN-42');

    const organization = (await get('organization', server.url('/pages/company.html'))).json().objects[0];
    assert.equal(organization.type, 'organization');
    assert.equal(organization.name, 'Northwind Robotics');
    assert.deepEqual(organization.phoneNumbers[0], { string: '+1 510-555-0142', digits: '+15105550142' });
    assert.equal(organization.linkedInUri, 'linkedin.com/company/northwind-robotics');

    const person = (await get('person', server.url('/pages/person.html'))).json().objects[0];
    assert.equal(person.type, 'person');
    assert.equal(person.name, 'Elena Marsh');
    assert.equal(person.employments[0].employer.name, 'Lakeside University');
    assert.deepEqual(person.emailAddresses, [{ contactString: 'e.marsh@lakeside.example' }]);
  });

  test('analyze detects the page type and runs the matching extractor', async () => {
    const expected: Record<string, string> = {
      'article.html': 'article',
      'blog-post.html': 'article',
      'product.html': 'product',
      'product-plain.html': 'product',
      'company.html': 'organization',
      'person.html': 'person',
      'windows-1252.html': 'other',
      'listing.html': 'other',
    };
    for (const [file, type] of Object.entries(expected)) {
      const res = await get('analyze', server.url(`/pages/${file}`));
      assert.equal(res.statusCode, 200, file);
      const body = res.json();
      assert.equal(body.request.api, 'analyze');
      assert.equal(body.type, type, file);
      if (type === 'other') assert.deepEqual(body.objects, [], file);
      else assert.equal(body.objects[0].type, type, file);
    }
    const article = (await get('analyze', server.url('/pages/article.html'))).json();
    assert.equal(article.humanLanguage, 'en');
    assert.equal(article.objects[0].title, 'Quarry Lake Reopens After Restoration');
  });

  test('a redirected page keeps pageUrl and reports resolvedPageUrl', async () => {
    const pageUrl = server.url('/redirect/chain/2?to=/pages/article.html');
    const body = (await get('article', pageUrl)).json();
    assert.equal(body.request.pageUrl, pageUrl);
    assert.equal(body.objects[0].pageUrl, pageUrl);
    assert.equal(body.objects[0].resolvedPageUrl, server.url('/pages/article.html'));
  });

  test('POST extracts from the posted HTML without fetching', async () => {
    server.clearLog();
    const pageUrl = server.url('/never-fetched/article');
    const res = await t.runtime.app.inject({
      method: 'POST',
      url: `/v3/article?token=${token}&url=${encodeURIComponent(pageUrl)}`,
      headers: { 'content-type': 'text/html' },
      payload: fs.readFileSync(path.join(FIXTURE_PAGES_DIR, 'article.html')),
    });
    assert.equal(res.statusCode, 200);
    const article = res.json().objects[0];
    assert.equal(article.title, 'Quarry Lake Reopens After Restoration');
    assert.equal(article.pageUrl, pageUrl);
    assert.equal(
      article.images[1].url,
      server.url('/img/lake-shore.jpg'),
      'links resolve against the given url',
    );
    assert.equal(server.requests().length, 0);

    const latin = await t.runtime.app.inject({
      method: 'POST',
      url: `/v3/article?token=${token}&url=${encodeURIComponent('https://cafe.example/')}`,
      headers: { 'content-type': 'text/html' },
      payload: fs.readFileSync(path.join(FIXTURE_PAGES_DIR, 'windows-1252.html')),
    });
    assert.equal(latin.json().objects[0].title, 'Café naïve – « Crème brûlée »');

    const plain = await t.runtime.app.inject({
      method: 'POST',
      url: `/v3/analyze?token=${token}&url=${encodeURIComponent('https://shop.example/x')}`,
      headers: { 'content-type': 'text/plain' },
      payload: '<span class="price">$5.00</span><button>Add to cart</button>',
    });
    assert.equal(plain.json().type, 'product');
  });

  test('POST without HTML is a 400 naming the body', async () => {
    for (const [contentType, payload] of [
      ['text/html', ''],
      ['application/json', '{"html":"<p>x</p>"}'],
    ]) {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: `/v3/article?token=${token}&url=https://x.example/`,
        headers: { 'content-type': contentType },
        payload,
      });
      assert.equal(res.statusCode, 400, contentType);
      assert.match(res.json().error, /'body'/);
    }
  });

  test('caller headers prefixed X-Forward- are sent to the page', async () => {
    server.clearLog();
    const res = await t.runtime.app.inject({
      method: 'GET',
      url: `/v3/article?token=${token}&url=${encodeURIComponent(server.url('/pages/article.html'))}`,
      headers: {
        'x-forward-user-agent': 'PartnerBot/1.0',
        'x-forward-cookie': 'consent=yes',
        'x-forward-host': 'evil.example',
        'x-forward-transfer-encoding': 'chunked',
      },
    });
    assert.equal(res.statusCode, 200);
    const [seen] = server.requests('/pages/article.html');
    assert.equal(seen.headers['user-agent'], 'PartnerBot/1.0');
    assert.equal(seen.headers.cookie, 'consent=yes');
    assert.equal(seen.headers.host, `127.0.0.1:${server.port}`, 'Host is never forwarded');
    assert.equal(seen.headers['transfer-encoding'], undefined);
  });

  test('an API that is neither built in nor defined is 457 Invalid API', async () => {
    const res = await get('recipes', server.url('/pages/article.html'));
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { errorCode: 457, error: 'Invalid API' });
  });

  test('bad requests and unreachable pages are clear 4xx errors, never 500', async () => {
    const cases: [string, number, RegExp][] = [
      [`/v3/article?token=${token}`, 400, /'url': is required/],
      [`/v3/article?token=${token}&url=not-a-url`, 400, /'url': "not-a-url" is not an absolute URL/],
      [`/v3/article?token=${token}&url=ftp://example.com/x`, 400, /only http and https/],
      [`/v3/article?token=${token}&timeout=0&url=https://x.example/`, 400, /timeout/],
      [
        `/v3/article?token=${token}&url=${encodeURIComponent(server.url('/status/404'))}`,
        400,
        /Could not download page \(404\)/,
      ],
      [
        `/v3/article?token=${token}&url=${encodeURIComponent(server.url('/status/500'))}`,
        400,
        /Could not download page \(500\)/,
      ],
      [
        `/v3/article?token=${token}&url=${encodeURIComponent(server.url('/redirect/loop/a'))}`,
        400,
        /Redirect loop/,
      ],
      [
        `/v3/article?token=${token}&url=${encodeURIComponent(server.url('/huge?bytes=11000000'))}`,
        400,
        /exceeds 10485760 bytes/,
      ],
      [
        `/v3/article?token=${token}&timeout=300&url=${encodeURIComponent(server.url('/slow?ms=3000'))}`,
        400,
        /Timed out fetching/,
      ],
      ['/v3/article?url=https://x.example/', 401, /^Not authorized API token\.$/],
      ['/v3/article?token=wrong&url=https://x.example/', 401, /^Not authorized API token\.$/],
    ];
    for (const [url, status, message] of cases) {
      const res = await t.runtime.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, status, url);
      const body = res.json();
      assert.equal(typeof body.errorCode, 'number', url);
      assert.match(body.error, message, url);
    }
  });

  test('a page that is not HTML is refused', async () => {
    server.route('/data.json', respond.body('{"a":1}', { contentType: 'application/json' }));
    server.route(
      '/image.png',
      respond.body(Buffer.from([0x89, 0x50, 0x4e, 0x47]), { contentType: 'image/png' }),
    );
    server.route('/untyped', (_request, response) => {
      response.end(Buffer.from([0x00, 0x01, 0x02]));
    });
    for (const pathname of ['/data.json', '/image.png', '/untyped']) {
      const res = await get('analyze', server.url(pathname));
      assert.equal(res.statusCode, 400, pathname);
      assert.match(res.json().error, /is not HTML/, pathname);
    }
  });

  test('the extraction service answers without HTTP, with object types, for the crawler', async () => {
    const account = await t.runtime.services.tokens.authenticate(token);
    const response = await t.runtime.services.extraction.extract({
      tokenId: account.id,
      api: '/api/analyze',
      url: server.url('/pages/product.html'),
    });
    assert.equal(response.type, 'product');
    assert.deepEqual(
      response.objects.map((o) => o.type),
      ['product'],
    );
  });

  test('static routes of area B/C are not taken for API names', async () => {
    const res = await t.runtime.app.inject({ method: 'GET', url: `/v3/custom?token=${token}` });
    assert.equal(res.statusCode, 200);
    assert.ok(Array.isArray(res.json()));
  });

  test('the OpenAPI document describes the extraction and Custom API endpoints', async () => {
    const doc = (await t.runtime.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.ok(doc.paths['/v3/{api}']?.get);
    assert.ok(doc.paths['/v3/{api}']?.post);
    assert.ok(doc.paths['/v3/custom']?.post);
    assert.ok(doc.paths['/v3/custom']?.get);
    assert.ok(doc.paths['/v3/custom']?.delete);
    assert.ok(doc.paths['/v3/custom/preview']?.post);
  });
});

describe('extraction API refuses private networks by default', () => {
  let t: TestRuntime;
  let server: FixtureServer;
  before(async () => {
    t = await startTestRuntime({ allowPrivateNetwork: false });
    server = await startFixtureServer();
  });
  after(async () => {
    await t.close();
    await server.close();
  });

  test('loopback, private, link-local and localhost targets are refused with a 400', async () => {
    const token = await t.token();
    for (const target of [
      server.url('/pages/article.html'),
      `http://localhost:${server.port}/pages/article.html`,
      `http://[::1]:${server.port}/pages/article.html`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
    ]) {
      const res = await t.runtime.app.inject({
        method: 'GET',
        url: `/v3/analyze?token=${token}&url=${encodeURIComponent(target)}`,
      });
      assert.equal(res.statusCode, 400, target);
      assert.match(res.json().error, /not a public address/, target);
    }
    assert.equal(server.requests().length, 0);
  });
});

describe('fields=', () => {
  test('each object keeps only the fields asked for, and its identity', async () => {
    const t = await startTestRuntime();
    try {
      const token = await t.token();
      const html =
        '<html><head><title>Lake</title></head><body><article><h1>The lake reopens</h1><p>Swimming returns to the lake after two years of work, the council said on Monday evening.</p></article></body></html>';
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: `/v3/article?token=${token}&url=${encodeURIComponent('https://news.example/lake')}&fields=title,%20humanLanguage`,
        headers: { 'content-type': 'text/html' },
        payload: html,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().objects, [
        { type: 'article', pageUrl: 'https://news.example/lake', title: 'The lake reopens' },
      ]);
    } finally {
      await t.close();
    }
  });
});

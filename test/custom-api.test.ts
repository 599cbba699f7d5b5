import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FixtureServer, startFixtureServer } from './support/fixture-server.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

describe('Custom API (/v3/custom)', () => {
  let t: TestRuntime;
  let server: FixtureServer;
  let token: string;
  let otherToken: string;
  before(async () => {
    t = await startTestRuntime();
    server = await startFixtureServer();
    token = await t.token();
    otherToken = await t.token();
  });
  after(async () => {
    await t.close();
    await server.close();
  });

  const post = (body: unknown, secret = token) =>
    t.runtime.app.inject({ method: 'POST', url: `/v3/custom?token=${secret}`, payload: body as object });
  const list = async (secret = token) =>
    (await t.runtime.app.inject({ method: 'GET', url: `/v3/custom?token=${secret}` })).json();
  const extract = async (api: string, pageUrl: string, secret = token) =>
    t.runtime.app.inject({
      method: 'GET',
      url: `/v3/${api}?token=${secret}&url=${encodeURIComponent(pageUrl)}`,
    });

  const articlePattern = 'pages/article\\.html$';
  const articleRules = [
    { name: 'title', selector: 'h1', filters: [{ type: 'replace', args: ['^Quarry (\\w+)', 'The $1'] }] },
    { name: 'byline', selector: 'p.byline', filters: [{ type: 'exclude', args: ['time'] }] },
    { name: 'authorLink', selector: 'a[rel=author]', filters: [{ type: 'attribute', args: ['href'] }] },
    { name: 'section', value: 'local' },
  ];

  test('create → same hash on update → rules fully replaced → new pair → array replaces all', async () => {
    // Create.
    const created = await post({ api: '/api/article', urlPattern: articlePattern, rules: articleRules });
    assert.equal(created.statusCode, 200);
    const [hash] = created.json().hashes;
    assert.match(hash, /^[0-9a-f]{24}$/);
    const pageUrl = server.url('/pages/article.html');
    let article = (await extract('article', pageUrl)).json().objects[0];
    assert.equal(article.title, 'The Lake Reopens After Restoration');
    assert.equal(article.byline, 'By Maria Okafor');
    assert.equal(article.authorLink, server.url('/authors/maria-okafor'));
    assert.equal(article.section, 'local');
    assert.equal(article.author, 'Maria Okafor', 'built-in fields stay');

    // Update: same pair (api given in the short form), fewer rules.
    const updated = await post({
      api: 'article',
      urlPattern: articlePattern,
      rules: [{ name: 'section', value: 'news' }],
    });
    assert.deepEqual(updated.json().hashes, [hash]);
    article = (await extract('article', pageUrl)).json().objects[0];
    assert.equal(article.section, 'news');
    assert.equal(article.byline, undefined, 'a dropped rule’s field is gone');
    assert.equal(article.authorLink, undefined);
    assert.equal(article.title, 'Quarry Lake Reopens After Restoration', 'the built-in title is back');
    let listed = await list();
    assert.equal(listed.length, 1);
    assert.deepEqual(listed[0], {
      hash,
      api: '/api/article',
      urlPattern: articlePattern,
      rules: [{ name: 'section', value: 'news' }],
    });

    // A new pair is a new rule set.
    const second = await post({
      api: '/api/product',
      urlPattern: 'product',
      rules: [{ name: 'shop', value: 'summit' }],
    });
    const [hash2] = second.json().hashes;
    assert.notEqual(hash2, hash);
    assert.deepEqual(
      (await list()).map((r: { hash: string }) => r.hash),
      [hash, hash2],
    );

    // An array body replaces all rule sets: the kept pair keeps its hash, the product one is gone.
    const replaced = await post([
      { api: '/api/article', urlPattern: articlePattern, rules: [{ name: 'edition', value: 'weekend' }] },
      { api: '/api/person', urlPattern: 'person', rules: [] },
    ]);
    const hashes = replaced.json().hashes;
    assert.equal(hashes[0], hash);
    assert.notEqual(hashes[1], hash2);
    listed = await list();
    assert.deepEqual(
      listed.map((r: { api: string }) => r.api),
      ['/api/article', '/api/person'],
    );
    const product = (await extract('product', server.url('/pages/product.html'))).json().objects[0];
    assert.equal(product.shop, undefined);
    article = (await extract('article', pageUrl)).json().objects[0];
    assert.equal(article.edition, 'weekend');
    assert.equal(article.section, undefined);

    // A listing can be posted back as it is (hashes are ignored on input).
    const again = await post(listed);
    assert.deepEqual(again.json().hashes, hashes);
  });

  test('rule sets belong to their token', async () => {
    await post({ api: '/api/secretapi', urlPattern: 'listing', rules: [{ name: 'mine', value: 'yes' }] });
    await post({ api: '/api/analyze', urlPattern: '.', rules: [{ name: 'tokenOne', value: true }] });
    assert.deepEqual(await list(otherToken), []);
    const listing = server.url('/pages/listing.html');
    assert.equal((await extract('secretapi', listing)).statusCode, 200);
    const foreign = await extract('secretapi', listing, otherToken);
    assert.equal(foreign.statusCode, 404);
    assert.deepEqual(foreign.json(), { errorCode: 457, error: 'Invalid API' });
    const analyzed = (await extract('analyze', server.url('/pages/product.html'), otherToken)).json();
    assert.equal(analyzed.objects[0].tokenOne, undefined);
    const mine = (await extract('analyze', server.url('/pages/product.html'))).json();
    assert.equal(mine.objects[0].tokenOne, true);
    const del = await t.runtime.app.inject({
      method: 'DELETE',
      url: `/v3/custom?token=${otherToken}`,
      payload: { api: '/api/secretapi', urlPattern: 'listing' },
    });
    assert.equal(del.statusCode, 404);
    assert.equal(
      (await list()).some((r: { api: string }) => r.api === '/api/secretapi'),
      true,
    );
    // Clean up for the next tests.
    await post([]);
    assert.deepEqual(await list(), []);
  });

  test('a new API: collections, jsoup selectors, prefilters; only matching URLs', async () => {
    const saved = await post({
      api: '/api/directory',
      urlPattern: '/pages/listing\\.html',
      prefilters: ['.ad'],
      rules: [
        { name: 'heading', selector: 'h1:containsOwn(food directory)' },
        { name: 'ads', selector: '#top-ad' },
        {
          name: 'closedOn',
          selector: 'ul.hours li:matches((?i)closed$)',
          filters: [{ type: 'replace', args: [':.*$', ''] }],
        },
        {
          name: 'businesses',
          selector: '.results > div:has(span.phone)',
          rules: [
            { name: 'name', selector: 'h3', filters: [{ type: 'exclude', args: ['.badge'] }] },
            {
              name: 'phone',
              selector: '.phone',
              filters: [{ type: 'replace', args: ['(\\d{3})\\.(\\d{3})\\.(\\d{4})', '($1) $2-$3'] }],
            },
            { name: 'link', selector: 'a', filters: [{ type: 'attribute', args: ['href'] }] },
            {
              name: 'rating',
              selector: '[^data-rat]',
              filters: [{ type: 'attribute', args: ['data-rating'] }],
            },
          ],
        },
      ],
    });
    assert.equal(saved.statusCode, 200);
    const res = await extract('directory', server.url('/pages/listing.html'));
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.request.api, 'directory');
    assert.equal(body.objects.length, 1);
    const [directory] = body.objects;
    assert.equal(directory.type, 'directory');
    assert.equal(directory.pageUrl, server.url('/pages/listing.html'));
    assert.equal(directory.heading, 'Oakland Food Directory');
    assert.equal(directory.ads, undefined, 'prefiltered elements are gone');
    assert.equal(directory.closedOn, 'Monday');
    assert.deepEqual(directory.businesses, [
      {
        name: 'Hamburger Central',
        phone: '(650) 555-5512',
        link: 'https://directory.example/city/listings/hamburger-central',
        rating: '4.5',
      },
      {
        name: "Jim's Shake Shop",
        phone: '(650) 555-9127',
        link: 'https://directory.example/listings/jims-shake-shop',
      },
      { name: 'Steaks and More', phone: '(650) 555-2100', link: 'https://steaks.example/' },
    ]);
    // A URL the pattern does not match: the API exists, but nothing applies.
    const elsewhere = (await extract('directory', server.url('/pages/article.html'))).json();
    assert.deepEqual(elsewhere.objects, []);
  });

  test('prefilters apply to built-in extraction; xForwardHeaders are sent; analyze applies the detected type’s rules', async () => {
    await post([
      {
        api: '/api/article',
        urlPattern: 'article\\.html',
        prefilters: ['figure', '.story-body h2'],
        xForwardHeaders: { 'User-Agent': 'RuleBot/1', 'Accept-Language': ['de', 'de'] },
        rules: [{ name: 'kind', value: 'story' }],
      },
      { api: 'all', urlPattern: 'pages/', rules: [{ name: 'crawledBy', value: 'quarry' }] },
    ]);
    server.clearLog();
    const article = (await extract('article', server.url('/pages/article.html'))).json().objects[0];
    assert.doesNotMatch(article.text, /Water quality/);
    assert.equal(
      article.images.some((image: { url: string }) => image.url.endsWith('lake-shore.jpg')),
      false,
    );
    assert.equal(article.kind, 'story');
    assert.equal(article.crawledBy, 'quarry');
    const [seen] = server.requests('/pages/article.html');
    assert.equal(seen.headers['user-agent'], 'RuleBot/1');
    assert.equal(seen.headers['accept-language'], 'de');

    const overridden = await t.runtime.app.inject({
      method: 'GET',
      url: `/v3/article?token=${token}&url=${encodeURIComponent(server.url('/pages/article.html'))}`,
      headers: { 'x-forward-user-agent': 'CallerBot/9' },
    });
    assert.equal(overridden.statusCode, 200);
    assert.equal(server.requests('/pages/article.html')[1].headers['user-agent'], 'CallerBot/9');

    const analyzed = (await extract('analyze', server.url('/pages/article.html'))).json();
    assert.equal(analyzed.type, 'article');
    assert.equal(analyzed.objects[0].kind, 'story', 'rules of the detected type apply');
    const product = (await extract('product', server.url('/pages/product.html'))).json().objects[0];
    assert.equal(product.crawledBy, 'quarry', '"all" applies to every API');
    assert.equal(product.kind, undefined);
    await post([]);
  });

  test('invalid rule sets are a 400 naming the problem, and nothing is stored', async () => {
    await post({ api: '/api/article', urlPattern: 'keep', rules: [{ name: 'kept', value: 1 }] });
    const before = await list();
    const cases: [unknown, RegExp][] = [
      [{ urlPattern: 'x', rules: [] }, /'api': is required/],
      [{ api: '/api/article', rules: [] }, /'urlPattern': is required/],
      [{ api: '/api/article', urlPattern: 'x' }, /'rules': is required/],
      [{ api: '/api/article', urlPattern: '([a-z', rules: [] }, /'urlPattern': Invalid regular expression/],
      [
        { api: '/api/article', urlPattern: 'news(?=/)', rules: [] },
        /'urlPattern':.*lookahead.*linear-time engine/,
      ],
      [
        { api: '/api/article', urlPattern: 'x', rules: [{ name: 't', selector: 'p:matches((\\w)\\1)' }] },
        /'rules\[0\]\.selector'.*backreference.*linear-time engine/,
      ],
      [
        { api: '/api/article', urlPattern: 'x', rules: [{ name: 't', selector: 'h1:matchText' }] },
        /'rules\[0\]\.selector'.*":matchText"/,
      ],
      [
        { api: '/api/article', urlPattern: 'x', rules: [{ name: 't', selector: 'h1::before' }] },
        /'rules\[0\]\.selector'/,
      ],
      [
        { api: '/api/article', urlPattern: 'x', rules: [{ name: 't', selector: 'h1', value: 'v' }] },
        /both "selector" and "value"/,
      ],
      [
        {
          api: '/api/article',
          urlPattern: 'x',
          rules: [{ name: 't', selector: 'h1', filters: [{ type: 'shout', args: [] }] }],
        },
        /unknown filter type "shout"/,
      ],
      [
        {
          api: '/api/article',
          urlPattern: 'x',
          rules: [{ name: 't', selector: 'h1', filters: [{ type: 'replace', args: ['[', ''] }] }],
        },
        /'rules\[0\]\.filters\[0\]\.args\[0\]': Invalid regular expression/,
      ],
      [
        {
          api: '/api/article',
          urlPattern: 'x',
          rules: [{ name: 'l', selector: 'li', rules: [{ name: 'x', selector: ':eq(a)' }] }],
        },
        /'rules\[0\]\.rules\[0\]\.selector'.*:eq\(\)/,
      ],
      [
        [
          { api: '/api/a', urlPattern: 'x', rules: [] },
          { api: '/api/b', urlPattern: 'x', rules: 'nope' },
        ],
        /'\[1\]\.rules': must be an array/,
      ],
      [
        [
          { api: '/api/a', urlPattern: 'x', rules: [] },
          { api: 'a', urlPattern: 'x', rules: [] },
        ],
        /'\[1\]': repeats the api and urlPattern of item \[0\]/,
      ],
      ['"just a string"', /must be a JSON object/],
    ];
    for (const [body, message] of cases) {
      const res =
        typeof body === 'string'
          ? await t.runtime.app.inject({
              method: 'POST',
              url: `/v3/custom?token=${token}`,
              headers: { 'content-type': 'application/json' },
              payload: body,
            })
          : await post(body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().errorCode, 400);
      assert.match(res.json().error, message, JSON.stringify(body));
    }
    const malformed = await t.runtime.app.inject({
      method: 'POST',
      url: `/v3/custom?token=${token}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"api": ',
    });
    assert.equal(malformed.statusCode, 400);
    assert.deepEqual(await list(), before, 'nothing was stored or replaced');
  });

  test('delete removes one rule set; its API disappears', async () => {
    await post([
      { api: '/api/recipes', urlPattern: 'a', rules: [{ name: 'x', value: 1 }] },
      { api: '/api/recipes', urlPattern: 'b', rules: [] },
    ]);
    const [first, second] = await list();
    const del = await t.runtime.app.inject({
      method: 'DELETE',
      url: `/v3/custom?token=${token}`,
      payload: { api: 'recipes', urlPattern: 'a' },
    });
    assert.equal(del.statusCode, 200);
    assert.deepEqual(del.json(), { deleted: 1, hashes: [first.hash] });
    assert.deepEqual(
      (await list()).map((r: { hash: string }) => r.hash),
      [second.hash],
    );
    assert.equal(
      (await extract('recipes', server.url('/pages/listing.html'))).statusCode,
      200,
      'one rule set still defines it',
    );
    const byQuery = await t.runtime.app.inject({
      method: 'DELETE',
      url: `/v3/custom?token=${token}&api=/api/recipes&urlPattern=b`,
    });
    assert.equal(byQuery.statusCode, 200);
    assert.equal((await extract('recipes', server.url('/pages/listing.html'))).json().errorCode, 457);
    const missing = await t.runtime.app.inject({
      method: 'DELETE',
      url: `/v3/custom?token=${token}`,
      payload: { api: '/api/recipes', urlPattern: 'b' },
    });
    assert.equal(missing.statusCode, 404);
    assert.match(missing.json().error, /No Custom API/);
    const incomplete = await t.runtime.app.inject({
      method: 'DELETE',
      url: `/v3/custom?token=${token}`,
      payload: { api: '/api/recipes' },
    });
    assert.equal(incomplete.statusCode, 400);
    assert.match(incomplete.json().error, /'urlPattern'/);
  });

  test('preview runs a rule set on its testUrl or on supplied HTML without saving it', async () => {
    const before = await list();
    const preview = (body: unknown) =>
      t.runtime.app.inject({
        method: 'POST',
        url: `/v3/custom/preview?token=${token}`,
        payload: body as object,
      });
    const onTestUrl = await preview({
      api: '/api/product',
      urlPattern: 'product\\.html',
      testUrl: server.url('/pages/product.html'),
      rules: [{ name: 'specs', selector: 'ul.specs li', rules: [{ name: 'spec', selector: 'li' }] }],
    });
    assert.equal(onTestUrl.statusCode, 200);
    const body = onTestUrl.json();
    assert.equal(body.urlPatternMatches, true);
    assert.equal(body.objects[0].type, 'product');
    assert.equal(body.objects[0].offerPrice, '$129.99', 'built-in fields are included');
    assert.deepEqual(body.objects[0].specs, [{ spec: 'Weight: 620 g' }, { spec: 'Drop: 10 mm' }]);

    server.clearLog();
    const onHtml = await preview({
      api: '/api/notes',
      urlPattern: 'nomatch',
      testUrl: 'https://notes.example/a',
      html: '<div class="note"><a href="/n/1">First</a></div><div class="note"><a href="/n/2">Second</a></div>',
      rules: [{ name: 'links', selector: '.note a', filters: [{ type: 'attribute', args: ['href'] }] }],
    });
    assert.equal(onHtml.statusCode, 200);
    assert.equal(onHtml.json().urlPatternMatches, false);
    assert.deepEqual(onHtml.json().objects, [
      {
        type: 'notes',
        pageUrl: 'https://notes.example/a',
        links: ['https://notes.example/n/1', 'https://notes.example/n/2'],
      },
    ]);
    assert.equal(server.requests().length, 0, 'supplied HTML is not fetched');

    const invalid = await preview({
      api: '/api/notes',
      urlPattern: 'x',
      testUrl: 'https://x.example/',
      rules: [{ name: 'a', selector: 'p:nope' }],
    });
    assert.equal(invalid.statusCode, 400);
    assert.match(invalid.json().error, /":nope"/);
    const noUrl = await preview({ api: '/api/notes', urlPattern: 'x', rules: [], html: '<p>x</p>' });
    assert.equal(noUrl.statusCode, 400);
    assert.match(noUrl.json().error, /'testUrl': is required/);
    assert.deepEqual(await list(), before, 'previews store nothing');
  });
});

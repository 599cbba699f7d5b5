/**
 * The SearXNG-compatible provider against real local HTTP servers: the request it makes, the
 * results it keeps, and every way a provider can fail (an error status, HTML instead of JSON, no
 * results list, an answer too large, no answer in time).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SearchProviderError, SearxngProvider } from '../src/search/index.ts';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';

describe('SearxngProvider', () => {
  let server: FixtureServer;
  before(async () => {
    server = await startFixtureServer();
    server.route('/search', (request, response, url) =>
      respond.body(
        JSON.stringify({
          query: url.searchParams.get('q'),
          results: [
            { url: 'https://a.example/', title: 'A', content: 'first', engine: 'x' },
            { url: 'javascript:alert(1)', title: 'bad scheme' },
            { title: 'no url' },
            { url: 'http://b.example/page', title: 42, content: null },
            ...Array.from({ length: 30 }, (_, i) => ({
              url: `https://c.example/${i}`,
              title: `C${i}`,
              content: '',
            })),
          ],
        }),
        { contentType: 'application/json' },
      )(request, response, url),
    );
    server.route('/bad-gateway', respond.body('<h1>502</h1>', { status: 502 }));
    server.route('/html', respond.html('<html><body>search page</body></html>'));
    server.route('/no-results', respond.body('{"answers":[]}', { contentType: 'application/json' }));
    server.route(
      '/huge',
      respond.body(`{"results":[${'"x",'.repeat(400_000)}"x"]}`, { contentType: 'application/json' }),
    );
    server.route('/slow', respond.delay(2_000, respond.body('{"results":[]}')));
  });
  after(async () => server.close());

  test('sends q and format=json (and the configured parameters); keeps http(s) results, at most maxResults', async () => {
    const provider = new SearxngProvider({
      url: server.url('/search'),
      parameters: { categories: 'general' },
      maxResults: 10,
    });
    const results = await provider.search('Acme Robotics Lyon');
    const [request] = server.requests('/search').slice(-1);
    const sent = new URL(request.path, server.origin).searchParams;
    assert.equal(sent.get('q'), 'Acme Robotics Lyon');
    assert.equal(sent.get('format'), 'json');
    assert.equal(sent.get('categories'), 'general');
    assert.equal(results.length, 10);
    assert.deepEqual(results[0], { url: 'https://a.example/', title: 'A', content: 'first' });
    assert.deepEqual(results[1], { url: 'http://b.example/page', title: '', content: '' });
    assert.equal(provider.name, `SearXNG at ${server.origin}`);
  });

  test('failures are SearchProviderErrors that say what went wrong', async () => {
    const cases: Array<[string, RegExp, number?]> = [
      ['/bad-gateway', /answered HTTP 502/],
      ['/html', /did not answer JSON \(is format=json enabled\?\)/],
      ['/no-results', /answered no "results" list/],
      ['/huge', /answered more than 1000 bytes/],
      ['/slow', /could not be reached: no answer within 200 ms/],
    ];
    for (const [path, message] of cases) {
      const provider = new SearxngProvider({ url: server.url(path), maxBytes: 1_000, timeoutMs: 200 });
      await assert.rejects(
        () => provider.search('x'),
        (error: unknown) => error instanceof SearchProviderError && message.test(error.message),
        path,
      );
    }
  });
});

/**
 * How `/console` is served (docs/console.md): the same page for every console path, assets
 * bundled from the sources at first use with their content type and an immutable cache, the
 * page never cached, 304 for what the browser holds, 404 naming an unknown asset.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

describe('console routes', () => {
  let t: TestRuntime;
  before(async () => {
    t = await startTestRuntime();
  });
  after(async () => t.close());
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.runtime.app.inject({ method: 'GET', url, headers });

  test('every console path answers the page, which names its hashed script and stylesheet', async () => {
    const home = await get('/console');
    assert.equal(home.statusCode, 200);
    assert.equal(home.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(home.headers['cache-control'], 'no-cache');
    assert.match(String(home.headers['content-security-policy']), /script-src 'self'/);
    assert.equal(home.headers['referrer-policy'], 'no-referrer');
    for (const path of [
      '/console/',
      '/console/entity/ORG-demo-1',
      '/console/bulk',
      '/console/no/such/page',
    ]) {
      const other = await get(path);
      assert.equal(other.statusCode, 200, path);
      assert.equal(other.body, home.body, path);
    }
    const again = await get('/console', { 'if-none-match': String(home.headers.etag) });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  test('assets: JavaScript and CSS with their types, cached for ever, and their source maps', async () => {
    const html = (await get('/console')).body;
    const script = /src="(\/console\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    const style = /href="(\/console\/assets\/app-[A-Z0-9]+\.css)"/.exec(html)?.[1];
    assert.ok(script && style, html);
    const js = await get(script);
    assert.equal(js.statusCode, 200);
    assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(js.body, /sourceMappingURL=app-[A-Z0-9]+\.js\.map/);
    // The bundle carries the app, not a reference to anything outside this server.
    assert.doesNotMatch(js.body, /https?:\/\/(cdn|unpkg|esm\.sh|jsdelivr)/);
    const css = await get(style);
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.match(css.body, /\.bar-svg/);
    const map = await get(`${script}.map`);
    assert.equal(map.statusCode, 200);
    assert.ok(Array.isArray(map.json().sources));
    assert.equal((await get(script, { 'if-none-match': String(js.headers.etag) })).statusCode, 304);
  });

  test('an unknown asset is a 404 naming it', async () => {
    const missing = await get('/console/assets/app-NOPE.js');
    assert.equal(missing.statusCode, 404);
    assert.match(missing.json().message, /app-NOPE\.js/);
  });

  test('the console routes stay out of the OpenAPI document', async () => {
    const paths = Object.keys((await get('/openapi.json')).json().paths);
    assert.deepEqual(
      paths.filter((path) => path.startsWith('/console')),
      [],
    );
  });
});

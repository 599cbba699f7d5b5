import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { FetchError } from '../src/errors.ts';
import { createFetcher, DEFAULT_USER_AGENT, ensureSuccess, type Fetcher } from '../src/extract/index.ts';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';

/** Asserts that `promise` rejects with a FetchError of `code` whose message matches `message`. */
async function rejectsWith(promise: Promise<unknown>, code: string, message?: RegExp): Promise<FetchError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof FetchError, `expected a FetchError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (message) assert.match(caught.message, message);
  return caught;
}

describe('fetcher against the fixture server', () => {
  let server: FixtureServer;
  let fetcher: Fetcher;
  before(async () => {
    server = await startFixtureServer();
    fetcher = createFetcher({ allowPrivateNetwork: true, timeoutMs: 2_000, maxBodyBytes: 1024 * 1024 });
  });
  after(async () => {
    await fetcher.close();
    await server.close();
  });

  test('fetches a page with its status, headers, media type and decoded text', async () => {
    const page = await fetcher.fetch(server.url('/pages/article.html'));
    assert.equal(page.status, 200);
    assert.equal(page.url, server.url('/pages/article.html'));
    assert.equal(page.finalUrl, server.url('/pages/article.html'));
    assert.deepEqual(page.redirects, []);
    assert.equal(page.contentType, 'text/html');
    assert.equal(page.charset, 'utf-8');
    assert.equal(page.headers['content-type'], 'text/html');
    assert.match(page.text(), /Quarry Lake Reopens After Restoration/);
  });

  test('sends a clear user agent by default and the caller’s headers when given', async () => {
    server.clearLog();
    await fetcher.fetch(server.url('/headers'));
    const [first] = server.requests('/headers');
    assert.equal(first.headers['user-agent'], DEFAULT_USER_AGENT);
    assert.match(String(first.headers['accept-encoding']), /gzip/);
    const page = await fetcher.fetch(server.url('/headers'), {
      headers: { 'User-Agent': 'CustomBot/2', Cookie: 'session=abc', 'Accept-Language': 'fr' },
    });
    const echoed = JSON.parse(page.text()) as Record<string, string>;
    assert.equal(echoed['user-agent'], 'CustomBot/2');
    assert.equal(echoed.cookie, 'session=abc');
    assert.equal(echoed['accept-language'], 'fr');
  });

  test('follows redirects (relative and absolute) and reports each hop', async () => {
    const page = await fetcher.fetch(server.url('/redirect/chain/3?to=/pages/product.html'));
    assert.equal(page.status, 200);
    assert.equal(page.finalUrl, server.url('/pages/product.html'));
    assert.equal(page.redirects.length, 3);
    assert.equal(page.redirects[0], server.url('/redirect/chain/3?to=/pages/product.html'));
    assert.match(page.text(), /Trailblazer 2/);
  });

  test('follows at most 5 redirects', async () => {
    const five = await fetcher.fetch(server.url('/redirect/chain/5'));
    assert.equal(five.redirects.length, 5);
    server.clearLog();
    await rejectsWith(
      fetcher.fetch(server.url('/redirect/chain/6')),
      'fetch_too_many_redirects',
      /More than 5 redirects/,
    );
    assert.equal(server.count('/pages/article.html'), 0, 'the sixth redirect is not followed');
    assert.equal(server.requests().length, 6);
  });

  test('detects redirect loops', async () => {
    const error = await rejectsWith(fetcher.fetch(server.url('/redirect/loop/a')), 'fetch_redirect_loop');
    assert.equal(error.transient, false);
    assert.equal(error.status, 400);
  });

  test('with maxRedirects 0, returns the redirect itself', async () => {
    const page = await fetcher.fetch(server.url('/redirect?to=/pages/article.html&status=301'), {
      maxRedirects: 0,
    });
    assert.equal(page.status, 301);
    assert.equal(page.headers.location, '/pages/article.html');
  });

  test('drops credentials when a redirect leaves the origin', async () => {
    const other = await startFixtureServer();
    try {
      server.route('/to-other', respond.redirect(other.url('/headers')));
      const page = await fetcher.fetch(server.url('/to-other'), {
        headers: { Authorization: 'Bearer secret', Cookie: 'a=1', 'X-Trace': 't-1' },
      });
      const echoed = JSON.parse(page.text()) as Record<string, string>;
      assert.equal(echoed.authorization, undefined);
      assert.equal(echoed.cookie, undefined);
      assert.equal(echoed['x-trace'], 't-1');
      assert.equal(server.requests('/to-other')[0].headers.authorization, 'Bearer secret');
    } finally {
      await other.close();
    }
  });

  test('turns a POST into a GET on 303 and resends the body on 307', async () => {
    const seen: { method: string; body: string }[] = [];
    const record =
      (status: number): Parameters<FixtureServer['route']>[1] =>
      async (request, response) => {
        let body = '';
        for await (const chunk of request) body += chunk;
        seen.push({ method: request.method ?? '', body });
        if (status === 200) return respond.text('done')(request, response, new URL('http://x'));
        response.writeHead(status, { location: '/post-end' });
        response.end();
      };
    server.route('/post-303', record(303));
    server.route('/post-307', record(307));
    server.route('/post-end', record(200));
    await fetcher.fetch(server.url('/post-303'), { method: 'POST', body: '{"a":1}' });
    await fetcher.fetch(server.url('/post-307'), { method: 'POST', body: '{"b":2}' });
    assert.deepEqual(seen, [
      { method: 'POST', body: '{"a":1}' },
      { method: 'GET', body: '' },
      { method: 'POST', body: '{"b":2}' },
      { method: 'POST', body: '{"b":2}' },
    ]);
  });

  test('caps the body size, chunked or declared', async () => {
    await rejectsWith(
      fetcher.fetch(server.url(`/huge?bytes=${2 * 1024 * 1024}`)),
      'fetch_too_large',
      /exceeds 1048576 bytes/,
    );
    await rejectsWith(
      fetcher.fetch(server.url(`/huge?bytes=${2 * 1024 * 1024}&length=1`)),
      'fetch_too_large',
    );
    const fits = await fetcher.fetch(server.url(`/huge?bytes=${1024 * 1024}`));
    assert.equal(fits.body.length, 1024 * 1024);
  });

  test('the default cap is 10 MiB', async () => {
    const defaults = createFetcher({ allowPrivateNetwork: true });
    try {
      await rejectsWith(
        defaults.fetch(server.url(`/huge?bytes=${10 * 1024 * 1024 + 1}`)),
        'fetch_too_large',
        /10485760/,
      );
    } finally {
      await defaults.close();
    }
  });

  test('decompresses gzip and caps what a compressed body expands to', async () => {
    const page = await fetcher.fetch(server.url('/gzip/article.html'));
    assert.equal(page.headers['content-encoding'], 'gzip');
    assert.match(page.text(), /Quarry Lake Reopens/);
    server.route(
      '/gzip-bomb',
      respond.body(zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024)), { headers: { 'content-encoding': 'gzip' } }),
    );
    await rejectsWith(fetcher.fetch(server.url('/gzip-bomb')), 'fetch_too_large');
    server.route('/not-gzip', respond.body('plain text', { headers: { 'content-encoding': 'gzip' } }));
    await rejectsWith(fetcher.fetch(server.url('/not-gzip')), 'fetch_bad_response', /not valid gzip/);
  });

  test('caps the time: slow headers and slow bodies time out as transient errors', async () => {
    const quick = createFetcher({ allowPrivateNetwork: true, timeoutMs: 300 });
    try {
      const started = Date.now();
      const error = await rejectsWith(quick.fetch(server.url('/slow?ms=3000')), 'fetch_timeout');
      assert.equal(error.transient, true);
      assert.ok(Date.now() - started < 2_000);
      await rejectsWith(quick.fetch(server.url('/slow-body?ms=50')), 'fetch_timeout');
    } finally {
      await quick.close();
    }
    await rejectsWith(fetcher.fetch(server.url('/slow?ms=3000'), { timeoutMs: 200 }), 'fetch_timeout');
  });

  test('a caller abort is reported as such', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await rejectsWith(
      fetcher.fetch(server.url('/slow?ms=3000'), { signal: controller.signal }),
      'fetch_aborted',
    );
  });

  test('decodes by Content-Type charset, meta declaration and BOM', async () => {
    const latin = await fetcher.fetch(server.url('/pages/windows-1252.html'));
    assert.equal(latin.charset, 'windows-1252');
    assert.match(latin.text(), /Café naïve – « Crème brûlée »/);
    server.route(
      '/sjis',
      respond.body(
        Buffer.concat([
          Buffer.from('<p>'),
          Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]),
          Buffer.from('</p>'),
        ]),
        {
          contentType: 'text/html; charset=Shift_JIS',
        },
      ),
    );
    const sjis = await fetcher.fetch(server.url('/sjis'));
    assert.equal(sjis.charset, 'shift_jis');
    assert.equal(sjis.text(), '<p>日本語</p>');
    server.route(
      '/bom',
      respond.body(Buffer.from('\ufeff<p>ü</p>', 'utf8'), { contentType: 'text/html; charset=iso-8859-1' }),
    );
    const bom = await fetcher.fetch(server.url('/bom'));
    assert.equal(bom.charset, 'utf-8');
    assert.equal(bom.text(), '<p>ü</p>');
  });

  test('network failures are transient errors, never crashes', async () => {
    const closed = await startFixtureServer();
    const url = closed.url('/gone');
    await closed.close();
    const error = await rejectsWith(fetcher.fetch(url), 'fetch_network', /ECONNREFUSED/);
    assert.equal(error.transient, true);
    await rejectsWith(fetcher.fetch('not a url'), 'fetch_invalid_url');
    await rejectsWith(fetcher.fetch('ftp://example.com/file'), 'fetch_refused', /Only http and https/);
  });

  test('an unresolvable host is a DNS error', async () => {
    const noDns = createFetcher({
      allowPrivateNetwork: false,
      lookup: async (host) => {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    try {
      await rejectsWith(noDns.fetch('http://no-such-host.test/'), 'fetch_dns', /cannot be resolved/);
    } finally {
      await noDns.close();
    }
  });

  test('ensureSuccess turns HTTP errors into FetchErrors with the status', async () => {
    const missing = await fetcher.fetch(server.url('/status/404'));
    assert.equal(missing.status, 404);
    const notFound = await rejectsWith(
      Promise.resolve().then(() => ensureSuccess(missing)),
      'fetch_http_status',
      /\(404\)/,
    );
    assert.equal(notFound.httpStatus, 404);
    assert.equal(notFound.transient, false);
    const unavailable = await rejectsWith(
      fetcher.fetch(server.url('/status/503')).then(ensureSuccess),
      'fetch_http_status',
    );
    assert.equal(unavailable.transient, true);
    const limited = await rejectsWith(
      fetcher.fetch(server.url('/status/429')).then(ensureSuccess),
      'fetch_http_status',
    );
    assert.equal(limited.transient, true);
    assert.equal(ensureSuccess(await fetcher.fetch(server.url('/status/204'))).status, 204);
  });
});

describe('fetcher refuses private networks unless allowed', () => {
  let server: FixtureServer;
  let guarded: Fetcher;
  before(async () => {
    server = await startFixtureServer();
    guarded = createFetcher({ allowPrivateNetwork: false, timeoutMs: 2_000 });
  });
  after(async () => {
    await guarded.close();
    await server.close();
  });

  test('refuses loopback, private, link-local and IPv6 loopback literals without connecting', async () => {
    server.clearLog();
    for (const url of [
      server.url('/pages/article.html'),
      'http://10.0.0.1/',
      'http://10.255.1.2:8080/admin',
      'http://169.254.169.254/latest/meta-data/',
      `http://[::1]:${server.port}/pages/article.html`,
      `http://[::ffff:127.0.0.1]:${server.port}/`,
      'http://0.0.0.0/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
    ]) {
      const started = Date.now();
      const error = await rejectsWith(guarded.fetch(url), 'fetch_refused', /not a public address/);
      assert.equal(error.transient, false, url);
      assert.ok(Date.now() - started < 500, `${url} is refused without waiting on the network`);
    }
    assert.equal(server.requests().length, 0, 'no request reached the server');
  });

  test('refuses names that resolve to loopback (localhost), at connection time', async () => {
    server.clearLog();
    await rejectsWith(
      guarded.fetch(`http://localhost:${server.port}/pages/article.html`),
      'fetch_refused',
      /localhost/,
    );
    assert.equal(server.requests().length, 0);
  });

  test('refuses names resolving to private addresses and redirects into private space', async () => {
    const table: Record<string, string> = {
      'fixture.test': '127.0.0.1',
      'internal.test': '10.1.2.3',
      'rebind.test': '127.0.0.2',
      'link-local.test': '169.254.10.10',
      'v6.test': '::1',
    };
    // The fixture server (127.0.0.1) is allowed explicitly; nothing else private is.
    const partial = createFetcher({
      allowPrivateNetwork: false,
      allowedAddresses: ['127.0.0.1'],
      timeoutMs: 2_000,
      lookup: async (host) => {
        const address = table[host];
        if (!address) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        return [{ address, family: address.includes(':') ? 6 : 4 }];
      },
    });
    try {
      const viaName = await partial.fetch(`http://fixture.test:${server.port}/pages/article.html`);
      assert.equal(viaName.status, 200, 'the resolved, allowed address is the one connected to');
      for (const host of ['internal.test', 'rebind.test', 'link-local.test', 'v6.test']) {
        await rejectsWith(
          partial.fetch(`http://${host}:${server.port}/`),
          'fetch_refused',
          new RegExp(host.replace('.', '\\.')),
        );
      }
      server.clearLog();
      server.route('/to-private', respond.redirect('http://10.0.0.7/secret'));
      await rejectsWith(partial.fetch(server.url('/to-private')), 'fetch_refused', /10\.0\.0\.7/);
      server.route('/to-rebind', respond.redirect(`http://rebind.test:${server.port}/pages/article.html`));
      await rejectsWith(
        partial.fetch(server.url('/to-rebind')),
        'fetch_refused',
        /rebind\.test \(127\.0\.0\.2\)/,
      );
      assert.equal(server.count('/pages/article.html'), 0, 'no redirect reached a refused address');
    } finally {
      await partial.close();
    }
  });

  test('allows everything when the operator allows private networks', async () => {
    const open = createFetcher({ allowPrivateNetwork: true });
    try {
      const page = await open.fetch(`http://localhost:${server.port}/pages/article.html`);
      assert.equal(page.status, 200);
    } finally {
      await open.close();
    }
  });
});

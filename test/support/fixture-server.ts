/**
 * A local web server for tests that fetch pages: a real `node:http` server on 127.0.0.1 with an
 * ephemeral port, serving the hand-written pages of `test/fixtures/pages/` plus programmable
 * behaviours. Every request is logged, so tests can assert what was asked for and how often.
 *
 *   const server = await startFixtureServer();
 *   server.url('/pages/article.html');           // a fixture page
 *   server.route('/robots.txt', respond.text('User-agent: *\nDisallow: /private'));
 *   server.route('/flaky', (req, res) => { ... }); // any handler
 *   server.count('/pages/article.html');          // requests seen for that path
 *   await server.close();
 *
 * Built-in paths (a `route()` for the same path replaces them):
 * - `/pages/<file>`: the fixture file, `text/html` for `.html` (no charset parameter: pages
 *   declare their own), `text/plain` for `.txt`, `application/json` for `.json`.
 * - `/gzip/<file>`: the same file, gzip-encoded.
 * - `/status/<code>`: that status with a small HTML body.
 * - `/redirect?to=<url>&status=<3xx>`: one redirect (302 by default).
 * - `/redirect/chain/<n>?to=<path>`: n redirects in a row, then `to` (default the article page).
 * - `/redirect/loop/a` and `/redirect/loop/b`: redirect to each other forever.
 * - `/slow?ms=<n>`: waits n ms before answering (the article page, or `?path=`).
 * - `/slow-body?ms=<n>`: sends headers at once, then one byte of body every n ms, for ever.
 * - `/huge?bytes=<n>&length=1`: an HTML body of n bytes, streamed; `length=1` declares it in
 *   `Content-Length` up front, otherwise it is chunked.
 * - `/headers`: the request headers as JSON.
 * - `/robots.txt`: `User-agent: *` / `Allow: /`.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';

/** Handles one request. `url` is the parsed request URL (origin of the fixture server). */
export type FixtureHandler = (
  request: http.IncomingMessage,
  response: http.ServerResponse,
  url: URL,
) => void | Promise<void>;

/** One request the server received. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** Milliseconds since the epoch, with sub-millisecond precision (`performance`). */
  readonly atPrecise: number;
}

export interface FixtureServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  /** Absolute URL of `pathAndQuery` on this server. */
  url(pathAndQuery: string): string;
  /** Serves `handler` for requests whose pathname is exactly `pathname` (replaces earlier ones). */
  route(pathname: string, handler: FixtureHandler): void;
  /** Requests received so far, oldest first; only those for `pathname` when given. */
  requests(pathname?: string): RecordedRequest[];
  /** Number of requests received for `pathname`. */
  count(pathname: string): number;
  /** Forgets the request log. */
  clearLog(): void;
  /** Stops the server, dropping open connections (slow bodies included). */
  close(): Promise<void>;
}

/** Directory of the hand-written fixture pages. */
export const FIXTURE_PAGES_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'pages');

/** Ready-made handlers for `route()`. */
export const respond = {
  /** A fixed body with a status and headers. */
  body(
    body: string | Buffer,
    init: { status?: number; contentType?: string; headers?: Record<string, string> } = {},
  ): FixtureHandler {
    return (_request, response) => {
      response.writeHead(init.status ?? 200, {
        'content-type': init.contentType ?? 'text/html; charset=utf-8',
        ...init.headers,
      });
      response.end(body);
    };
  },
  /** An HTML page (UTF-8). */
  html(html: string, status = 200): FixtureHandler {
    return respond.body(html, { status });
  },
  /** A plain-text body. */
  text(text: string, status = 200): FixtureHandler {
    return respond.body(text, { status, contentType: 'text/plain; charset=utf-8' });
  },
  /** A redirect to `location` (absolute or relative). */
  redirect(location: string, status = 302): FixtureHandler {
    return (_request, response) => {
      response.writeHead(status, { location, 'content-type': 'text/html' });
      response.end(`<a href="${location}">moved</a>`);
    };
  },
  /** Runs `handler` after `ms` milliseconds. */
  delay(ms: number, handler: FixtureHandler): FixtureHandler {
    return (request, response, url) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => resolve(handler(request, response, url)), ms);
        response.on('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
  },
};

function contentTypeFor(file: string): string {
  if (file.endsWith('.html')) return 'text/html';
  if (file.endsWith('.json')) return 'application/json';
  if (file.endsWith('.txt')) return 'text/plain';
  return 'application/octet-stream';
}

function readFixture(pagesDir: string, name: string): Buffer | undefined {
  const file = path.join(pagesDir, name);
  if (!file.startsWith(pagesDir + path.sep)) return undefined;
  return fs.existsSync(file) && fs.statSync(file).isFile() ? fs.readFileSync(file) : undefined;
}

function builtIn(pagesDir: string, url: URL, origin: string): FixtureHandler | undefined {
  const p = url.pathname;
  if (p.startsWith('/pages/') || p.startsWith('/gzip/')) {
    const name = decodeURIComponent(p.slice(p.indexOf('/', 1) + 1));
    const content = readFixture(pagesDir, name);
    if (!content) return respond.body('<h1>Not found</h1>', { status: 404 });
    if (p.startsWith('/gzip/')) {
      return respond.body(zlib.gzipSync(content), {
        contentType: contentTypeFor(name),
        headers: { 'content-encoding': 'gzip' },
      });
    }
    return respond.body(content, { contentType: contentTypeFor(name) });
  }
  const status = /^\/status\/(\d{3})$/.exec(p);
  if (status) {
    return respond.body(`<html><body><h1>Status ${status[1]}</h1></body></html>`, {
      status: Number(status[1]),
    });
  }
  if (p === '/redirect') {
    return respond.redirect(
      url.searchParams.get('to') ?? '/pages/article.html',
      Number(url.searchParams.get('status') ?? 302),
    );
  }
  const chain = /^\/redirect\/chain\/(\d+)$/.exec(p);
  if (chain) {
    const left = Number(chain[1]);
    const to = url.searchParams.get('to') ?? '/pages/article.html';
    const next = left <= 1 ? to : `/redirect/chain/${left - 1}?to=${encodeURIComponent(to)}`;
    return respond.redirect(next, 301);
  }
  if (p === '/redirect/loop/a') return respond.redirect('/redirect/loop/b');
  if (p === '/redirect/loop/b') return respond.redirect(`${origin}/redirect/loop/a`);
  if (p === '/slow') {
    const target = url.searchParams.get('path') ?? '/pages/article.html';
    const inner = builtIn(pagesDir, new URL(target, origin), origin) ?? respond.html('<p>slow</p>');
    return respond.delay(Number(url.searchParams.get('ms') ?? 1000), inner);
  }
  if (p === '/slow-body') {
    const every = Number(url.searchParams.get('ms') ?? 200);
    return (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.write('<html><body>');
      const timer = setInterval(() => response.write('.'), every);
      response.on('close', () => clearInterval(timer));
    };
  }
  if (p === '/huge') {
    const bytes = Number(url.searchParams.get('bytes') ?? 11 * 1024 * 1024);
    const declare = url.searchParams.get('length') === '1';
    return (_request, response) => {
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        ...(declare ? { 'content-length': String(bytes) } : {}),
      });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = (): void => {
        while (sent < bytes) {
          const piece = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
          sent += piece.length;
          if (!response.write(piece)) {
            response.once('drain', pump);
            return;
          }
        }
        response.end();
      };
      response.on('close', () => {
        sent = bytes;
      });
      pump();
    };
  }
  if (p === '/headers') {
    return (request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(request.headers));
    };
  }
  if (p === '/robots.txt') return respond.text('User-agent: *\nAllow: /\n');
  return undefined;
}

/**
 * Starts a fixture server, on 127.0.0.1 with an ephemeral port unless `host`/`port` say
 * otherwise (another loopback address, port 80 for a site reached by host name alone).
 */
export async function startFixtureServer(
  options: { pagesDir?: string; host?: string; port?: number } = {},
): Promise<FixtureServer> {
  const pagesDir = options.pagesDir ?? FIXTURE_PAGES_DIR;
  const routes = new Map<string, FixtureHandler>();
  const log: RecordedRequest[] = [];
  let origin = '';
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', origin);
    log.push({
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      headers: request.headers,
      at: Date.now(),
      atPrecise: performance.timeOrigin + performance.now(),
    });
    const handler = routes.get(url.pathname) ?? builtIn(pagesDir, url, origin);
    if (!handler) {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end('<h1>Not found</h1>');
      return;
    }
    Promise.resolve(handler(request, response, url)).catch((error: Error) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`fixture handler failed: ${error.message}`);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  origin = port === 80 ? `http://${host}` : `http://${host}:${port}`;
  return {
    origin,
    port,
    url: (pathAndQuery) => new URL(pathAndQuery, origin).href,
    route: (pathname, handler) => {
      routes.set(pathname, handler);
    },
    requests: (pathname) =>
      pathname === undefined ? [...log] : log.filter((r) => new URL(r.path, origin).pathname === pathname),
    count: (pathname) => log.filter((r) => new URL(r.path, origin).pathname === pathname).length,
    clearLog: () => {
      log.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

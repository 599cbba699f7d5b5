/**
 * The SearXNG-compatible adapter against the real thing: Debian's `searx` (1.1) runs as its own
 * process with one engine, a `json_engine` over the fixture search engine, and Quarry searches
 * through it (`format=json`) like through any public instance. `.ci/run` installs searx; without
 * it this test fails saying so.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import { organizationPage, type SearchEngine, startSearchEngine } from './support/fixture-web.ts';
import { tempDir } from './support/temp-dir.ts';
import { startTestRuntime } from './support/test-runtime.ts';

const EXAMPLE_SETTINGS = '/usr/share/doc/searx/examples/settings.yml';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** searx's settings: the packaged example, one engine (a JSON API), this port, GET searches. */
function writeSettings(file: string, port: number, upstream: string): void {
  const script = `
import json, sys, yaml
settings = yaml.safe_load(open(sys.argv[1]))
settings['server'].update({'port': int(sys.argv[3]), 'bind_address': '127.0.0.1',
                           'secret_key': 'quarry-test', 'method': 'GET'})
settings['general']['debug'] = False
settings['engines'] = [{'name': 'fixture', 'engine': 'json_engine', 'shortcut': 'fx',
  'categories': 'general', 'enable_http': True, 'timeout': 5.0,
  'search_url': sys.argv[4] + '?format=json&q={query}', 'results_query': 'results',
  'url_query': 'url', 'title_query': 'title', 'content_query': 'content'}]
yaml.safe_dump(settings, open(sys.argv[2], 'w'))
`;
  const run = spawnSync('python3', ['-c', script, EXAMPLE_SETTINGS, file, String(port), upstream], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`writing searx settings failed: ${run.stderr}`);
}

describe('search through a real searx instance', () => {
  let site: FixtureServer;
  let engine: SearchEngine;
  let searx: ChildProcess;
  let searxUrl: string;
  const dir = tempDir();

  before(async () => {
    const found = spawnSync('sh', ['-c', 'command -v searx-run']);
    if (found.status !== 0 || !fs.existsSync(EXAMPLE_SETTINGS)) {
      throw new Error("searx is not installed: run 'apt-get install -y searx' (.ci/run does)");
    }
    site = await startFixtureServer();
    site.route(
      '/',
      respond.html(
        organizationPage({
          name: 'Larkspur Acoustics',
          url: `${site.origin}/`,
          city: 'Bergen',
          country: 'Norway',
        }),
      ),
    );
    engine = await startSearchEngine();
    engine.index({
      url: site.url('/'),
      title: 'Larkspur Acoustics',
      text: 'Larkspur Acoustics Bergen Norway',
    });
    const port = await freePort();
    const settings = path.join(dir.path, 'searx-settings.yml');
    writeSettings(settings, port, engine.url);
    searx = spawn('searx-run', [], {
      env: { ...process.env, SEARX_SETTINGS_PATH: settings },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    searx.stderr?.on('data', (chunk) => {
      log = `${log}${chunk}`.slice(-4_000);
    });
    searxUrl = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (searx.exitCode !== null) throw new Error(`searx exited with ${searx.exitCode}: ${log}`);
      const ok = await fetch(`${searxUrl}/healthz`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`searx did not answer in 30 s: ${log}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  after(async () => {
    if (searx && searx.exitCode === null) {
      const exited = new Promise((resolve) => searx.once('exit', resolve));
      searx.kill('SIGTERM');
      await exited;
    }
    await engine?.close();
    await site?.close();
    dir.remove();
  });

  test('searx answers format=json and the provider reads its results', async () => {
    const { SearxngProvider } = await import('../src/search/index.ts');
    const results = await new SearxngProvider({ url: `${searxUrl}/search` }).search('Larkspur Acoustics');
    assert.deepEqual(
      results.map((r) => [r.url, r.title]),
      [[site.url('/'), 'Larkspur Acoustics']],
    );
    assert.ok(engine.queries().includes('Larkspur Acoustics'), 'searx relayed the query to its engine');
  });

  test('FALLBACK finds an organization on the web through searx', async () => {
    // A runtime whose search provider is the searx instance.
    const web = await startTestRuntime({
      web: { refreshMaxAgeMs: 0, crawlDelayMs: 0, searchUrl: `${searxUrl}/search` },
    });
    try {
      const token = await web.token(null);
      const res = await web.runtime.app.inject({
        method: 'GET',
        url: `/kg/v3/enhance?token=${token}&type=Organization&name=Larkspur%20Acoustics&location=Bergen&search=FALLBACK`,
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.hits, 1, body.errors.join(' | '));
      assert.equal(body.data[0].entity.name, 'Larkspur Acoustics');
      assert.ok(body.data[0].entity.origins.includes(site.url('/')));
    } finally {
      await web.close();
    }
  });
});

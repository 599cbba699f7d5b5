/**
 * Refresh and search in bulk jobs, against a local fixture web of several hosts and a
 * SearXNG-format engine: every record completed as a single request would be, the pages
 * counted in the status record, politeness per host across the whole job, credits for the work
 * done, and `quarry bulk submit --refresh --search MODE` through the CLI.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { importEntities } from '../src/import/index.ts';
import { bulkClient } from './support/bulk-client.ts';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import { organizationPage, type SearchEngine, startSearchEngine } from './support/fixture-web.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');
const HOSTS = 4;
const COMPANIES = 12;
const DELAY_MS = 60;

const companyName = (i: number) =>
  `Bulkfix ${['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon', 'Zeta', 'Eta', 'Theta', 'Iota', 'Kappa', 'Lambda', 'Mu'][i]} Systems`;

describe('bulk jobs with refresh and search', () => {
  let sites: FixtureServer[];
  let engine: SearchEngine;
  let t: TestRuntime;
  let employees = 200;

  before(async () => {
    sites = await Promise.all(Array.from({ length: HOSTS }, () => startFixtureServer()));
    engine = await startSearchEngine();
    for (let i = 0; i < COMPANIES; i++) {
      const site = sites[i % HOSTS];
      site.route(`/company/${i}`, (request, response, url) =>
        respond.html(
          organizationPage({
            name: companyName(i),
            employees: employees + i,
            city: 'Graz',
            country: 'Austria',
            phone: `+43 316 555 ${1000 + i}`,
          }),
        )(request, response, url),
      );
    }
    // Two companies the graph lacks, findable on the web.
    sites[0].route(
      '/web/orbit',
      respond.html(
        organizationPage({ name: 'Orbitwell Sensors', city: 'Tartu', country: 'Estonia', employees: 31 }),
      ),
    );
    sites[1].route(
      '/web/quill',
      respond.html(
        organizationPage({ name: 'Quillmoor Analytics', city: 'Cork', country: 'Ireland', employees: 58 }),
      ),
    );
    engine.index({
      url: sites[0].url('/web/orbit'),
      title: 'Orbitwell Sensors',
      text: 'Orbitwell Sensors Tartu Estonia',
    });
    engine.index({
      url: sites[1].url('/web/quill'),
      title: 'Quillmoor Analytics',
      text: 'Quillmoor Analytics Cork Ireland',
    });

    t = await startTestRuntime({
      allowPrivateNetwork: false,
      allowedAddresses: ['127.0.0.0/8'],
      web: { refreshMaxAgeMs: 0, crawlDelayMs: DELAY_MS, searchUrl: engine.url },
    });
    const records = Array.from({ length: COMPANIES }, (_, i) => ({
      id: `ORG-bulkfix-${i}`,
      type: 'Organization',
      name: companyName(i),
      origins: [sites[i % HOSTS].url(`/company/${i}`)],
      nbEmployees: 10,
      location: { city: { name: 'Graz' }, country: { name: 'Austria' } },
    }));
    const summary = await importEntities(
      t.runtime.storage.entities,
      Readable.from(records.map((r) => `${JSON.stringify(r)}\n`)),
      { fileName: 'bulkfix.jsonl', workers: 0 },
    );
    assert.equal(summary.rejected, 0);
  });
  after(async () => {
    await t.close();
    await engine.close();
    await Promise.all(sites.map((s) => s.close()));
  });

  const queries = () => [
    ...Array.from({ length: COMPANIES }, (_, i) => ({
      type: 'Organization',
      name: companyName(i),
      location: 'Graz',
      // Only the page states the phone: the score after the refresh is higher.
      ...(i === 0 ? { phone: '+43 316 555 1000' } : {}),
    })),
    { type: 'Organization', name: 'Orbitwell Sensors', location: 'Tartu' },
    { type: 'Organization', name: 'Quillmoor Analytics', location: 'Cork' },
    { type: 'Organization', name: 'Xyzzy Nonexistent Plumbing', location: 'Nowhere' },
  ];

  test('every record is refreshed or searched as a single request would be; pages counted; hosts polite', async () => {
    for (const site of sites) site.clearLog();
    const client = bulkClient(t.runtime.app);
    const secret = await t.token(100_000);
    const submitted = client.submit(secret, queries(), '&refresh=true&search=FALLBACK&name=web');
    const ack = (await submitted).json();
    const final = await client.waitFinal(secret, ack.job_id, 60_000);
    assert.equal(final.status, 'COMPLETE');
    assert.equal(final.refresh, true);
    assert.equal(final.search, 'FALLBACK');
    assert.equal(final.jobs_completed, COMPANIES + 3);

    const download = await client.get(secret, `/${ack.job_id}`, '&format=json');
    const results = download.json() as Array<{
      hits: number;
      errors: string[];
      data: Array<{
        entity: { id: string; name: string; nbEmployees: number };
        refreshInfo: Record<string, { hasResult: boolean }>;
        refreshDelta: { changed: Record<string, unknown> };
      }>;
    }>;
    for (let i = 0; i < COMPANIES; i++) {
      const hit = results[i].data[0];
      assert.equal(hit.entity.id, `ORG-bulkfix-${i}`);
      assert.equal(hit.entity.nbEmployees, employees + i, 'rebuilt from its page');
      assert.equal(hit.refreshInfo[sites[i % HOSTS].url(`/company/${i}`)].hasResult, true);
      assert.deepEqual(hit.refreshDelta.changed.nbEmployees, { old: 10, new: employees + i });
    }
    const first = results[0] as unknown as {
      data: Array<{ score: number }>;
      searchInfo: Record<string, { mlScore: number; baseMlScore: number }>;
    };
    const info = first.searchInfo['ORG-bulkfix-0'];
    assert.ok(info.mlScore > info.baseMlScore, `scored again after the refresh: ${JSON.stringify(info)}`);
    assert.equal(first.data[0].score, info.mlScore);
    assert.equal(results[COMPANIES].data[0].entity.name, 'Orbitwell Sensors');
    assert.match(results[COMPANIES].data[0].entity.id, /^crawl-o-/);
    assert.equal(results[COMPANIES + 1].data[0].entity.name, 'Quillmoor Analytics');
    assert.equal(results[COMPANIES + 2].hits, 0);
    assert.ok(results[COMPANIES + 2].errors.some((e) => e.startsWith('search: no page described')));

    // Pages: 12 origins, 2 search pages, and the 2 found entities' pages again (their refresh
    // comes after the search, and the freshness window is 0 here).
    assert.equal(final.pagesFetched, COMPANIES + 4);
    // The found entities' homepages: the extractor takes the page's host (127.0.0.1, whose port
    // 80 refuses connections here).
    assert.equal(final.pagesFailed, 2);
    assert.equal(final.pagesFresh, 0);

    for (const site of sites) {
      const times = site
        .requests()
        .map((r) => r.atPrecise)
        .sort((a, b) => a - b);
      for (let k = 1; k < times.length; k++) {
        assert.ok(
          times[k] - times[k - 1] >= DELAY_MS,
          `two requests to ${site.origin} ${(times[k] - times[k - 1]).toFixed(1)} ms apart`,
        );
      }
    }
    const id = (await t.runtime.services.tokens.find(secret))!.id;
    assert.equal(
      await t.runtime.services.tokens.balance(id),
      100_000 - (COMPANIES + 2) * 100,
      'the refresh price for each entity pages were fetched for',
    );
  });

  test('quarry bulk submit --refresh --search MODE', async () => {
    employees = 300;
    const url = await t.runtime.listen();
    const dir = fs.mkdtempSync(path.join(t.dataDir, 'cli-'));
    const file = path.join(dir, 'queries.jsonl');
    fs.writeFileSync(
      file,
      queries()
        .slice(0, 3)
        .map((q) => JSON.stringify(q))
        .join('\n'),
    );
    const env = { ...process.env, QUARRY_URL: url, QUARRY_TOKEN: await t.token(null) };
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [MAIN, 'bulk', 'submit', file, '--refresh', '--search', 'fallback', '--wait'],
        { env },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /pages fetched/);
    const client = bulkClient(t.runtime.app);
    const status = (await client.get(env.QUARRY_TOKEN!, `/${result.stdout.trim()}/status`)).json().content;
    assert.equal(status.refresh, true);
    assert.equal(status.search, 'FALLBACK');
    assert.equal(status.pagesFetched, 3);
    assert.equal(t.runtime.storage.entities.getById('ORG-bulkfix-0')!.doc.nbEmployees, 300);

    const bad = await new Promise<number>((resolve) => {
      spawn(process.execPath, [MAIN, 'bulk', 'submit', file, '--search', 'sometimes'], { env }).on(
        'close',
        (code) => resolve(code ?? -1),
      );
    });
    assert.notEqual(bad, 0, 'an unknown mode is refused');
  });
});

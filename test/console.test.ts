/**
 * The web console (`/console`, docs/console.md) in a real browser: Debian's headless Chromium
 * driven by playwright-core, against a real `quarry serve --demo` process and a local fixture
 * web (pages for previews and extract jobs, a slow search engine that keeps a bulk job running
 * long enough to stop it). Each flow is what a person does with the mouse or the keyboard; what
 * the page shows is checked against what the API itself answers. Screenshots of every page go to
 * `.test-output/console/`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { DEFAULT_DEMO_SIZES, demoExamples, demoRecords, type Entity } from '../src/kg/index.ts';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import { type ServerProcess, startServerProcess } from './support/server-process.ts';
import { tempDir } from './support/temp-dir.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.join(import.meta.dirname, '..', '.test-output', 'console');
const WAIT = 30_000;

describe('web console in Chromium', { timeout: 300_000 }, () => {
  const dir = tempDir('quarry-console-');
  let fixture: FixtureServer;
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;
  const pageErrors: string[] = [];

  before(async () => {
    if (!fs.existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not installed at ${CHROMIUM}: the console's browser tests need Debian's ` +
          'headless Chromium. Install it with `apt-get update && apt-get install -y chromium`.',
      );
    }
    fs.mkdirSync(SHOTS, { recursive: true });
    fixture = await startFixtureServer();
    // A search engine slow enough that a bulk job searching the web is still running when stopped.
    fixture.route(
      '/search',
      respond.delay(1_500, respond.body('{"query":"","results":[]}', { contentType: 'application/json' })),
    );
    server = await startServerProcess(dir.path, { QUARRY_SEARCH_URL: fixture.url('/search') }, ['--demo']);
    token = fs.readFileSync(path.join(dir.path, 'demo-token'), 'utf8').trim();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  after(async () => {
    // Everything started here stops, whatever failed.
    await browser?.close().catch(() => {});
    await server?.kill();
    await fixture?.close();
    dir.remove();
  });

  const api = async <T>(
    pathAndQuery: string,
    init: RequestInit = {},
  ): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${server.url}${pathAndQuery}`, {
      ...init,
      headers: { Authorization: `Bearer ${token}`, ...(init.headers ?? {}) },
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  const shot = (name: string, target: Page = page) =>
    target.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const go = async (pathname: string, target: Page = page) => {
    await target.goto(`${server.url}${pathname}`);
    await target.locator('main h1').waitFor();
  };

  test('the token is asked for, checked and kept for the tab', async () => {
    await go('/console');
    await shot('00-token');
    await page.getByLabel('API token').fill('not-a-token');
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByText('This token was refused').waitFor({ timeout: WAIT });
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByRole('heading', { name: 'Enhance', level: 1 }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('quarry.token')), token);
    assert.equal(await page.evaluate(() => localStorage.getItem('quarry.token')), null);
  });

  let organizationId = '';

  test('enhance playground: candidates with their score and each explanation as a chart', async () => {
    await go('/console/enhance');
    await page.getByLabel('Name', { exact: true }).fill('Zokafego Analytics');
    await page.getByLabel('Results (size, 1–100)').fill('3');
    await page.getByRole('button', { name: 'Enhance', exact: true }).click();
    const card = page.locator('li.candidate').first();
    await card.waitFor({ timeout: WAIT });
    const expected = await api<{
      data: { score: number; entity: Entity }[];
      searchInfo: Record<string, { mlScore: number; debugInfo: { contributions: Record<string, number> } }>;
    }>('/kg/v3/enhance', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'Organization', name: 'Zokafego Analytics', size: 3 }),
    });
    const best = expected.body.data[0];
    organizationId = best.entity.id;
    assert.equal(await card.locator('h3 a').textContent(), best.entity.name);
    assert.equal(Number(await card.locator('[data-score]').getAttribute('data-score')), best.score);
    assert.equal(await page.locator('li.candidate').count(), Object.keys(expected.body.searchInfo).length);
    // One bar per feature contribution, labelled with the feature and its signed value.
    const contributions = expected.body.searchInfo[organizationId].debugInfo.contributions;
    const rows = card.locator('table.bars tbody tr');
    assert.equal(await rows.count(), Object.keys(contributions).length);
    assert.equal(await card.locator('svg.bar-svg rect.bar').count(), Object.keys(contributions).length);
    const [feature, value] = Object.entries(contributions).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))[0];
    assert.equal(await rows.first().locator('th').textContent(), feature);
    assert.equal(
      await rows.first().locator('td.num').textContent(),
      `${value > 0 ? '+' : ''}${value.toFixed(2)}`,
    );
    await shot('01-enhance');
  });

  test('entity page: facts with origins, non-canonical facts, linked entities', async () => {
    const { person, employer } = demoExamples(DEFAULT_DEMO_SIZES);
    const { body } = await api<{
      data: {
        entity: Entity & { nonCanonicalFacts?: { field: string }[] };
        entity_ctx: { factOrigins: Record<string, string[]> };
      }[];
    }>(`/kg/v3/enhance?type=Organization&id=${organizationId}&jsonmode=extended&nonCanonicalFacts=true`);
    const { entity, entity_ctx } = body.data[0];
    assert.ok((entity.nonCanonicalFacts ?? []).length > 0, 'the demo organization has non-canonical facts');

    // From the playground's candidate link.
    await go('/console/enhance');
    await page.getByLabel('Name', { exact: true }).fill('Zokafego Analytics');
    await page.getByRole('button', { name: 'Enhance', exact: true }).click();
    await page.locator('li.candidate h3 a').first().click();
    await page.waitForURL(`**/console/entity/${organizationId}`);
    await page.getByRole('heading', { name: String(entity.name), level: 1 }).waitFor({ timeout: WAIT });
    const nameRow = page.locator('table.facts tr', { has: page.locator('th', { hasText: /^name$/ }) });
    assert.deepEqual(await nameRow.locator('ul.origins a').allTextContents(), entity_ctx.factOrigins.name);
    const nonCanonical = page.locator('table.non-canonical tbody tr');
    assert.deepEqual(
      await nonCanonical.locator('th').allTextContents(),
      entity.nonCanonicalFacts!.map((fact) => fact.field),
    );
    await shot('02-entity-organization');

    // A person links to their employers; following the link opens the employer's page.
    await go(`/console/entity/${person.id}`);
    await page.getByRole('heading', { name: String(person.name), level: 1 }).waitFor({ timeout: WAIT });
    await shot('03-entity-person');
    await page
      .locator('ul.links')
      .getByRole('link', { name: String(employer.name) })
      .click();
    await page.waitForURL(`**/console/entity/${employer.id}`);
    await page.getByRole('heading', { name: String(employer.name), level: 1 }).waitFor({ timeout: WAIT });

    await go('/console/entity/ORG-no-such-entity');
    await page.getByRole('alert').getByText('No entity with id').waitFor({ timeout: WAIT });
  });

  test('bulk job from a CSV with a column mapping: progress, downloads in every format, coverage chart', async () => {
    const organizations = [...demoRecords({ ...DEFAULT_DEMO_SIZES, persons: 0 })]
      .filter((entity, index, all) => all.findIndex((other) => other.id === entity.id) === index)
      .slice(0, 12);
    const csv = [
      'Company,Site,Country,Ref',
      ...organizations.map(
        (org, i) => `"${org.name}",${org.homepageUri},${org.location?.country?.name ?? ''},r${i}`,
      ),
    ].join('\n');
    await go('/console/bulk');
    await page
      .getByLabel(/^File/)
      .setInputFiles({ name: 'companies.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByText('12 records, columns Company, Site, Country, Ref').waitFor();
    await page.getByLabel('Name from column').selectOption('Company');
    await page.getByLabel('URL from column').selectOption('Site');
    await page.getByLabel('Location from column').selectOption('Country');
    await page.getByLabel('Custom id from column').selectOption('Ref');
    await page.getByLabel('Job name').fill('console_csv');
    await shot('04-bulk-mapping');
    await page.getByRole('button', { name: 'Submit job' }).click();
    const submitted = await page
      .getByText(/Submitted job (\S+) with 12 records/)
      .textContent({ timeout: WAIT });
    const jobId = /Submitted job (\S+) with/.exec(submitted!)![1];
    const card = page.locator(`li.job[data-job-id="${jobId}"]`);
    await card.locator('.badge', { hasText: /^COMPLETE$/ }).waitFor({ timeout: WAIT });
    assert.equal(await card.locator('progress').getAttribute('value'), '12');
    assert.match((await card.locator('.progress').textContent())!, /12 of 12 records/);

    // Every format downloads, and says what the API says.
    const jsonl = await fetch(
      `${server.url}${await card.getByRole('link', { name: 'JSON Lines' }).getAttribute('href')}`,
    );
    assert.equal(jsonl.status, 200);
    const lines = (await jsonl.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((line) => line.request_ctx.query.customId),
      organizations.map((_, i) => `r${i}`),
    );
    assert.deepEqual(
      lines.map((line) => line.data[0]?.entity.id),
      organizations.map((org) => org.id),
    );
    const types: Record<string, string> = {
      JSON: 'application/json',
      CSV: 'text/csv',
      XLS: 'application/ms-excel',
      XLSX: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    };
    for (const [label, type] of Object.entries(types)) {
      const response = await fetch(
        `${server.url}${await card.getByRole('link', { name: label, exact: true }).getAttribute('href')}`,
      );
      assert.equal(response.status, 200, label);
      assert.ok(
        response.headers.get('content-type')!.startsWith(type),
        `${label}: ${response.headers.get('content-type')}`,
      );
      assert.ok((await response.arrayBuffer()).byteLength > 100, label);
    }
    // And the browser saves a file when the link is followed.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      card.getByRole('link', { name: 'CSV', exact: true }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'console_csv.csv');
    const saved = fs.readFileSync((await download.path())!, 'utf8');
    assert.equal(saved.trim().split('\n').length, 13);

    await card.getByRole('button', { name: 'Show coverage report' }).click();
    await card.locator('figure.chart').waitFor({ timeout: WAIT });
    const status = await api<{ content: { reports: { reportId: string }[] } }>(
      `/kg/v3/enhance/bulk/${jobId}/status`,
    );
    const report = await api<{ coverage: Record<string, number> }>(
      `/kg/v3/enhance/bulk/report/${jobId}/${status.body.content.reports[0].reportId}?format=json`,
    );
    const rows = card.locator('figure.chart tbody tr');
    assert.deepEqual(await rows.locator('th').allTextContents(), Object.keys(report.body.coverage));
    assert.deepEqual(
      await rows.locator('td.num').allTextContents(),
      Object.values(report.body.coverage).map((value) => `${(value * 100).toFixed(1)} %`),
    );
    await shot('05-bulk-complete');
  });

  test('a running bulk job (JSON file) is stopped, then deleted', async () => {
    const records = Array.from({ length: 40 }, (_, i) => ({
      name: `Nowhere Company ${i}`,
      type: 'Organization',
    }));
    await go('/console/bulk');
    await page.getByLabel(/^File/).setInputFiles({
      name: 'slow.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(records)),
    });
    await page.getByText('40 records').waitFor();
    await page.getByLabel('Job name').fill('console_stop');
    await page.getByLabel('Web search').selectOption('ON');
    await page.getByRole('button', { name: 'Submit job' }).click();
    const submitted = await page
      .getByText(/Submitted job (\S+) with 40 records/)
      .textContent({ timeout: WAIT });
    const jobId = /Submitted job (\S+) with/.exec(submitted!)![1];
    const card = page.locator(`li.job[data-job-id="${jobId}"]`);
    await card.getByRole('button', { name: 'Stop' }).click({ timeout: WAIT });
    await card.locator('.badge', { hasText: /^STOPPED$/ }).waitFor({ timeout: WAIT });
    const stopped = await api<{ content: { status: string; jobs_completed: number } }>(
      `/kg/v3/enhance/bulk/${jobId}/status`,
    );
    assert.equal(stopped.body.content.status, 'STOPPED');
    assert.ok(stopped.body.content.jobs_completed < 40);
    await shot('06-bulk-stopped');
    await card.getByRole('button', { name: 'Delete' }).click();
    await card.getByRole('button', { name: 'Confirm delete' }).click();
    await card.waitFor({ state: 'detached', timeout: WAIT });
    assert.equal((await api(`/kg/v3/enhance/bulk/${jobId}/status`)).status, 404);
  });

  test('custom rule set: validation messages, save, preview on pasted HTML and on a URL, delete', async () => {
    await go('/console/custom');
    const editor = page.locator('form.editor');
    await editor.getByLabel('URL pattern (regular expression)').fill('(fixture');
    await editor.getByRole('button', { name: 'Save rule set' }).click();
    const patternError = editor.locator('.field.invalid .error-text');
    await patternError.waitFor({ timeout: WAIT });
    assert.match((await patternError.textContent())!, /urlPattern/);
    assert.equal(
      await editor.getByLabel('URL pattern (regular expression)').getAttribute('aria-invalid'),
      'true',
    );

    await editor.getByLabel('URL pattern (regular expression)').fill('127\\.0\\.0\\.1');
    await editor.getByLabel('Rules (JSON)').fill('[{"name": "headline", "selector": "h1"');
    await editor.getByRole('button', { name: 'Save rule set' }).click();
    await editor.getByText('Rules are not valid JSON').waitFor();
    await editor.getByLabel('Rules (JSON)').fill('[{"name": "headline", "selector": "h1["}]');
    await editor.getByRole('button', { name: 'Save rule set' }).click();
    await editor.getByText(/rules\[0\]\.selector/).waitFor({ timeout: WAIT });
    await shot('07-custom-invalid');

    await editor.getByLabel('Rules (JSON)').fill('[{"name": "headline", "selector": "h1"}]');
    await editor.getByRole('button', { name: 'Save rule set' }).click();
    const saved = await editor.getByText(/Saved: hash/).textContent({ timeout: WAIT });
    const listed = await api<{ api: string; urlPattern: string; hash: string }[]>('/v3/custom');
    assert.equal(listed.body.length, 1);
    assert.equal(listed.body[0].urlPattern, '127\\.0\\.0\\.1');
    assert.ok(saved!.includes(listed.body[0].hash));
    await page.locator('ul.rulesets li').first().waitFor({ timeout: WAIT });

    const preview = page.locator('form.preview');
    await preview.getByLabel('Pasted HTML').check();
    await preview.getByLabel('Page URL (names the pasted page)').fill('http://127.0.0.1/pasted');
    await preview
      .getByLabel('Page HTML')
      .fill('<html><body><h1>Pasted headline</h1><p>Some text.</p></body></html>');
    await preview.getByRole('button', { name: 'Preview' }).click();
    await preview.getByText(/URL pattern matches it/).waitFor({ timeout: WAIT });
    assert.equal(JSON.parse((await preview.locator('pre').textContent())!)[0].headline, 'Pasted headline');

    await preview.getByLabel('A URL').check();
    await preview.getByLabel('Page URL (empty: the test URL)').fill(fixture.url('/pages/article.html'));
    await preview.getByRole('button', { name: 'Preview' }).click();
    await preview.getByText(`from ${fixture.url('/pages/article.html')}`).waitFor({ timeout: WAIT });
    const objects = JSON.parse((await preview.locator('pre').textContent())!);
    const h1 = /<h1[^>]*>([^<]*)<\/h1>/.exec(
      fs.readFileSync(path.join(import.meta.dirname, 'fixtures/pages/article.html'), 'utf8'),
    );
    assert.equal(objects[0].headline, h1?.[1].trim());
    await shot('08-custom-preview');

    await page.getByRole('button', { name: /^Delete \/api\/article/ }).click();
    await page.getByText('No rule set yet.').waitFor({ timeout: WAIT });
    assert.deepEqual((await api<unknown[]>('/v3/custom')).body, []);
  });

  test('bulk extract job: live counters, pause, resume, restart, downloads, delete', async () => {
    const pages = ['article', 'blog-post', 'product', 'company', 'person', 'listing'].map((name) =>
      fixture.url(`/pages/${name}.html`),
    );
    // A Custom API the token defines is offered beside the built-in ones.
    const ruleSet = {
      api: '/api/consoleNews',
      urlPattern: '127\\.0\\.0\\.1',
      rules: [{ name: 'headline', selector: 'h1' }],
    };
    const json = { 'content-type': 'application/json' };
    assert.equal(
      (await api('/v3/custom', { method: 'POST', headers: json, body: JSON.stringify(ruleSet) })).status,
      200,
    );
    await go('/console/extract');
    await page
      .getByLabel('Extraction API')
      .locator('option', { hasText: /^consoleNews$/ })
      .waitFor({ state: 'attached', timeout: WAIT });
    const { api: _api, urlPattern } = ruleSet;
    await api('/v3/custom', {
      method: 'DELETE',
      headers: json,
      body: JSON.stringify({ api: _api, urlPattern }),
    });
    await page.getByLabel('Job name (letters, digits, _ and -)').fill('bad name!');
    await page.getByLabel('URLs (one per line)').fill(pages.join('\n'));
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.getByRole('alert').getByText('Crawl names can consist only of').waitFor({ timeout: WAIT });

    await page.getByLabel('Job name (letters, digits, _ and -)').fill('console_crawl');
    await page.getByLabel('Crawl delay per host (seconds)').fill('1');
    await page.getByRole('button', { name: 'Create job' }).click();
    const card = page.locator('li.job[data-job-name="console_crawl"]');
    await card.getByRole('button', { name: 'Pause' }).click({ timeout: WAIT });
    await card.locator('.job-status[data-status="6"]').waitFor({ timeout: WAIT });
    const processed = card.locator('[data-counter="pageProcessAttempts"]');
    await page.waitForTimeout(1_500);
    const whilePaused = await processed.textContent();
    await page.waitForTimeout(2_500);
    assert.equal(await processed.textContent(), whilePaused, 'a paused job processes no more pages');
    assert.ok(Number(whilePaused) < pages.length);
    await shot('09-extract-paused');

    await card.getByRole('button', { name: 'Resume' }).click();
    await card.locator('.job-status[data-status="9"]').waitFor({ timeout: 60_000 });
    const record = (await api<{ jobs: Record<string, number>[] }>('/v3/bulk?name=console_crawl')).body
      .jobs[0];
    for (const counter of ['pageCrawlSuccesses', 'pageProcessSuccesses', 'objectsFound', 'urlsHarvested']) {
      assert.equal(
        await card.locator(`[data-counter="${counter}"]`).textContent(),
        String(record[counter]),
        counter,
      );
    }
    assert.equal(record.pageProcessAttempts, pages.length);
    await shot('10-extract-complete');

    const objects = await fetch(
      `${server.url}${await card.getByRole('link', { name: 'Objects (JSON)' }).getAttribute('href')}`,
    );
    assert.equal(objects.status, 200);
    assert.equal(((await objects.json()) as unknown[]).length, record.objectsFound);
    const urls = await fetch(
      `${server.url}${await card.getByRole('link', { name: 'URL report (CSV)' }).getAttribute('href')}`,
    );
    assert.equal(urls.status, 200);
    assert.equal((await urls.text()).trim().split('\n').length, pages.length + 1);

    const fetchedBefore = fixture.count('/pages/article.html');
    await card.getByRole('button', { name: 'Restart' }).click();
    await card.getByRole('button', { name: 'Confirm restart' }).click();
    await card.locator('.job-status[data-status="9"]').waitFor({ state: 'detached', timeout: WAIT });
    await card.locator('.job-status[data-status="9"]').waitFor({ timeout: 60_000 });
    assert.equal(
      fixture.count('/pages/article.html'),
      fetchedBefore + 1,
      'a restart fetches every URL again',
    );

    await card.getByRole('button', { name: 'Delete' }).click();
    await card.getByRole('button', { name: 'Confirm delete' }).click();
    await card.waitFor({ state: 'detached', timeout: WAIT });
    assert.equal((await api('/v3/bulk?name=console_crawl')).status, 404);
  });

  test('at 390 px wide every page fits the screen and the playground works', async () => {
    const narrow = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    try {
      await narrow.addInitScript((secret) => sessionStorage.setItem('quarry.token', secret), token);
      const phone = await narrow.newPage();
      phone.on('pageerror', (error) => pageErrors.push(error.message));
      const fits = () => phone.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
      await go('/console/enhance', phone);
      await phone.getByLabel('Name', { exact: true }).fill('Zokafego Analytics');
      await phone.getByRole('button', { name: 'Enhance', exact: true }).click();
      await phone.locator('li.candidate figure.chart').first().waitFor({ timeout: WAIT });
      assert.ok(await fits(), 'enhance results overflow 390 px');
      await shot('11-narrow-enhance', phone);
      for (const [name, pathname] of [
        ['bulk', '/console/bulk'],
        ['custom', '/console/custom'],
        ['extract', '/console/extract'],
        ['entity', `/console/entity/${organizationId}`],
      ]) {
        await go(pathname, phone);
        await phone.locator('main h2').first().waitFor({ timeout: WAIT });
        assert.ok(await fits(), `${pathname} overflows 390 px`);
        await shot(`12-narrow-${name}`, phone);
      }
    } finally {
      await narrow.close();
    }
  });

  test('keyboard only: token, query, results and an entity page, every stop labelled', async () => {
    const keyboard = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const kb = await keyboard.newPage();
      await go('/console/enhance', kb);
      // What the focused element is called, as a screen reader would say it.
      const focused = () =>
        kb.evaluate<{ tag: string; name: string; fieldName?: string | null }>(`(() => {
          const el = document.activeElement;
          if (!el || el === document.body) return { tag: 'body', name: '' };
          const labels = el.labels;
          const name = labels && labels.length ? labels[0].textContent : el.getAttribute('aria-label') || el.textContent;
          return { tag: el.tagName.toLowerCase(), name: (name || '').trim(), fieldName: el.getAttribute('name') };
        })()`);
      const tabTo = async (
        match: (el: { tag: string; name: string; fieldName?: string | null }) => boolean,
      ) => {
        for (let i = 0; i < 60; i++) {
          await kb.keyboard.press('Tab');
          const el = await focused();
          assert.notEqual(el.name, '', `an unlabelled ${el.tag} in the tab order`);
          if (match(el)) return;
        }
        assert.fail('not reached by Tab');
      };
      await kb.keyboard.press('Tab');
      assert.equal((await focused()).name, 'Skip to content');
      await tabTo((el) => el.fieldName === 'token');
      await kb.keyboard.type(token);
      await kb.keyboard.press('Enter');
      await kb.getByRole('button', { name: 'Forget token' }).waitFor({ timeout: WAIT });
      await tabTo((el) => el.fieldName === 'name');
      await kb.keyboard.type('Zokafego Analytics');
      await kb.keyboard.press('Enter');
      await kb.locator('li.candidate').first().waitFor({ timeout: WAIT });
      await tabTo((el) => el.tag === 'a' && el.name.startsWith('Zokafego Analytics'));
      await kb.keyboard.press('Enter');
      await kb.waitForURL('**/console/entity/**');
      await kb.locator('table.facts').waitFor({ timeout: WAIT });
      assert.equal(await kb.evaluate<string>('document.activeElement.tagName'), 'H1');
      await shot('13-keyboard-entity', kb);
    } finally {
      await keyboard.close();
    }
  });

  test('no script error on any page', () => {
    assert.deepEqual(pageErrors, []);
  });
});

/**
 * Issue 28 item 3: no CSV we write lets a spreadsheet run a cell as a formula — bulk CSV
 * downloads, coverage reports and bulk extract downloads (`/v3/bulk/data?format=csv`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { bulkClient } from './support/bulk-client.ts';
import { createJob, startCrawlRuntime, waitForStatus } from './support/crawl-runtime.ts';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const HOSTILE = [
  "=cmd|' /C calc'!A0",
  '=HYPERLINK("http://evil.example","x")',
  '+SUM(1,2)',
  '@SUM(A1)',
  '\t=1+1',
];

/** True when no cell of `rows` would be run as a formula (nor becomes one once trimmed). */
function noFormulaCell(rows: string[][]): boolean {
  return rows.every((row) =>
    row.every((cell) => !/^[=+@]/.test(cell.trimStart()) || /^[+-]?[\d.]/.test(cell)),
  );
}

describe('CSV formula injection', () => {
  let t: TestRuntime;
  before(async () => {
    t = await startTestRuntime();
  });
  after(async () => t.close());

  test('bulk CSV download and its coverage report neutralise formula cells', async () => {
    const token = await t.token();
    const client = bulkClient(t.runtime.app);
    const records = HOSTILE.map((name, i) => ({
      type: 'Organization',
      name,
      customId: HOSTILE[(i + 1) % 5],
    }));
    const jobId = (await client.submit(token, records)).json().job_id as string;
    await client.waitFinal(token, jobId);
    const res = await client.get(token, `/${jobId}`, '&format=csv&exportquery=true');
    assert.equal(res.statusCode, 200, res.body);
    const rows = parse(res.body, { relax_quotes: true }) as string[][];
    const nameColumn = rows[0].indexOf('query.name');
    assert.ok(nameColumn >= 0, rows[0].join());
    assert.deepEqual(
      rows.slice(1).map((row) => row[nameColumn]),
      // The query's name is trimmed when submitted: `\t=1+1` is stored as `=1+1`.
      HOSTILE.map((name) => `'${name.trim()}`),
    );
    assert.ok(noFormulaCell(rows));

    // A report whose column header (chosen in exportspec) is a formula.
    const spec = encodeURIComponent('name,=HYPERLINK("http://evil.example")');
    const withHeader = await client.get(token, `/${jobId}`, `&format=csv&exportspec=${spec}`);
    assert.equal(withHeader.statusCode, 200, withHeader.body);
    const reportId = withHeader.headers['x-diffbot-reportid'];
    const report = await client.get(token, `/report/${jobId}/${reportId}`);
    assert.equal(report.statusCode, 200, report.body);
    const reportRows = parse(report.body, { relax_quotes: true }) as string[][];
    assert.equal(reportRows[0][2], `'=HYPERLINK("http://evil.example")`);
    assert.ok(noFormulaCell(reportRows));
    const headerRow = parse(withHeader.body, { relax_quotes: true })[0] as string[];
    assert.equal(headerRow[0], `'=HYPERLINK("http://evil.example")`);
  });
});

describe('CSV formula injection in bulk extract downloads', () => {
  let site: FixtureServer;
  let t: Awaited<ReturnType<typeof startCrawlRuntime>>;
  before(async () => {
    site = await startFixtureServer();
    const title = HOSTILE[1].replace(/"/g, '&quot;');
    site.route(
      '/a/1',
      respond.html(
        `<!DOCTYPE html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>` +
          `<p>${'word '.repeat(40)}</p></article></body></html>`,
      ),
    );
    t = await startCrawlRuntime();
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  test('/v3/bulk/data?format=csv neutralises a page title that is a formula', async () => {
    const token = await t.token();
    await createJob(t.runtime, token, {
      name: 'hostile',
      apiUrl: '/v3/article',
      urls: site.url('/a/1'),
      crawlDelay: 0,
    });
    await waitForStatus(t.runtime, token, 'hostile', [9]);
    const res = await t.runtime.app.inject({ url: `/v3/bulk/data?token=${token}&name=hostile&format=csv` });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.body.includes('\r\n'), 'one encoder: CRLF records as every CSV we write');
    const rows = parse(res.body, { relax_quotes: true }) as string[][];
    const title = rows[0].indexOf('title');
    assert.equal(rows[1][title], `'${HOSTILE[1]}`);
    assert.ok(noFormulaCell(rows));
  });
});

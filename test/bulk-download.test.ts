import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buffer, text } from 'node:stream/consumers';
import { parse } from 'csv-parse/sync';
import { BulkExports } from '../src/bulk/index.ts';
import { createLogger } from '../src/logging.ts';
import { configuredStore } from '../src/runtime.ts';
import { assertSheetsEqualCsv, readWithExcelJs, readWithSheetJs } from './export-sheets.ts';
import { bulkClient, sampleRecords } from './support/bulk-client.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');
const RECORDS = 12;

describe('bulk enhance API: downloads and coverage reports', () => {
  let t: TestRuntime;
  let token: string;
  let client: ReturnType<typeof bulkClient>;
  let jobId: string;
  before(async () => {
    t = await startTestRuntime();
    await loadFixtureGraph(t.runtime.storage.entities, FIXTURE);
    token = await t.token(null);
    client = bulkClient(t.runtime.app);
    jobId = (await client.submit(token, sampleRecords(RECORDS), '&name=downloads')).json().job_id;
    await client.waitFinal(token, jobId);
    await t.runtime.services.bulkExports.settled();
  });
  after(async () => t.close());

  const download = (query = '', secret = token) => client.get(secret, `/${jobId}`, query);
  const lines = (body: string) =>
    body
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
  /** The runtime's own exports setting, but for `directory` and splitting any export of 2+ records. */
  const splitExportsDeps = (directory: string) => {
    const { runtime } = t;
    return {
      service: runtime.services.bulk,
      store: runtime.storage.bulkJobs,
      storeLocator: configuredStore(runtime.config),
      directory: path.join(t.dataDir, directory),
      logger: createLogger({ level: 'silent' }),
      splitMinRecords: 2,
    };
  };

  describe('formats', () => {
    test('default: JSON Lines, one full enhance response per record, in input order', async () => {
      const res = await download();
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/json-lines');
      assert.match(res.headers['x-diffbot-reportid'] as string, /^rp_[0-9a-f]{24}$/);
      const records = lines(res.body);
      assert.equal(records.length, RECORDS);
      records.forEach((response, i) => {
        assert.equal(response.request_ctx.query_ctx.jobIdx, i);
        assert.equal(response.version, 3);
        assert.ok(Array.isArray(response.data) && 'searchInfo' in response);
      });
      assert.equal(records[0].request_ctx.query.customId, 'c0');
      assert.equal(records[1].data[0].entity.id, 'ORG-globex');
      assert.equal(records[2].hits, 0);
      // Each line equals the single result of the same record.
      const single = (await client.get(token, `/${jobId}/4`)).json();
      assert.deepEqual(records[4], single);
      assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body));
    });

    test('format=json is a JSON array of the same responses', async () => {
      const jsonl = lines((await download()).body);
      const res = await download('&format=json');
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['content-type'] as string, /^application\/json/);
      assert.deepEqual(res.json(), jsonl);
    });

    test('csv: RFC 4180 rows with exportspec columns, separator and query prefix', async () => {
      const res = await download(
        `&format=csv&exportspec=${encodeURIComponent('id;name,Company;allNames')}&exportseparator=|&exportquery=true`,
      );
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['content-type'] as string, /^text\/csv/);
      const rows = parse(res.body) as string[][];
      const header = rows[0];
      assert.ok(header.includes('Company'));
      assert.ok(header.includes('query.name'));
      assert.equal(header.at(-3), 'id');
      assert.equal(rows.length, 1 + RECORDS, 'one row per record (one match each or none)');
      const acme = rows[1];
      assert.equal(acme[header.indexOf('id')], 'ORG-acme');
      assert.equal(acme[header.indexOf('Company')], 'Acme Robotics Inc.');
      assert.equal(acme[header.indexOf('allNames')], 'Acme Robotics Inc.|Acme Robotics');
      assert.equal(acme[header.indexOf('customId')], 'c0');
      assert.equal(rows[3][header.indexOf('id')], '', 'a record without a match has empty entity cells');
      assert.ok(res.body.includes('\r\n'), 'CRLF line ends');
    });

    for (const format of ['xlsx', 'xls'] as const) {
      test(`${format}: read back with a real reader, equal to the CSV cell by cell`, async () => {
        const spec = encodeURIComponent('id;name;score;location.city.name,City');
        const csv = parse((await download(`&format=csv&exportspec=${spec}`)).body) as string[][];
        const res = await t.runtime.app.inject({
          method: 'GET',
          url: `/kg/v3/enhance/bulk/${jobId}?token=${token}&format=${format}&exportspec=${spec}`,
        });
        assert.equal(res.statusCode, 200);
        const file = res.rawPayload;
        const read = format === 'xlsx' ? await readWithExcelJs(file) : readWithSheetJs(file);
        assert.deepEqual(assertSheetsEqualCsv(read.sheets, csv), [RECORDS]);
        if (format === 'xlsx') assertSheetsEqualCsv(readWithSheetJs(file).sheets, csv);
      });
    }
  });

  describe('parameters', () => {
    const indexes = async (query: string) =>
      lines((await download(query)).body).map((r) => r.request_ctx.query_ctx.jobIdx as number);

    test('from is 1-based, size counts from it, head caps the window', async () => {
      assert.deepEqual(await indexes('&head=3'), [0, 1, 2]);
      assert.deepEqual(await indexes('&from=2&size=2'), [1, 2]);
      assert.deepEqual(await indexes('&from=0&size=1'), [0]);
      assert.deepEqual(await indexes('&from=11'), [10, 11]);
      assert.deepEqual(await indexes('&from=2&size=5&head=2'), [1, 2]);
      assert.deepEqual(await indexes('&from=50'), []);
      assert.deepEqual(await indexes('&size=-1'), [...Array(RECORDS).keys()]);
    });

    test('onlyMatches drops records without a hit', async () => {
      const kept = await indexes('&onlyMatches=true');
      assert.deepEqual(
        kept,
        [...Array(RECORDS).keys()].filter((i) => i % 3 !== 2),
      );
      assert.equal((await indexes('&onlyMatches=false')).length, RECORDS);
    });

    test('filter and filterExclude apply to each entity, which keeps id and type', async () => {
      const kept = lines((await download('&filter=name')).body)[0].data[0].entity;
      assert.deepEqual(Object.keys(kept).sort(), ['id', 'name', 'type']);
      const dropped = lines((await download('&filterExclude=allNames;location')).body)[0].data[0].entity;
      assert.equal(dropped.allNames, undefined);
      assert.equal(dropped.location, undefined);
      assert.equal(dropped.homepageUri, 'acme-robotics.example');
    });

    test('exportfile sets a sanitised Content-Disposition', async () => {
      const res = await download(`&format=csv&exportfile=${encodeURIComponent('../../etc/passwd')}`);
      assert.equal(res.headers['content-disposition'], 'attachment; filename="passwd.csv"');
      const unicode = await download(`&exportfile=${encodeURIComponent('résumé')}`);
      assert.match(
        unicode.headers['content-disposition'] as string,
        /filename\*=UTF-8''r%C3%A9sum%C3%A9\.jsonl/,
      );
      assert.equal((await download()).headers['content-disposition'], undefined);
    });

    test('POST takes the same parameters in a JSON body (the body wins over the query)', async () => {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: `/kg/v3/enhance/bulk/${jobId}?token=${token}&format=csv`,
        payload: { format: 'json', from: 2, size: 2, onlyMatches: 'true', filter: 'name' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(
        body.map((r: { request_ctx: { query_ctx: { jobIdx: number } } }) => r.request_ctx.query_ctx.jobIdx),
        [1],
      );
      assert.deepEqual(Object.keys(body[0].data[0].entity).sort(), ['id', 'name', 'type']);
      const empty = await t.runtime.app.inject({
        method: 'POST',
        url: `/kg/v3/enhance/bulk/${jobId}?token=${token}`,
      });
      assert.equal(empty.statusCode, 200);
      assert.equal(lines(empty.body).length, RECORDS);
    });

    test('invalid parameters are 400s naming them', async () => {
      for (const [query, parameter] of [
        ['&format=pdf', 'format'],
        ['&head=-1', 'head'],
        ['&from=x', 'from'],
        ['&size=-2', 'size'],
        ['&wait=soon', 'wait'],
        ['&onlyMatches=maybe', 'onlyMatches'],
        ['&filter=$[', 'filter'],
        ['&format=csv&exportspec=$[', 'exportspec'],
      ]) {
        const res = await download(query);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.match(res.json().message, new RegExp(parameter.replace('$', '\\$')), query);
      }
      const post = await t.runtime.app.inject({
        method: 'POST',
        url: `/kg/v3/enhance/bulk/${jobId}?token=${token}`,
        payload: { format: ['csv'], head: {} },
      });
      assert.equal(post.statusCode, 400);
    });
  });

  describe('coverage reports', () => {
    test('the completion report is listed in the status; CSV whatever Accept says, JSON on request', async () => {
      const status = (await client.get(token, `/${jobId}/status`)).json().content;
      const first = status.reports[0];
      assert.equal(first.status, 'COMPLETE');
      assert.equal(first.format, 'jsonl');
      const csv = await t.runtime.app.inject({
        method: 'GET',
        url: `/kg/v3/enhance/bulk/report/${jobId}/${first.reportId}?token=${token}`,
        headers: { accept: 'application/json' },
      });
      assert.equal(csv.statusCode, 200);
      assert.match(csv.headers['content-type'] as string, /^text\/csv/);
      const rows = parse(csv.body, { relax_column_count: true }) as string[][];
      assert.deepEqual(rows[0].slice(0, 4), ['DiffbotID', 'Name', 'id', 'name']);
      assert.deepEqual(rows[1].slice(0, 4), ['', '', '0.6667', '0.6667']);
      assert.equal(rows.length, 2 + RECORDS);
      assert.deepEqual(rows[2].slice(0, 4), ['ORG-acme', 'Acme Robotics Inc.', '1', '1']);
      assert.deepEqual(rows[4].slice(0, 4), ['', '', '0', '0']);
      const json = await client.get(token, `/report/${jobId}/${first.reportId}`, '&format=json');
      assert.equal(json.statusCode, 200);
      const body = json.json();
      assert.deepEqual(body.columns, rows[0]);
      assert.equal(body.coverage.id, 0.6667);
      assert.equal(body.rows.length, RECORDS);
    });

    test('each export with new parameters gets its report, named by X-Diffbot-ReportId', async () => {
      const a = await download('&format=csv&exportspec=id;name');
      const again = await download('&format=csv&exportspec=id;name');
      const b = await download('&format=csv&exportspec=id');
      assert.equal(a.headers['x-diffbot-reportid'], again.headers['x-diffbot-reportid']);
      assert.notEqual(a.headers['x-diffbot-reportid'], b.headers['x-diffbot-reportid']);
      const reports = (await client.get(token, `/${jobId}/status`)).json().content.reports as {
        reportId: string;
        spec: string;
        format: string;
      }[];
      const listed = reports.find((r) => r.reportId === b.headers['x-diffbot-reportid']);
      assert.equal(listed?.spec, 'id');
      assert.equal(listed?.format, 'csv');
      const report = await client.get(token, `/report/${jobId}/${listed!.reportId}`);
      assert.equal(report.body.split('\r\n')[0], 'DiffbotID,Name,id,customId');
    });

    test('an export of the same columns in another format or separator reuses the equal report written', async () => {
      const completion = (await client.get(token, `/${jobId}/status`)).json().content.reports[0].reportId;
      const dir = path.join(t.dataDir, 'bulk-exports', jobId);
      const files = (reportId: string) =>
        ['csv', 'json'].map((form) => path.join(dir, `${reportId}.coverage.${form}`));
      for (const query of ['&format=csv', '&format=xlsx&exportseparator=|', '&format=json&wait=30']) {
        const res = await download(query);
        assert.equal(res.statusCode, 200, query);
        const reportId = res.headers['x-diffbot-reportid'] as string;
        assert.notEqual(reportId, completion, query);
        for (const form of ['', '&format=json']) {
          const got = await client.get(token, `/report/${jobId}/${reportId}`, form);
          const expected = await client.get(token, `/report/${jobId}/${completion}`, form);
          assert.equal(got.statusCode, 200);
          assert.equal(got.body, expected.body, `${query} ${form}`);
        }
        // The very files of the completion report: no second pass over the records.
        const [csv, json] = files(reportId);
        const [completionCsv, completionJson] = files(completion);
        assert.equal(fs.statSync(csv).ino, fs.statSync(completionCsv).ino, query);
        assert.equal(fs.statSync(json).ino, fs.statSync(completionJson).ino, query);
      }
      // Other columns or records: a report of its own.
      const matches = await download('&format=csv&onlyMatches=true');
      const report = await client.get(token, `/report/${jobId}/${matches.headers['x-diffbot-reportid']}`);
      assert.equal(report.body.trimEnd().split('\r\n').length, 2 + 8);
      const [csv] = files(matches.headers['x-diffbot-reportid'] as string);
      assert.notEqual(fs.statSync(csv).ino, fs.statSync(files(completion)[0]).ino);
    });

    test('400 while a report is generated, 404 when unknown or malformed', async () => {
      const status = (await client.get(token, `/${jobId}/status`)).json().content;
      const reportId = status.reports[0].reportId;
      await t.runtime.storage.bulkJobs.updateReport(reportId, { status: 'IN_PROCESS' });
      try {
        const generating = await client.get(token, `/report/${jobId}/${reportId}`);
        assert.equal(generating.statusCode, 400);
        assert.match(generating.json().message, /still being generated/);
      } finally {
        await t.runtime.storage.bulkJobs.updateReport(reportId, { status: 'COMPLETE' });
      }
      assert.equal((await client.get(token, `/report/${jobId}/rp_000000000000000000000000`)).statusCode, 404);
      assert.equal((await client.get(token, `/report/${jobId}/nope`)).statusCode, 404);
      assert.equal(
        (await client.get(token, `/report/bj_000000000000000000000000/${reportId}`)).statusCode,
        404,
      );
      assert.equal((await client.get(token, `/report/bad/${reportId}`)).statusCode, 400);
    });
  });

  describe('exports written by two threads', () => {
    test('csv and jsonl split in two parts equal the single-thread export, header once', async () => {
      const split = new BulkExports(splitExportsDeps('split-exports'));
      const tokenId = (await t.runtime.services.tokens.find(token))!.id;
      const spec = encodeURIComponent('id;name,Say "hi";allNames');
      for (const query of [
        `format=csv&exportspec=${spec}`,
        'format=jsonl',
        'format=csv&from=2&size=7&onlyMatches=true',
      ]) {
        const params = Object.fromEntries(new URLSearchParams(query));
        const reference = await download(`&${query}`);
        const answer = await split.download(tokenId, jobId, params);
        // Asked for at once: the download is answered once its file is written, maybe before the
        // halves' reports are merged; the report waits for the merge then.
        const reports = [undefined, 'json'].map((form) =>
          split.report(tokenId, jobId, answer.reportId, form),
        );
        assert.equal(await text(answer.body), reference.body, query);
        // The two halves' coverage reports, merged, equal the one-pass report, in both forms.
        assert.equal(answer.reportId, reference.headers['x-diffbot-reportid']);
        for (const [i, form] of [undefined, 'json'].entries()) {
          const merged = await text((await reports[i]).body);
          const onePass = await client.get(
            token,
            `/report/${jobId}/${answer.reportId}`,
            form ? `&format=${form}` : '',
          );
          assert.equal(merged, onePass.body, `${query} report ${form ?? 'csv'}`);
        }
      }
      const logged = fs.readdirSync(path.join(t.dataDir, 'split-exports', jobId));
      assert.ok(
        !logged.some((name) => /\.(1|2|part)$/.test(name)),
        `no part files left: ${logged.join(', ')}`,
      );
      await split.close();
    });
  });

  describe('a split export whose report was still being merged when the server stopped', () => {
    test('the download stays; the report is written at the next start, equal to the one-pass report', async () => {
      const { runtime } = t;
      const options = splitExportsDeps('merge-interrupted');
      const { directory } = options;
      const tokenId = (await runtime.services.tokens.find(token))!.id;
      const params = { format: 'csv', exportspec: 'id;name;allNames;customId' };
      // The runtime's own export of the same parameters: the one-pass reference.
      const reference = await download(`&format=csv&exportspec=${encodeURIComponent(params.exportspec)}`);
      const first = new BulkExports(options);
      const answer = await first.download(tokenId, jobId, params);
      const exported = await text(answer.body);
      await first.settled();
      await first.close();
      // What a stop between the download's answer and the end of the merge leaves.
      const dir = path.join(directory, jobId);
      for (const form of ['csv', 'json']) fs.rmSync(path.join(dir, `${answer.reportId}.coverage.${form}`));
      fs.writeFileSync(path.join(dir, `${answer.reportId}.coverage.csv.1`), 'a part not merged');
      fs.writeFileSync(path.join(dir, `${answer.reportId}.coverage.json.2`), 'a part not merged');
      await runtime.storage.bulkJobs.updateReport(answer.reportId, { status: 'IN_PROCESS' });

      const next = new BulkExports(options);
      await next.resume();
      await next.settled();
      const report = await runtime.storage.bulkJobs.report(jobId, answer.reportId);
      assert.equal(report?.status, 'COMPLETE');
      assert.equal(report?.exportStatus, 'COMPLETE');
      assert.equal(exported, reference.body);
      assert.equal(await text((await next.download(tokenId, jobId, params)).body), exported);
      assert.deepEqual(
        fs.readdirSync(dir).filter((name) => /\.\d+$/.test(name)),
        [],
        'the parts not merged are gone',
      );
      const onePass = await client.get(token, `/report/${jobId}/${answer.reportId}`);
      assert.equal(
        await text((await next.report(tokenId, jobId, answer.reportId, undefined)).body),
        onePass.body,
      );
      const json = await client.get(token, `/report/${jobId}/${answer.reportId}`, '&format=json');
      assert.equal(await text((await next.report(tokenId, jobId, answer.reportId, 'json')).body), json.body);
      await next.close();
    });
  });

  describe('spreadsheets prepared by two threads', () => {
    test('xlsx and xls assembled from two halves of rows read back equal to the single-thread file', async () => {
      const { runtime } = t;
      // The second thread's rows reach the writer in several files.
      const split = new BulkExports({ ...splitExportsDeps('split-sheets'), rowsChunkRecords: 2 });
      const tokenId = (await runtime.services.tokens.find(token))!.id;
      const spec = encodeURIComponent('id;name;allNames');
      for (const query of [
        `format=xlsx&exportspec=${spec}`,
        'format=xls',
        'format=xlsx&from=1&size=9&onlyMatches=true',
      ]) {
        const params = Object.fromEntries(new URLSearchParams(query));
        const reference = await download(`&${query}`);
        assert.equal(reference.statusCode, 200, query);
        const answer = await split.download(tokenId, jobId, params);
        const file = await buffer(answer.body);
        const expected = readWithSheetJs(reference.rawPayload).sheets;
        const got = readWithSheetJs(file).sheets;
        assert.ok(got[0].length > 2, `${query}: rows ${got[0].length}`);
        assert.deepEqual(got, expected, query);
        if (params.format === 'xlsx') {
          const exceljs = (await readWithExcelJs(reference.rawPayload)).sheets;
          assert.deepEqual((await readWithExcelJs(file)).sheets, exceljs, query);
        }
        // The merged coverage report of the halves equals the one-pass report.
        const merged = await buffer((await split.report(tokenId, jobId, answer.reportId, undefined)).body);
        const onePass = await client.get(token, `/report/${jobId}/${answer.reportId}`);
        assert.equal(merged.toString('utf8'), onePass.body, `${query} report`);
      }
      const left = fs.readdirSync(path.join(t.dataDir, 'split-sheets', jobId));
      assert.ok(
        !left.some((name) => /\.(rows\.\d|1|2|part)$/.test(name)),
        `no part files left: ${left.join(', ')}`,
      );
      await split.close();
    });
  });

  describe('completion reports yield to downloads', () => {
    test('a download asked for as the job completes is served first; the completion report still completes', async () => {
      const exports = t.runtime.services.bulkExports;
      const id = (await client.submit(token, sampleRecords(400), '&name=yield')).json().job_id;
      await client.waitFinal(token, id);
      // The completion report has just started; a download arrives at once.
      const res = await client.get(token, `/${id}`, '&format=csv&wait=60');
      assert.equal(res.statusCode, 200);
      assert.equal(parse(res.body).length, 401);
      await exports.settled();
      const reports = (await client.get(token, `/${id}/status`)).json().content.reports as {
        reportId: string;
        status: string;
      }[];
      // The completion report (put off, then done) and the download's.
      assert.equal(reports.length, 2);
      for (const report of reports) assert.equal(report.status, 'COMPLETE', JSON.stringify(reports));
      for (const report of reports) {
        const csv = await client.get(token, `/report/${id}/${report.reportId}`);
        assert.equal(csv.statusCode, 200);
        assert.ok(csv.body.length > 0);
      }
      // The same download again is the file already written.
      const again = await client.get(token, `/${id}`, '&format=csv');
      assert.equal(again.body, res.body);
    });

    test('a download of the completion report’s own key writes that report once, with the export', async () => {
      const exports = t.runtime.services.bulkExports;
      const id = (await client.submit(token, sampleRecords(300), '&name=same-key')).json().job_id;
      await client.waitFinal(token, id);
      const res = await client.get(token, `/${id}`, '&wait=60');
      assert.equal(res.statusCode, 200);
      assert.equal(lines(res.body).length, 300);
      await exports.settled();
      const reports = (await client.get(token, `/${id}/status`)).json().content.reports as {
        reportId: string;
        status: string;
      }[];
      assert.equal(reports.length, 1);
      assert.equal(reports[0].status, 'COMPLETE');
      assert.equal(reports[0].reportId, res.headers['x-diffbot-reportid']);
    });
  });

  describe('job states and ownership', () => {
    test('201 while the job runs; wait=0 only starts an export; a stopped job downloads what it has', async () => {
      const running = (await client.submit(token, sampleRecords(2_000))).json().job_id;
      const early = await client.get(token, `/${running}`);
      assert.equal(early.statusCode, 201);
      assert.equal(early.json().code, 201);
      assert.equal(early.json().status, 'IN_PROCESS');
      await client.get(token, `/${running}/stop`);
      const done = (await t.runtime.storage.bulkJobs.get(running))!.completed;
      const started = await client.get(token, `/${running}`, '&wait=0');
      assert.equal(started.statusCode, 201);
      assert.match(started.json().message, /export .* has started/);
      await t.runtime.services.bulkExports.settled();
      const res = await client.get(token, `/${running}`, '&wait=0');
      // A stopped job is not complete: 201 as the contract says, with what it has as the body.
      assert.equal(res.statusCode, 201);
      assert.ok(res.headers['x-diffbot-reportid']);
      const got = lines(res.body).map((r) => r.request_ctx.query_ctx.jobIdx);
      assert.equal(got.length, done);
      assert.deepEqual(
        got,
        [...got].sort((a, b) => a - b),
      );
    });

    test('another token gets 404 for downloads and reports; a deleted job’s files are removed', async () => {
      const other = await t.token(null);
      const reportId = (await download()).headers['x-diffbot-reportid'];
      assert.equal((await download('', other)).statusCode, 404);
      assert.equal((await client.get(other, `/report/${jobId}/${reportId}`)).statusCode, 404);
      const post = await t.runtime.app.inject({
        method: 'POST',
        url: `/kg/v3/enhance/bulk/${jobId}?token=${other}`,
        payload: {},
      });
      assert.equal(post.statusCode, 404);

      const doomed = (await client.submit(token, sampleRecords(3))).json().job_id;
      await client.waitFinal(token, doomed);
      assert.equal((await client.get(token, `/${doomed}`)).statusCode, 200);
      const dir = path.join(t.dataDir, 'bulk-exports', doomed);
      assert.ok(fs.existsSync(dir));
      await client.get(token, `/${doomed}/delete`);
      assert.equal((await client.get(token, `/${doomed}`)).statusCode, 404);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(fs.existsSync(dir), false, 'export files are deleted with the job');
    });
  });
});

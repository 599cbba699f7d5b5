import assert from 'node:assert/strict';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { openSqliteStorage } from '../storage/sqlite/index.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { csvCell, exportObjects, exportUrlReport } from './data-export.ts';

test('CSV cells: scalars as text, scalar lists joined with ;, structures as JSON', async () => {
  assert.equal(csvCell(undefined), '');
  assert.equal(csvCell(null), '');
  assert.equal(csvCell('a, "b"'), 'a, "b"');
  assert.equal(csvCell(3.5), '3.5');
  assert.equal(csvCell(false), 'false');
  assert.equal(csvCell(['x', 2, null]), 'x;2;');
  assert.equal(csvCell([{ a: 1 }]), '[{"a":1}]');
  assert.equal(csvCell({ city: 'Lyon' }), '{"city":"Lyon"}');
});

test('objects and the URL report stream as JSON and CSV across store pages', async () => {
  const dir = tempDir();
  const storage = openSqliteStorage(path.join(dir.path, 'q.sqlite'));
  try {
    const count = 1_234;
    const urls = Array.from({ length: count }, (_, i) => ({
      url: `https://s.example/${i}`,
      host: 's.example',
    }));
    const job = (await storage.crawlJobs.createJob({
      tokenId: 't',
      name: 'j',
      settings: {} as never,
      status: 7,
      resumeStatus: null,
      urls: [...urls, { url: 'bad', invalid: 'not an absolute URL' }],
      now: 1,
    }))!;
    const claimed = await storage.crawlJobs.claim(job.id, 0, 10, count, 1);
    await storage.crawlJobs.recordOutcomes(
      claimed.map((url) => ({
        jobId: job.id,
        seq: url.seq,
        claim: 1,
        kind: 'done' as const,
        crawlAttempts: 1,
        crawled: true,
        processAttempted: true,
        processed: true,
        objects: [
          JSON.stringify({
            type: 'article',
            pageUrl: url.url,
            title: `T "${url.seq}"`,
            tags: ['a', 'b'],
            timestamp: 5,
          }),
        ],
        outcome: 'processed' as const,
        httpStatus: 200,
        at: 9,
      })),
    );
    const json = JSON.parse(await text(exportObjects(storage.crawlJobs, job.id, 'json')));
    assert.equal(json.length, count);
    assert.deepEqual(json[1233], {
      type: 'article',
      pageUrl: 'https://s.example/1233',
      title: 'T "1233"',
      tags: ['a', 'b'],
      timestamp: 5,
    });
    const rows = parse(await text(exportObjects(storage.crawlJobs, job.id, 'csv'))) as string[][];
    assert.deepEqual(rows[0], ['pageUrl', 'type', 'timestamp', 'title', 'tags']);
    assert.equal(rows.length, count + 1);
    assert.deepEqual(rows[1], ['https://s.example/0', 'article', '5', 'T "0"', 'a;b']);
    const report = JSON.parse(await text(exportUrlReport(storage.crawlJobs, job.id, 'json')));
    assert.equal(report.length, count + 1);
    assert.deepEqual(report[count], {
      url: 'bad',
      status: 'invalid_url',
      httpStatus: null,
      attempts: 0,
      error: 'not an absolute URL',
      resolvedPageUrl: null,
      objects: 0,
      finishedAt: 1,
    });
    const reportCsv = parse(await text(exportUrlReport(storage.crawlJobs, job.id, 'csv'))) as string[][];
    assert.deepEqual(reportCsv[0], [
      'url',
      'status',
      'httpStatus',
      'attempts',
      'error',
      'resolvedPageUrl',
      'objects',
      'finishedAt',
    ]);
    assert.deepEqual(reportCsv[1], ['https://s.example/0', 'processed', '200', '1', '', '', '1', '9']);
    // An empty job is an empty array / a header line.
    const empty = (await storage.crawlJobs.createJob({
      tokenId: 't',
      name: 'e',
      settings: {} as never,
      status: 7,
      resumeStatus: null,
      urls: [],
      now: 1,
    }))!;
    assert.deepEqual(JSON.parse(await text(exportObjects(storage.crawlJobs, empty.id, 'json'))), []);
    assert.equal(await text(exportObjects(storage.crawlJobs, empty.id, 'csv')), '\r\n');
  } finally {
    storage.close();
    dir.remove();
  }
});

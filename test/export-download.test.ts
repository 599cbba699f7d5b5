/**
 * The library used the way a download route uses it (the usage documented in
 * `src/export/index.ts`), over a real listening Fastify server and a real HTTP client.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import type { ExportSummary, ResultRecord } from '../src/export/index.ts';
import {
  contentDisposition,
  createExportPlan,
  EXPORT_FORMATS,
  exportStream,
  exportWindow,
  sanitizeExportFileName,
  windowRecords,
} from '../src/export/index.ts';
import { QuarryError } from '../src/errors.ts';
import { generatedRecords, resultRecord } from './export-fixtures.ts';
import { readWithSheetJs } from './export-sheets.ts';
import { tempDir } from './support/temp-dir.ts';

const RECORDS = generatedRecords(300, 21);
const temp = tempDir('quarry-export-download-');
let finished: Promise<Error | ExportSummary | undefined> = Promise.resolve(undefined);

/** Records produced slowly and without end, like a large job read from the store. */
async function* endless(): AsyncGenerator<ResultRecord> {
  for (let i = 0; ; i++) {
    if (i % 200 === 0) await sleep(1);
    yield resultRecord(i, { customId: `c${i}` }, [
      { entity: { id: `E${i}`, type: 'Person', name: 'n'.repeat(200) } },
    ]);
  }
}

const app = Fastify();
app.get('/download', (request, reply) => {
  const params = request.query as Record<string, string>;
  const plan = createExportPlan(params);
  const window = exportWindow(params);
  const fileName = sanitizeExportFileName(params.exportfile ?? 'job-1', plan.format);
  const source = params.endless === 'true' ? endless() : RECORDS;
  let done: (value: Error | ExportSummary | undefined) => void = () => {};
  finished = new Promise((resolve) => {
    done = resolve;
  });
  return reply
    .header('content-type', EXPORT_FORMATS[plan.format].contentType)
    .header('content-disposition', contentDisposition(fileName))
    .send(
      exportStream(windowRecords(source, window), plan, {
        tempDir: temp.path,
        onDone: (error, summary) => done(error ?? summary),
      }),
    );
});
app.setErrorHandler((error, _request, reply) => {
  const status = error instanceof QuarryError ? error.status : 500;
  return reply.code(status).send({ code: status, message: (error as Error).message, error: true });
});

let base = '';
before(async () => {
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
after(async () => {
  await app.close();
  temp.remove();
});

describe('a download route built on the export library', () => {
  test('xls download: headers, a window of records, a workbook a real reader opens', async () => {
    const response = await fetch(
      `${base}/download?format=xls&from=11&size=20&exportspec=id;name&exportfile=../Résumé`,
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/ms-excel');
    assert.equal(
      response.headers.get('content-disposition'),
      `attachment; filename="R_sum_.xls"; filename*=UTF-8''R%C3%A9sum%C3%A9.xls`,
    );
    const { sheets } = readWithSheetJs(Buffer.from(await response.arrayBuffer()));
    const customIds = sheets[0].slice(1).map((row) => row[2]);
    assert.ok(customIds.includes('cid-10'), 'record 11 (1-based) is the first');
    assert.ok(!customIds.includes('cid-9'));
    const summary = (await finished) as ExportSummary;
    assert.equal(summary.records, 20);
  });

  test('the default download is JSON Lines', async () => {
    const response = await fetch(`${base}/download?head=5`);
    assert.equal(response.headers.get('content-type'), 'application/json-lines');
    const lines = (await response.text()).trim().split('\n');
    assert.equal(lines.length, 5);
    assert.equal(JSON.parse(lines[0]).kgversion, 'test-1');
  });

  test('bad parameters are a 400 naming the parameter', async () => {
    const response = await fetch(`${base}/download?format=csv&exportspec=${encodeURIComponent('$.a[')}`);
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as { message: string }).message, /exportspec.*'\$\.a\['/);
  });

  for (const [format, when] of [
    ['xlsx', 'after 256 KiB of the file'],
    ['xls', 'while the workbook is still being spooled'],
  ] as const) {
    test(`${format}: a client that disconnects ${when} stops the export; temp files are removed`, async () => {
      await new Promise<void>((resolve) => {
        const request = http.get(`${base}/download?format=${format}&endless=true`, (response) => {
          let received = 0;
          response.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > 256 * 1024) request.destroy();
          });
          response.on('error', () => {});
        });
        request.on('error', () => {});
        request.on('close', () => resolve());
        // xls sends nothing until the end: give up waiting for data after a moment.
        setTimeout(() => request.destroy(), 500).unref();
      });
      const outcome = await finished;
      assert.ok(
        outcome instanceof Error,
        `the export reports the early close, got ${JSON.stringify(outcome)}`,
      );
      assert.deepEqual(await readdir(temp.path), []);
    });
  }
});

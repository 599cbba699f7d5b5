import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import { ACME, ADA, Collector, resultRecord } from '../../test/export-fixtures.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { createExportPlan } from './export-plan.ts';
import type { ResultRecord } from './result-record.ts';
import { exportStream, type RecordSource, writeExport } from './write-export.ts';

const RECORDS: ResultRecord[] = [
  resultRecord(0, { type: 'Person', name: ['Ada'], customId: 'a' }, [{ entity: ADA, score: 0.97 }]),
  resultRecord(1, { type: 'Organization', name: ['Nobody'], customId: 'b' }),
  resultRecord(2, { type: 'Organization', name: ['Acme'], customId: 'c' }, [{ entity: ACME, score: 0.5 }]),
];

async function exported(records: RecordSource, options: object) {
  const output = new Collector();
  const summary = await writeExport(records, output, createExportPlan(options));
  return { text: output.text(), summary };
}

describe('jsonl', () => {
  test('one full response per line, in input order, newline-terminated', async () => {
    const { text, summary } = await exported(RECORDS, {});
    assert.ok(text.endsWith('\n'));
    const lines = text.split('\n').slice(0, -1);
    assert.deepEqual(
      lines.map((line) => JSON.parse(line)),
      RECORDS.map((record) => record.response),
    );
    assert.deepEqual(summary, { records: 3, rows: 3, bytes: Buffer.byteLength(text) });
  });

  test('filters and onlyMatches apply', async () => {
    const { text } = await exported(RECORDS, { format: 'jsonl', filter: 'name', onlyMatches: 'true' });
    const responses = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      responses.map((response) => response.data[0].entity),
      [
        { id: 'PER-ada', type: 'Person', name: 'Ada Lovelace' },
        { id: 'ORG-acme', type: 'Organization', name: 'Acme, "the" Company' },
      ],
    );
  });
});

describe('records given as JSON text', () => {
  /** RECORDS with their text; reading `response` or `query` of a record counts in `reads`. */
  function withText(reads: { count: number }): ResultRecord[] {
    return RECORDS.map((record) => ({
      index: record.index,
      get query() {
        reads.count++;
        return record.query;
      },
      get response() {
        reads.count++;
        return record.response;
      },
      text: JSON.stringify(record.response),
    }));
  }

  test('json and jsonl without a filter write the text without reading the response', async () => {
    for (const format of ['jsonl', 'json']) {
      const reads = { count: 0 };
      const { text } = await exported(withText(reads), { format });
      assert.equal(text, (await exported(RECORDS, { format })).text, format);
      assert.equal(reads.count, 0, format);
    }
  });

  test('a filter or onlyMatches still apply to the response', async () => {
    for (const options of [{ filter: 'name' }, { onlyMatches: 'true' }, { filter: 'name', format: 'json' }]) {
      const reads = { count: 0 };
      const { text } = await exported(withText(reads), options);
      assert.equal(text, (await exported(RECORDS, options)).text, JSON.stringify(options));
      assert.ok(reads.count > 0);
    }
  });
});

describe('records given by pages', () => {
  test('pages (arrays of records) export as the same records one by one, in every format', async () => {
    async function* pages() {
      yield [RECORDS[0], RECORDS[1]];
      yield [];
      yield [RECORDS[2]];
    }
    async function* single() {
      yield* RECORDS;
    }
    for (const options of [
      { format: 'jsonl' },
      { format: 'json', onlyMatches: 'true' },
      { format: 'csv' },
      { format: 'csv', onlyMatches: 'true', exportspec: 'id;name' },
    ]) {
      const paged = await exported(pages(), options);
      assert.deepEqual(paged, await exported(single(), options), JSON.stringify(options));
      assert.deepEqual(paged, await exported(RECORDS, options));
    }
  });
});

describe('json', () => {
  test('a valid JSON array of the same responses', async () => {
    const { text } = await exported(RECORDS, { format: 'json' });
    assert.deepEqual(
      JSON.parse(text),
      RECORDS.map((record) => record.response),
    );
  });

  test('no record gives an empty array', async () => {
    const { text, summary } = await exported([], { format: 'json' });
    assert.deepEqual(JSON.parse(text), []);
    assert.equal(summary.records, 0);
  });

  test('reads an async iterable', async () => {
    async function* slowly() {
      for (const record of RECORDS) {
        await sleep(1);
        yield record;
      }
    }
    const { text } = await exported(slowly(), { format: 'json', onlyMatches: true });
    assert.equal(JSON.parse(text).length, 2);
  });
});

describe('csv (RFC 4180)', () => {
  test('CRLF records; quotes, commas, newlines quoted; unicode kept as UTF-8', async () => {
    const tricky = {
      id: 'X1',
      type: 'Organization',
      name: 'He said "hi", then\nleft\r\nagain',
      description: 'Ünïcödé — 東京 😀',
      allNames: ['plain', 'with,comma'],
    };
    const records = [resultRecord(0, { customId: 'q"1' }, [{ entity: tricky, score: 0.125 }])];
    const { text } = await exported(records, {
      format: 'csv',
      exportspec: 'id;name;description;allNames;score',
    });
    assert.equal(
      text,
      'id,name,description,allNames,score,customId\r\n' +
        'X1,"He said ""hi"", then\nleft\r\nagain",Ünïcödé — 東京 😀,"plain;with,comma",0.125,"q""1"\r\n',
    );
    const parsed = parse(text, { relax_column_count: false });
    assert.deepEqual(parsed[1], [
      'X1',
      'He said "hi", then\nleft\r\nagain',
      'Ünïcödé — 東京 😀',
      'plain;with,comma',
      '0.125',
      'q"1',
    ]);
  });

  test('the default columns, one row per match and one for a record without', async () => {
    const { text, summary } = await exported(RECORDS, { format: 'csv' });
    const rows = parse(text) as string[][];
    assert.deepEqual(rows[0].slice(0, 5), ['id', 'name', 'type', 'score', 'query.type']);
    assert.deepEqual(
      rows.slice(1).map((row) => [row[0], row[3], row.at(-1)]),
      [
        ['PER-ada', '0.97', 'a'],
        ['', '', 'b'],
        ['ORG-acme', '0.5', 'c'],
      ],
    );
    assert.deepEqual(summary, { records: 3, rows: 3, bytes: Buffer.byteLength(text) });
  });

  test('many rows come out complete and in order', async () => {
    const many = Array.from({ length: 2000 }, (_, i) =>
      resultRecord(i, { customId: String(i) }, [{ entity: { id: `E${i}`, type: 'Person', name: `N,${i}` } }]),
    );
    const rows = parse((await exported(many, { format: 'csv', exportspec: 'id;name' })).text) as string[][];
    assert.equal(rows.length, 2001);
    assert.deepEqual(rows[1234], ['E1233', 'N,1233', '1233']);
  });
});

describe('streaming', () => {
  test('a slow reader gets everything while the writer waits for drain', async () => {
    let received = 0;
    let writes = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        writes++;
        setTimeout(callback, 1);
      },
    });
    const many = Array.from({ length: 3000 }, (_, i) =>
      resultRecord(i, { customId: String(i) }, [{ entity: ADA }]),
    );
    const summary = await writeExport(many, slow, createExportPlan({ format: 'jsonl' }));
    assert.equal(received, summary.bytes);
    assert.ok(writes > 10, `expected batched writes, got ${writes}`);
  });

  test('the output closing early rejects the export and removes xls temp files', async () => {
    const dir = tempDir();
    try {
      const closing = new Writable({
        write(_chunk, _encoding, callback) {
          this.destroy();
          callback();
        },
      });
      const many = Array.from({ length: 2000 }, (_, i) =>
        resultRecord(i, {}, [{ entity: { id: `E${i}`, type: 'Person', name: 'x'.repeat(100) } }]),
      );
      await assert.rejects(
        writeExport(many, closing, createExportPlan({ format: 'xls' }), { tempDir: dir.path }),
      );
      assert.deepEqual(await readdir(dir.path), []);
    } finally {
      dir.remove();
    }
  });

  test('a failing record source rejects the export and destroys the output', async () => {
    async function* failing() {
      yield RECORDS[0];
      throw new Error('store went away');
    }
    const output = new Collector();
    await assert.rejects(
      writeExport(failing(), output, createExportPlan({ format: 'csv' })),
      /store went away/,
    );
    assert.equal(output.destroyed, true);
  });

  test('an aborted signal stops the export', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await assert.rejects(
      writeExport(RECORDS, new Collector(), createExportPlan(), { signal: controller.signal }),
      /cancelled/,
    );
  });

  test('exportStream is a Readable of the same bytes', async () => {
    const chunks: Buffer[] = [];
    let done: unknown;
    const stream = exportStream(RECORDS, createExportPlan({ format: 'csv' }), {
      onDone: (error, summary) => {
        done = error ?? summary;
      },
    });
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const direct = await exported(RECORDS, { format: 'csv' });
    assert.equal(Buffer.concat(chunks).toString(), direct.text);
    await sleep(0);
    assert.deepEqual(done, direct.summary);
  });

  test('exportStream fails the Readable when the export fails', async () => {
    async function* failing() {
      yield RECORDS[0];
      throw new Error('store went away');
    }
    const stream = exportStream(failing(), createExportPlan({ format: 'xlsx' }));
    await assert.rejects(async () => {
      for await (const _ of stream);
    }, /store went away/);
  });
});

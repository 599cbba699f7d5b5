import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonString } from '../../storage/index.ts';
import {
  fromBlock,
  JobPreparer,
  LineBatcher,
  type PreparedRecord,
  type PrepareOptions,
  prepareRecord,
  toBlock,
} from './record-preparer.ts';

const options: PrepareOptions = { format: 'jsonl', fileName: 'test.jsonl' };

/** A record's fields with its JSON text as strings, whichever form it came in. */
function asText(record: PreparedRecord) {
  const json = Object.fromEntries(
    Object.entries(record.json).map(([field, value]) => [field, value === null ? null : jsonString(value)]),
  );
  return { ...record, json };
}

/** Every job of `input` split by a LineBatcher fed in chunks of `chunk` bytes, prepared. */
function prepareAll(input: string, prepareOptions: PrepareOptions = options, chunk = 7) {
  const batcher = new LineBatcher(prepareOptions);
  const preparer = new JobPreparer(prepareOptions);
  const bytes = Buffer.from(input, 'utf8');
  const jobs = [];
  for (let i = 0; i < bytes.length; i += chunk) {
    batcher.push(bytes.subarray(i, i + chunk));
    for (let job = batcher.take(3); job !== undefined; job = batcher.take(3)) jobs.push(job);
  }
  batcher.end();
  for (let job = batcher.take(3); job !== undefined; job = batcher.take(3)) jobs.push(job);
  const records: PreparedRecord[] = [];
  const rejects = [];
  for (const job of jobs) {
    // As a worker receives it.
    const chunkDone = preparer.prepare(structuredClone(job));
    records.push(...fromBlock(structuredClone(chunkDone.block)));
    rejects.push(...chunkDone.rejects);
  }
  return { records, rejects, jobs };
}

test('prepared records cross to the main thread as a block of bytes and come back whole, in order', () => {
  const records = [
    prepareRecord(
      {
        id: 'ORG-1',
        type: 'Organization',
        name: 'Acme Zoë 東京 🎓',
        homepageUri: 'acme.example',
        origins: ['https://acme.example'],
      },
      1,
      options,
    ),
    prepareRecord({ id: 'PER-1', type: 'Person', name: 'Jane Roe', origins: ['https://a.example'] }, 3, {
      ...options,
      source: 'crm',
    }),
  ];
  assert.equal(records[0].json.ledger, null, 'a null field stays null');
  const block = structuredClone(toBlock(records));
  assert.deepEqual(block.id, ['ORG-1', 'PER-1']);
  assert.deepEqual([...block.fields].sort(), Object.keys(records[0].json).sort());
  const back = fromBlock(block);
  assert.ok(back[0].json.doc instanceof Uint8Array, 'the JSON text comes back as UTF-8 bytes');
  assert.deepEqual(back.map(asText), records);
  assert.deepEqual(fromBlock(toBlock([])), []);
});

test('lines go to the workers as bytes: the same records and rejections whatever the chunks and jobs', () => {
  const lines = [
    JSON.stringify({
      id: 'ORG-1',
      type: 'Organization',
      name: 'Zoë 東京 🎓 GmbH',
      allNames: ['Zoë 東京 🎓 GmbH'],
    }),
    '',
    '{"id": "ORG-2", "type": "Organization", "name": "  Spaced  "}',
    '{not json',
    'x'.repeat(300),
    JSON.stringify({ id: 'PER-1', type: 'Person', name: 'Jane Roe' }),
  ];
  const input = `\ufeff${lines.join('\r\n')}`;
  const { records, rejects, jobs } = prepareAll(input, { ...options, maxLineBytes: 200 });
  assert.ok(jobs.length > 1, 'several jobs');
  assert.deepEqual(
    records.map((record) => [record.line, record.id]),
    [
      [1, 'ORG-1'],
      [3, 'ORG-2'],
      [6, 'PER-1'],
    ],
  );
  assert.deepEqual(
    rejects.map((reject) => reject.line),
    [4, 5],
  );
  assert.match(rejects[1].reason, /bytes long, more than the 200-byte limit/);
  // A line stored as it was read keeps its exact bytes (no BOM, no CR); a cleaned one is rewritten.
  assert.equal(jsonString(records[0].json.doc), lines[0]);
  assert.equal(JSON.parse(jsonString(records[1].json.doc)).name, 'Spaced');
  for (const chunk of [1, 3, 1000]) {
    const again = prepareAll(input, { ...options, maxLineBytes: 200 }, chunk);
    assert.deepEqual(again.records.map(asText), records.map(asText));
    assert.deepEqual(again.rejects, rejects);
  }
});

test('a line that is not valid UTF-8 is rejected by the worker that decodes it', () => {
  const good = Buffer.from(`${JSON.stringify({ id: 'ORG-1', type: 'Organization', name: 'Acme' })}\n`);
  const bad = Buffer.concat([
    Buffer.from('{"id":"ORG-2","type":"Organization","name":"A'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('"}\n'),
  ]);
  const batcher = new LineBatcher(options);
  batcher.push(Buffer.concat([bad, good]));
  batcher.end();
  const job = batcher.take(10)!;
  const { block, rejects } = new JobPreparer(options).prepare(job);
  assert.deepEqual(rejects, [{ line: 1, reason: 'line is not valid UTF-8' }]);
  assert.deepEqual(block.id, ['ORG-1']);
});

test('CSV: the header row is taken on the main thread, rows are prepared from bytes', () => {
  const csv = '\n"id",type,name\nORG-1,Organization,"Acme, ""Inc"""\nORG-2,Organization,"Multi\nline"\n';
  const { records, rejects } = prepareAll(csv, { format: 'csv', fileName: 'test.csv' }, 5);
  assert.deepEqual(rejects, []);
  assert.deepEqual(
    records.map((record) => [record.line, JSON.parse(jsonString(record.json.doc)).name]),
    [
      [3, 'Acme, "Inc"'],
      [4, 'Multi\nline'],
    ],
  );
});

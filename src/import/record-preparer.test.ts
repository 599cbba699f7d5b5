import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromColumns, fromPostedJob, prepareRecord, toColumns, toPostedJob } from './record-preparer.ts';

test('prepared records cross to the main thread as columns and come back whole, in order', () => {
  const options = { format: 'jsonl' as const, fileName: 'test.jsonl' };
  const records = [
    prepareRecord(
      { id: 'ORG-1', type: 'Organization', name: 'Acme', homepageUri: 'acme.example' },
      1,
      options,
    ),
    prepareRecord({ id: 'PER-1', type: 'Person', name: 'Jane Roe', origins: ['https://a.example'] }, 3, {
      ...options,
      source: 'crm',
    }),
  ];
  const columns = toColumns(records);
  assert.deepEqual(columns.id, ['ORG-1', 'PER-1']);
  assert.deepEqual(Object.keys(columns.json).sort(), Object.keys(records[0].json).sort());
  assert.deepEqual(fromColumns(structuredClone(columns)), records);
  assert.deepEqual(fromColumns(toColumns([])), []);
});

test('a job crosses to a worker as parallel arrays and comes back whole, unreadable lines included', () => {
  const job = {
    lines: [
      { line: 4, text: '{"id":"ORG-1"}' },
      { line: 5, error: 'line longer than 10 bytes' },
      { line: 7, text: 'a,"b\nc"' },
    ],
    header: ['name', 'homepageUri'],
  };
  const posted = toPostedJob(job);
  assert.deepEqual(posted.numbers, [4, 5, 7]);
  assert.deepEqual(posted.unreadable, [1]);
  assert.deepEqual(fromPostedJob(structuredClone(posted)), job);
  assert.deepEqual(fromPostedJob(toPostedJob({ lines: [], header: undefined })), {
    lines: [],
    header: undefined,
  });
});

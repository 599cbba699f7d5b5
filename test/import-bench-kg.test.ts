import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { importEntities } from '../src/import/index.ts';
import { openSqliteStorage } from '../src/storage/sqlite/index.ts';
import { tempDir } from './support/temp-dir.ts';

const BENCH = path.join(import.meta.dirname, '..', '..', 'shared', 'bench');
const FILES = ['kg-organizations.jsonl', 'kg-persons.jsonl', 'kg-historical.jsonl', 'kg-febrl.jsonl'];

test('the four bench KG files import together with zero rejects, entities stored as given', async () => {
  const dir = tempDir();
  const storage = openSqliteStorage(path.join(dir.path, 'quarry.sqlite'));
  let lines = 0;
  for (const file of FILES) {
    const summary = await importEntities(storage.entities, fs.createReadStream(path.join(BENCH, file)), {
      fileName: file,
    });
    assert.equal(summary.rejected, 0, `${file}: ${JSON.stringify(summary.rejects)}`);
    assert.equal(summary.created, summary.linesRead, `${file}: every line is a new entity`);
    lines += summary.linesRead;
  }
  assert.equal(lines, 9428 + 5228 + 4710 + 4603);
  assert.deepEqual(storage.entities.counts(), { organizations: 9428, persons: 5228 + 4710 + 4603 });
  const [first] = fs.readFileSync(path.join(BENCH, 'kg-organizations.jsonl'), 'utf8').split('\n', 1);
  const expected = JSON.parse(first);
  const stored = storage.entities.getById(expected.id);
  assert.deepEqual(stored?.doc, expected, 'a single-source entity is stored exactly as the file states it');
  assert.equal(stored?.ledger, null, 'its source is its own origins: no ledger is stored');
  assert.ok(storage.entities.refsForKey(`d:${expected.homepageUri}`, 10).includes(stored!.ref));
  const person = storage.entities.getById('PER-fake-2');
  assert.equal(person?.doc.name, 'Nathan Hill');
  assert.deepEqual(person?.ledger, { sources: [{ source: 'import:kg-persons.jsonl' }] });
  storage.close();
  dir.remove();
});

import assert from 'node:assert/strict';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openSqliteStorage } from '../src/storage/index.ts';
import { applyMigrations } from '../src/storage/sqlite/index.ts';
import { runStorageContract } from './storage-contract.ts';
import { runBulkStorageContract } from './storage-contract-bulk.ts';
import { runCrawlStorageContract } from './storage-contract-crawl.ts';
import { runCustomApiStoreContract } from './storage-contract-extract.ts';
import { runKgImportStorageContract } from './storage-contract-kg-import.ts';
import { runMatchStoreContract } from './storage-contract-match.ts';
import { openTempSqliteStorage } from './support/temp-sqlite.ts';
import { tempDir } from './support/temp-dir.ts';

runStorageContract('sqlite', async () => {
  const dir = tempDir();
  const storage = openSqliteStorage(path.join(dir.path, 'quarry.sqlite'));
  return {
    storage,
    cleanup: async () => {
      storage.close();
      dir.remove();
    },
  };
});
runCustomApiStoreContract('sqlite', openTempSqliteStorage);
runKgImportStorageContract('sqlite', openTempSqliteStorage);
runMatchStoreContract('sqlite', openTempSqliteStorage);

runBulkStorageContract('sqlite', openTempSqliteStorage);

test('sqlite: data survives close and reopen of the file', () => {
  const dir = tempDir();
  const file = path.join(dir.path, 'quarry.sqlite');
  const first = openSqliteStorage(file);
  first.tokens.create({ id: 'tok_keep', secretHash: 'h-keep', credits: 3 });
  first.close();
  const second = openSqliteStorage(file);
  assert.equal(second.tokens.findById('tok_keep')?.credits, 3);
  second.close();
  dir.remove();
});

test('sqlite: migrations are recorded once and applied independently of order', () => {
  const db = new DatabaseSync(':memory:');
  const first = applyMigrations(db, [{ version: 5, name: 'five', sql: 'CREATE TABLE five (x)' }]);
  assert.deepEqual(first, [5]);
  const second = applyMigrations(db, [
    { version: 3, name: 'three', sql: 'CREATE TABLE three (x)' },
    { version: 5, name: 'five', sql: 'CREATE TABLE five (x)' },
  ]);
  assert.deepEqual(second, [3]);
  assert.throws(
    () => applyMigrations(db, [{ version: 7, name: 'broken', sql: 'CREATE TABLE five (x)' }]),
    /migration 7 \(broken\) failed/,
  );
  const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all();
  assert.deepEqual(
    versions.map((row) => row.version),
    [3, 5],
  );
  db.close();
});

runCrawlStorageContract('sqlite', openTempSqliteStorage);

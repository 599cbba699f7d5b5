import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openSqliteStorage, startWalCheckpointer } from '../src/storage/sqlite/index.ts';
import { applyMigrations } from '../src/storage/sqlite/index.ts';
import {
  createTransactionRunner,
  openSqliteDatabase,
  withPragmas,
} from '../src/storage/sqlite/sqlite-database.ts';
import { SqliteEntityStore } from '../src/storage/sqlite/sqlite-entity-store.ts';
import { MIGRATIONS } from '../src/storage/sqlite/migrations/index.ts';
import type { EntityType } from '../src/kg/index.ts';
import type { EntityWrite } from '../src/storage/ports.ts';
import { tempDir } from './support/temp-dir.ts';
import { loadConfig } from '../src/config.ts';
import { configuredStore } from '../src/runtime.ts';

test('sqlite: data survives close and reopen of the file', async () => {
  const dir = tempDir();
  const file = path.join(dir.path, 'quarry.sqlite');
  const first = openSqliteStorage(file);
  await first.tokens.create({ id: 'tok_keep', secretHash: 'h-keep', credits: 3 });
  first.close();
  const second = openSqliteStorage(file);
  assert.equal((await second.tokens.findById('tok_keep'))?.credits, 3);
  second.close();
  dir.remove();
});

test('sqlite: migrations are recorded once and applied independently of order', async () => {
  const db = new DatabaseSync(':memory:');
  const first = applyMigrations(db, [{ version: 5, name: 'five', sql: 'CREATE TABLE five (x)' }]);
  assert.deepEqual(first, [5]);
  const second = applyMigrations(db, [
    { version: 3, name: 'three', sql: 'CREATE TABLE three (x)' },
    { version: 5, name: 'five', sql: 'CREATE TABLE five (x)' },
  ]);
  assert.deepEqual(second, [3]);
  assert.throws(
    () =>
      applyMigrations(db, [
        { version: 3, name: 'three', sql: 'CREATE TABLE three (x)' },
        { version: 5, name: 'five', sql: 'CREATE TABLE five (x)' },
        { version: 7, name: 'broken', sql: 'CREATE TABLE five (x)' },
      ]),
    /migration 7 \(broken\) failed/,
  );
  // A build that does not know migration 5 (an older Quarry) refuses the store, changing nothing.
  assert.throws(
    () => applyMigrations(db, [{ version: 3, name: 'three', sql: 'CREATE TABLE three (x)' }]),
    /has migration 5, which this Quarry does not know/,
  );
  const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all();
  assert.deepEqual(
    versions.map((row) => row.version),
    [3, 5],
  );
  db.close();
});

test('sqlite: a read snapshot does not see commits made meanwhile by another connection', async () => {
  const dir = tempDir();
  const file = path.join(dir.path, 'quarry.sqlite');
  const writer = openSqliteStorage(file);
  const reader = openSqliteStorage(file, { readOnly: true });
  const write = (id: string) =>
    writer.entities.writeBatch([
      {
        id,
        type: 'Organization',
        doc: { id, type: 'Organization', name: id },
        ledger: null,
        keys: [`t:${id}`],
        profile: { name: id },
      },
    ]);
  write('ORG-A');
  const inside = reader.readSnapshot(() => {
    const version = reader.entities.version();
    const counts = reader.entities.counts();
    write('ORG-B');
    return {
      version,
      counts,
      versionAfter: reader.entities.version(),
      countsAfter: reader.entities.counts(),
      b: reader.entities.getById('ORG-B'),
    };
  });
  assert.equal(inside.versionAfter, inside.version);
  assert.deepEqual(inside.countsAfter, inside.counts);
  assert.equal(inside.b, undefined);
  // Outside the snapshot the new commit is there.
  assert.notEqual(reader.entities.version(), inside.version);
  assert.equal(reader.entities.getById('ORG-B')?.id, 'ORG-B');
  assert.deepEqual(reader.entities.counts(), { organizations: 2, persons: 0 });
  reader.close();
  writer.close();
  dir.remove();
});

test('sqlite: entity counts of a store created before the counts table are taken at migration', async () => {
  const db = new DatabaseSync(':memory:');
  // Migration 3 (profiles in a table of their own) came later: such a store had the column.
  const before = MIGRATIONS.filter((m) => m.version < 21 && m.version !== 3);
  applyMigrations(db, before);
  db.exec(`INSERT INTO entities (id, type, doc, profile, keys, updated_at) VALUES
    ('o1', 'Organization', '{}', '{}', '[]', 0), ('o2', 'Organization', '{}', '{}', '[]', 0),
    ('p1', 'Person', '{}', '{}', '[]', 0)`);
  applyMigrations(db, MIGRATIONS);
  const rows = db.prepare('SELECT type, n FROM entity_counts ORDER BY type').all();
  assert.deepEqual(
    rows.map((row) => [row.type, row.n]),
    [
      ['Organization', 2],
      ['Person', 1],
    ],
  );
  db.close();
});

test('sqlite: a store made before profiles had a table of their own answers the same profiles once migrated', async () => {
  const entities = (profile: (n: number) => unknown) =>
    [1, 2, 3].map((n): EntityWrite => {
      const type: EntityType = n === 2 ? 'Person' : 'Organization';
      return {
        id: `E-${n}`,
        type,
        doc: { id: `E-${n}`, type, name: `Entity ${n}` },
        ledger: null,
        profile: profile(n),
        keys: [`t:e${n}`, 't:shared'],
      };
    });
  const written = entities((n) => ({ name: [`entity ${n}`], n, nested: { list: [n, 'x'] } }));
  // The same entities in a store of today and in one of migrations 1–2, 20 and later (the
  // profile stored in the entity's row), written as that schema's import wrote them.
  const fresh = openSqliteStorage(':memory:');
  fresh.entities.writeBatch(written);
  const dir = tempDir();
  const file = path.join(dir.path, 'quarry.sqlite');
  const old = new DatabaseSync(file);
  applyMigrations(
    old,
    MIGRATIONS.filter((m) => m.version !== 3),
  );
  const insert = old.prepare(
    'INSERT INTO entities (id, type, doc, ledger, profile, keys, updated_at) VALUES (?, ?, ?, NULL, ?, ?, 0)',
  );
  const insertKey = old.prepare('INSERT INTO entity_keys (key, ref) VALUES (?, ?)');
  for (const entity of written) {
    const { lastInsertRowid } = insert.run(
      entity.id,
      entity.type,
      JSON.stringify(entity.doc),
      JSON.stringify(entity.profile),
      JSON.stringify(entity.keys),
    );
    for (const key of entity.keys) insertKey.run(key, lastInsertRowid);
  }
  old.close();
  const logged: string[] = [];
  const upgrading = new DatabaseSync(file);
  assert.deepEqual(
    applyMigrations(upgrading, MIGRATIONS, (line) => logged.push(line)),
    [3],
  );
  upgrading.close();
  assert.match(logged.join('\n'), /applying migration 3 .*\n.*migration 3 applied in/);
  const migrated = openSqliteStorage(file);
  const refs = migrated.entities.refsForKey('t:shared', 10);
  assert.deepEqual(
    migrated.entities.profiles(refs),
    fresh.entities.profiles(fresh.entities.refsForKey('t:shared', 10)),
  );
  assert.deepEqual(
    migrated.entities.profiles(refs).map((p) => p.profile),
    written.map((e) => e.profile),
  );
  assert.deepEqual(migrated.entities.counts(), { organizations: 2, persons: 1 });
  assert.equal(migrated.entities.getById('E-2')?.doc.name, 'Entity 2');
  // Writes after the migration keep the profile table in step: an update, a new entity.
  migrated.entities.writeBatch([
    ...entities((n) => ({ name: [`renamed ${n}`] })).slice(0, 1),
    { ...written[0], id: 'E-4', profile: { name: ['four'] } },
  ]);
  const after = migrated.entities.profiles(migrated.entities.refsForKey('t:shared', 10));
  assert.deepEqual(
    after.map((p) => [p.id, p.profile]),
    [
      ['E-1', { name: ['renamed 1'] }],
      ['E-2', written[1].profile],
      ['E-3', written[2].profile],
      ['E-4', { name: ['four'] }],
    ],
  );
  migrated.close();
  // The entities' rows no longer hold a copy; a row deleted takes its profile along.
  const raw = new DatabaseSync(file);
  const columns = raw.prepare("SELECT name FROM pragma_table_info('entities')").all();
  assert.equal(
    columns.some((c) => c.name === 'profile'),
    false,
  );
  raw.exec("DELETE FROM entities WHERE id = 'E-3'");
  assert.deepEqual(
    raw
      .prepare('SELECT id FROM entity_profiles ORDER BY ref')
      .all()
      .map((row) => row.id),
    ['E-1', 'E-2', 'E-4'],
  );
  raw.close();
  fresh.close();
  dir.remove();
});

test('sqlite: new stores get 16 KiB pages; a store made with 4 KiB pages keeps them and still works', async () => {
  const dir = tempDir();
  const pageSize = (file: string) => {
    const db = new DatabaseSync(file, { readOnly: true });
    const size = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    db.close();
    return size;
  };
  const fresh = path.join(dir.path, 'new.sqlite');
  openSqliteStorage(fresh).close();
  assert.equal(pageSize(fresh), 16_384);

  const old = path.join(dir.path, 'old.sqlite');
  const db = new DatabaseSync(old);
  db.exec('PRAGMA page_size = 4096; PRAGMA journal_mode = WAL;');
  applyMigrations(db, MIGRATIONS);
  db.close();
  const storage = openSqliteStorage(old);
  storage.entities.writeBatch(
    [
      {
        id: 'O-1',
        type: 'Organization',
        json: { doc: '{"id":"O-1","type":"Organization"}', ledger: null, profile: '{}', keys: '["t:old"]' },
      },
    ],
    { deferKeys: true },
  );
  assert.equal(storage.entities.indexPendingKeys(), 1);
  assert.deepEqual(storage.entities.refsForKey('t:old', 5).length, 1);
  storage.close();
  assert.equal(pageSize(old), 4096);
});

test('sqlite: bulk results stored with searchInfo in the same row stay readable, whole, after migration', async () => {
  const dir = tempDir();
  const file = path.join(dir.path, 'quarry.sqlite');
  // A store as written before searchInfo had a table of its own (migrations up to 100).
  const old = new DatabaseSync(file);
  applyMigrations(
    old,
    MIGRATIONS.filter((m) => m.version < 101),
  );
  old.exec(`INSERT INTO bulk_jobs (seq, id, token_id, name, options, state, total, completed, submit_time)
    VALUES (3, 'bj_old', 'tok', 'old', '{}', 'COMPLETE', 3, 3, 0)`);
  const insert = old.prepare(
    'INSERT INTO bulk_results (key, hits, failed, response, search_info) VALUES (?, ?, ?, ?, ?)',
  );
  const base = 3 * 2 ** 24;
  const stored = [0, 1, 2].map((index) => ({
    index,
    hits: index % 2,
    failed: index === 2,
    response: JSON.stringify({
      version: 3,
      data: [{ score: index }],
      errors: [],
      note: 'é'.repeat(index * 900),
    }),
    searchInfo: JSON.stringify({ candidates: Array.from({ length: 40 * index }, (_, k) => k) }),
  }));
  for (const r of stored) insert.run(base + r.index, r.hits, r.failed ? 1 : 0, r.response, r.searchInfo);
  old.close();

  const storage = openSqliteStorage(file);
  try {
    const jobs = storage.bulkJobs;
    assert.deepEqual(await jobs.results('bj_old', 0, 10), stored);
    assert.deepEqual(
      await jobs.results('bj_old', 1, 10, { searchInfo: false }),
      stored.slice(1).map((r) => ({ ...r, searchInfo: '' })),
    );
    assert.deepEqual(await jobs.result('bj_old', 2), stored[2]);
    // Stored before summaries existed (migration 103): read with `summary`, the response comes.
    assert.deepEqual(
      await jobs.results('bj_old', 0, 10, { summary: true }),
      stored.map((r) => ({ ...r, searchInfo: '' })),
    );
    // New results of the migrated store are kept whole as well, and a purge removes every part.
    await jobs.saveResults('bj_old', [
      { index: 3, hits: 0, failed: false, response: '{"data":[]}', searchInfo: '{}' },
    ]);
    assert.equal((await jobs.results('bj_old', 0, 10)).length, 4);
    while (!(await jobs.purge('bj_old', 2)));
    assert.equal(await jobs.result('bj_old', 0), undefined);
  } finally {
    storage.close();
  }
  const after = new DatabaseSync(file, { readOnly: true });
  const columns = after.prepare('SELECT name FROM pragma_table_info(?)').all('bulk_results');
  assert.deepEqual(
    columns.map((column) => column.name),
    // `summary`: migration 103.
    ['key', 'hits', 'failed', 'response', 'summary'],
  );
  assert.equal((after.prepare('SELECT count(*) AS n FROM bulk_search_info').get() as { n: number }).n, 0);
  after.close();
  dir.remove();
});

test('sqlite: indexing pending keys sorts with its own settings and gives the connection back its own', async () => {
  const db = openSqliteDatabase(':memory:');
  const entities = new SqliteEntityStore(db, createTransactionRunner(db));
  db.exec('PRAGMA threads = 0; PRAGMA cache_size = -3000; PRAGMA temp_store = MEMORY');
  const settings = () => ({
    threads: db.prepare('PRAGMA threads').get()?.threads,
    cacheSize: db.prepare('PRAGMA cache_size').get()?.cache_size,
    tempStore: db.prepare('PRAGMA temp_store').get()?.temp_store,
  });
  const before = settings();
  entities.writeBatch(
    Array.from({ length: 50 }, (_, i) => ({
      id: `K-${i}`,
      type: 'Organization' as const,
      doc: { id: `K-${i}`, type: 'Organization' as const, name: `K ${i}` },
      ledger: null,
      profile: { k: 'O' as const, n: [`k ${i}`] },
      keys: [`t:k${i % 7}`, `d:k${i}.example`],
    })),
    { deferKeys: true },
  );
  assert.equal(entities.indexPendingKeys(), 50);
  assert.equal(entities.refsForKey('t:k3', 100).length, 7);
  assert.deepEqual(settings(), before);
  db.close();
});

/**
 * 10,000 organizations `<prefix>-<from>`… as a bulk load writes them (a batch this large makes the
 * store checkpoint from a thread of its own), each with one key `t:<id>`.
 */
function bulkBatch(prefix: string, from: number, description?: string) {
  return Array.from({ length: 10_000 }, (_, i) => {
    const id = `${prefix}-${from + i}`;
    const doc = {
      id,
      type: 'Organization' as const,
      name: `Bulk ${from + i}`,
      ...(description !== undefined ? { description } : {}),
    };
    return {
      id,
      type: 'Organization' as const,
      doc,
      ledger: null,
      profile: { k: 'O' as const, n: [id] },
      keys: [`t:${id}`],
    };
  });
}

test('sqlite: a large bulk load checkpoints the WAL from a thread of its own while the writer goes on', async () => {
  const dir = tempDir();
  const file = path.join(dir.path, 'quarry.sqlite');
  const storage = openSqliteStorage(file);
  const batch = (from: number) => bulkBatch('B', from, 'x'.repeat(500));
  const databaseBytes = () => fs.statSync(file).size;
  const before = databaseBytes();
  // ~6 MB of WAL: under the writer's own auto-checkpoint threshold of a bulk load (64 MiB), so
  // only another thread copies it into the database file meanwhile.
  storage.entities.writeBatch(batch(0), { deferKeys: true });
  const deadline = Date.now() + 20_000;
  while (databaseBytes() < before + 5 * 2 ** 20 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(
    databaseBytes() >= before + 5 * 2 ** 20,
    `database file ${databaseBytes()} bytes: not checkpointed`,
  );
  storage.entities.writeBatch(batch(10_000), { deferKeys: true });
  assert.equal(storage.entities.indexPendingKeys(), 20_000);
  assert.deepEqual(storage.entities.refsForKey('t:B-19999', 10).length, 1);
  storage.close();
  const reopened = openSqliteStorage(file);
  assert.equal(reopened.entities.counts().organizations, 20_000);
  assert.equal(reopened.entities.getById('B-12345')?.doc.name, 'Bulk 12345');
  reopened.close();
  dir.remove();
});

test('sqlite: a WAL checkpointer whose thread fails tells its owner once, and neither ends the process nor hangs stop()', async () => {
  const dir = tempDir();
  // A path under a file, not a directory: the thread's connection cannot open.
  fs.writeFileSync(path.join(dir.path, 'plain'), '');
  const failures: Error[] = [];
  const checkpointer = startWalCheckpointer(path.join(dir.path, 'plain', 'quarry.sqlite'), {
    intervalMs: 10,
    onFailure: (error) => failures.push(error),
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await checkpointer.stop();
  await checkpointer.stop();
  assert.equal(failures.length, 1);
  assert.match(failures[0].message, /unable to open/);
  dir.remove();
});

test('sqlite: when the checkpointing thread of a bulk load fails, the writer checkpoints by itself at the bulk threshold again', async () => {
  const dir = tempDir();
  const storeDir = path.join(dir.path, 'store');
  fs.mkdirSync(storeDir);
  const db = openSqliteDatabase(path.join(storeDir, 'quarry.sqlite'));
  const entities = new SqliteEntityStore(db, createTransactionRunner(db));
  // The store's path disappears: this connection keeps its open files, a new one cannot open.
  fs.renameSync(storeDir, path.join(dir.path, 'moved'));
  const batch = (from: number) => bulkBatch('F', from);
  const pageSize = Number(db.prepare('PRAGMA page_size').get()?.page_size);
  const threshold = () => Number(db.prepare('PRAGMA wal_autocheckpoint').get()?.wal_autocheckpoint);
  entities.writeBatch(batch(0), { deferKeys: true });
  // A thread was started: the writer's own threshold is the 1 GiB ceiling until it fails.
  assert.equal(threshold(), 2 ** 30 / pageSize);
  const deadline = Date.now() + 20_000;
  while (threshold() !== (64 * 2 ** 20) / pageSize && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(threshold(), (64 * 2 ** 20) / pageSize);
  // The next large batch starts no thread again, and the load completes.
  entities.writeBatch(batch(10_000), { deferKeys: true });
  assert.equal(threshold(), (64 * 2 ** 20) / pageSize);
  assert.equal(entities.indexPendingKeys(), 20_000);
  assert.equal(entities.refsForKey('t:F-12345', 10).length, 1);
  fs.renameSync(path.join(dir.path, 'moved'), storeDir);
  db.close();
  dir.remove();
});

/** A store in a temporary directory whose every key pass, however small, goes to a thread. */
function threadedKeyPassStore() {
  const dir = tempDir();
  const db = openSqliteDatabase(path.join(dir.path, 'quarry.sqlite'));
  const entities = new SqliteEntityStore(db, createTransactionRunner(db), { offThreadMinPending: 0 });
  return { dir, db, entities };
}

test('sqlite: a large key pass runs on a thread of its own; the calling thread stays free and gets its settings back', async () => {
  const { dir, db, entities } = threadedKeyPassStore();
  entities.writeBatch(bulkBatch('T', 0), { deferKeys: true });
  entities.writeBatch(bulkBatch('T', 10_000), { deferKeys: true });
  const version = entities.version();
  const cacheSize = () => Number(db.prepare('PRAGMA cache_size').get()?.cache_size);
  const cacheBefore = cacheSize();
  const cacheWhileRunning = new Set<number>();
  const timer = setInterval(() => cacheWhileRunning.add(cacheSize()), 1);
  const indexed = await entities.indexPendingKeysOffThread();
  clearInterval(timer);
  assert.equal(indexed, 20_000);
  // Timers of the calling thread fired while the pass ran, and saw its page cache shrunk.
  assert.deepEqual([...cacheWhileRunning], [-4096]);
  assert.equal(cacheSize(), cacheBefore);
  // What the other connection committed is what this one reads.
  assert.equal(entities.pendingKeyCount(), 0);
  assert.equal(entities.refsForKey('t:T-12345', 10).length, 1);
  assert.notEqual(entities.version(), version);
  // The bulk load's settings are given back: the default auto-checkpoint of 1000 pages.
  assert.equal(Number(db.prepare('PRAGMA wal_autocheckpoint').get()?.wal_autocheckpoint), 1000);
  db.close();
  dir.remove();
});

test('sqlite: a key pass that fails on its thread rejects with the reason and leaves the entities pending', async () => {
  const { dir, db, entities } = threadedKeyPassStore();
  entities.writeBatch(bulkBatch('X', 0), { deferKeys: true });
  db.exec("UPDATE entities SET keys = 'not json' WHERE id = 'X-42'");
  await assert.rejects(entities.indexPendingKeysOffThread(), /malformed JSON/);
  assert.equal(entities.pendingKeyCount(), 10_000, 'the pass rolled back as a whole');
  assert.equal(entities.refsForKey('t:X-7', 10).length, 0);
  db.close();
  dir.remove();
});

test('sqlite: the connection that creates a store caches what it was asked to, in its 16 KiB pages', async () => {
  const dir = tempDir();
  const file = path.join(dir.path, 'quarry.sqlite');
  const db = openSqliteDatabase(file, { cacheMiB: 8 });
  assert.equal(Number(db.prepare('PRAGMA page_size').get()?.page_size), 16_384);
  db.exec('CREATE TABLE filler (v TEXT)');
  const walBytes = () => fs.statSync(`${file}-wal`).size;
  const before = walBytes();
  const insert = db.prepare('INSERT INTO filler (v) VALUES (?)');
  db.exec('BEGIN');
  // ~20 MB of rows: more than the 8 MiB asked for, less than the ~31 MiB that SQLite's page count
  // made with 4 KiB pages would allow. A full cache spills pages to the WAL before the commit.
  for (let i = 0; i < 20_000; i++) insert.run('x'.repeat(1000));
  const during = walBytes();
  db.exec('COMMIT');
  assert.ok(
    during > before + 4 * 2 ** 20,
    `WAL ${before} → ${during} bytes before the commit: nothing spilled`,
  );
  db.close();
  dir.remove();
});

test('sqlite: QUARRY_SQLITE_MMAP_MIB maps the file on reading connections only, and they read through it', async () => {
  const dir = tempDir();
  const mmapSize = (db: DatabaseSync) => Number(db.prepare('PRAGMA mmap_size').get()?.mmap_size);
  const locator = configuredStore(loadConfig({ QUARRY_DATA_DIR: dir.path, QUARRY_SQLITE_MMAP_MIB: '64' }));
  assert.ok(locator.adapter === 'sqlite');
  const writer = openSqliteStorage(locator.file, { mmapMiB: locator.mmapMiB });
  await writer.crawlJobs.setSwitch('mapped', 'on', Date.now());
  const reading = openSqliteDatabase(locator.file, { readOnly: true, mmapMiB: locator.mmapMiB });
  assert.equal(mmapSize(reading), 64 * 2 ** 20);
  const writing = openSqliteDatabase(locator.file, { mmapMiB: locator.mmapMiB });
  assert.equal(mmapSize(writing), 0, 'a writing connection is never mapped');
  const reader = openSqliteStorage(locator.file, { readOnly: true, mmapMiB: locator.mmapMiB });
  assert.equal(await reader.crawlJobs.getSwitch('mapped'), 'on');
  // The graph's readers never open the accounts file: their token port says so.
  await assert.rejects(reader.tokens.findById('tok_mapped'), /read-only connection .* no tokens/);
  const unset = configuredStore(loadConfig({ QUARRY_DATA_DIR: dir.path }));
  assert.ok(unset.adapter === 'sqlite' && unset.mmapMiB === undefined);
  const plain = openSqliteDatabase(unset.file, { readOnly: true, mmapMiB: unset.mmapMiB });
  assert.equal(mmapSize(plain), 0, 'off by default');
  assert.throws(() => loadConfig({ QUARRY_SQLITE_MMAP_MIB: '-1' }), /QUARRY_SQLITE_MMAP_MIB must be/);
  for (const db of [reading, writing, plain]) db.close();
  reader.close();
  writer.close();
  dir.remove();
});

test('sqlite: withPragmas gives back numeric and word pragmas as they were, also when its function throws', async () => {
  const db = openSqliteDatabase(':memory:');
  db.exec('PRAGMA cache_size = -3000');
  const read = () => [
    db.prepare('PRAGMA cache_size').get()?.cache_size,
    db.prepare('PRAGMA locking_mode').get()?.locking_mode,
  ];
  assert.deepEqual(read(), [-3000, 'normal']);
  const inside = withPragmas(db, { cache_size: -1024, locking_mode: 'EXCLUSIVE' }, read);
  assert.deepEqual(inside, [-1024, 'exclusive']);
  assert.deepEqual(read(), [-3000, 'normal']);
  assert.throws(
    () =>
      withPragmas(db, { locking_mode: 'EXCLUSIVE' }, () => {
        throw new Error('boom');
      }),
    /boom/,
  );
  assert.deepEqual(read(), [-3000, 'normal']);
  db.close();
});

test('sqlite: withPragmas keeps the settings of an async function until its promise settles', async () => {
  const db = openSqliteDatabase(':memory:');
  db.exec('PRAGMA cache_size = -3000');
  const cacheSize = () => db.prepare('PRAGMA cache_size').get()?.cache_size;
  let release: (value: string) => void = () => {};
  const pending = withPragmas(
    db,
    { cache_size: -1024 },
    () => new Promise<string>((resolve) => (release = resolve)),
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(cacheSize(), -1024, 'still in force while the promise is pending');
  release('done');
  assert.equal(await pending, 'done');
  assert.equal(cacheSize(), -3000);
  await assert.rejects(
    withPragmas(db, { cache_size: -1024 }, async () => {
      throw new Error('late boom');
    }),
    /late boom/,
  );
  assert.equal(cacheSize(), -3000, 'given back after a rejection too');
  db.close();
});

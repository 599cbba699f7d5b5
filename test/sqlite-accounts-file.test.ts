import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { copyTokensToAccounts } from '../src/storage/sqlite/accounts-file.ts';
import { accountsFileFor, applyMigrations, openSqliteStorage } from '../src/storage/sqlite/index.ts';
import { MIGRATIONS } from '../src/storage/sqlite/migrations/index.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { tempDir } from './support/temp-dir.ts';
import { startTestRuntime } from './support/test-runtime.ts';

/** A token's balance as a second connection reads it from the accounts file (what a restart sees). */
function credits(file: string, id: string): number | null | undefined {
  const db = new DatabaseSync(accountsFileFor(file), { readOnly: true });
  try {
    const row = db.prepare('SELECT credits FROM tokens WHERE id = ?').get(id) as
      | { credits: number | null }
      | undefined;
    return row?.credits;
  } finally {
    db.close();
  }
}

/** The names of the tables of a SQLite file. */
function tables(file: string): string[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
      .all()
      .map((row) => String(row.name));
  } finally {
    db.close();
  }
}

/** The size of a file, 0 when it does not exist. */
const sizeOf = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);

test('accounts file: charges land in it; a graph reader sees no change of the graph file and its WAL does not grow', async () => {
  const dir = tempDir();
  const file = path.join(dir.path, 'quarry.sqlite');
  const storage = openSqliteStorage(file);
  try {
    assert.equal(accountsFileFor(file), path.join(dir.path, 'quarry-accounts.sqlite'));
    await storage.tokens.create({ id: 'tok_1', secretHash: 'h-1', credits: 100 });
    assert.ok(tables(accountsFileFor(file)).includes('tokens'));
    assert.ok(!tables(file).includes('tokens'), 'the graph file has no tokens table');
    // A reader of the graph file, as an enhance thread: its data_version changes exactly when
    // another connection commits to that file (when its page cache would be dropped).
    const reader = new DatabaseSync(file, { readOnly: true });
    const dataVersion = () => Number(reader.prepare('PRAGMA data_version').get()?.data_version);
    const before = dataVersion();
    const walBefore = sizeOf(`${file}-wal`);
    const paid = await Promise.all([storage.tokens.charge('tok_1', 3), storage.tokens.charge('tok_1', 4)]);
    assert.deepEqual(paid, [true, true]);
    assert.equal(await storage.tokens.refund('tok_1', 2), undefined);
    assert.equal(credits(file, 'tok_1'), 95, 'committed to the accounts file');
    assert.equal(dataVersion(), before, 'the graph file did not change');
    assert.equal(sizeOf(`${file}-wal`), walBefore, "the graph's WAL did not grow");
    // The control: a write to the graph file is seen by the same reader.
    await storage.crawlJobs.setSwitch('probe', 'on', Date.now());
    assert.notEqual(dataVersion(), before);
    reader.close();
  } finally {
    await storage.close();
    dir.remove();
  }
});

test('accounts file: HTTP enhance requests with a credited token write nothing to the graph file', {
  skip: process.env.QUARRY_TEST_STORE === 'postgres' && 'the embedded store only',
}, async () => {
  const t = await startTestRuntime({ workerThreads: 1 });
  try {
    await loadFixtureGraph(
      t.runtime.storage.entities,
      path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl'),
    );
    const token = await t.token(100);
    const file = path.join(t.dataDir, 'quarry.sqlite');
    const reader = new DatabaseSync(file, { readOnly: true });
    const dataVersion = () => Number(reader.prepare('PRAGMA data_version').get()?.data_version);
    const before = dataVersion();
    for (let i = 0; i < 3; i++) {
      const res = await t.runtime.app.inject({
        url: `/kg/v3/enhance?token=${token}&type=Organization&name=Acme%20Robotics`,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().hits, 1);
    }
    const record = await t.runtime.services.tokens.find(token);
    assert.ok(record && record.credits !== null && record.credits < 100, 'the requests were charged');
    assert.equal(credits(file, record.id), record.credits, 'in the accounts file');
    assert.equal(dataVersion(), before, 'no commit to the graph file');
    reader.close();
  } finally {
    await t.close();
  }
});

test('accounts file: a store whose accounts file was lost is refused rather than opened without its tokens', async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir.path, 'quarry.sqlite');
    const storage = openSqliteStorage(file);
    await storage.tokens.create({ id: 'tok_1', secretHash: 'h-1', credits: 10 });
    await storage.close();
    fs.rmSync(accountsFileFor(file));
    assert.throws(() => openSqliteStorage(file), /accounts file .*quarry-accounts\.sqlite .* is missing/);
    assert.throws(() => openSqliteStorage(file), /is missing/, 'and again: the attempt made nothing up');
  } finally {
    dir.remove();
  }
});

test('accounts file: a transaction that rolls back leaves both files unchanged', async () => {
  const dir = tempDir();
  const file = path.join(dir.path, 'quarry.sqlite');
  const storage = openSqliteStorage(file);
  try {
    await storage.tokens.create({ id: 'tok_1', secretHash: 'h-1', credits: 10 });
    await assert.rejects(
      storage.transaction(async (tx) => {
        assert.equal(await tx.tokens.charge('tok_1', 6), true);
        await tx.crawlJobs.setSwitch('probe', 'on', Date.now());
        throw new Error('fails after both writes');
      }),
      /fails after both writes/,
    );
    assert.equal(credits(file, 'tok_1'), 10);
    assert.equal(await storage.crawlJobs.getSwitch('probe'), undefined);
    const graph = new DatabaseSync(file, { readOnly: true });
    assert.equal(graph.prepare('SELECT count(*) AS n FROM token_journal').get()?.n, 0, 'no journal left');
    graph.close();
    // And one that commits takes both.
    await storage.transaction(async (tx) => {
      assert.equal(await tx.tokens.charge('tok_1', 6), true);
      await tx.crawlJobs.setSwitch('probe', 'on', Date.now());
    });
    assert.equal(credits(file, 'tok_1'), 4);
    assert.equal(await storage.crawlJobs.getSwitch('probe'), 'on');
  } finally {
    await storage.close();
    dir.remove();
  }
});

/**
 * A store where a transaction (a charge of 30 with a write to the graph file, as a bulk batch
 * stores its results) committed in one file only: `keep` is the file whose commit survives; the
 * other is put back as it was before the transaction (what a crash between the two commits leaves).
 */
async function halfCommitted(dir: string, keep: 'graph' | 'accounts'): Promise<string> {
  const file = path.join(dir, 'quarry.sqlite');
  const first = openSqliteStorage(file);
  await first.tokens.create({ id: 'tok_1', secretHash: 'h-1', credits: 100 });
  // An earlier transaction committed in both: its journal must not be applied again.
  await first.transaction(async (tx) => {
    await tx.tokens.charge('tok_1', 5);
    await tx.crawlJobs.setSwitch('earlier', 'on', 1);
  });
  await first.close();
  const lost = keep === 'graph' ? accountsFileFor(file) : file;
  fs.copyFileSync(lost, `${lost}.before`);
  const second = openSqliteStorage(file);
  await second.transaction(async (tx) => {
    assert.equal(await tx.tokens.charge('tok_1', 30), true);
    await tx.crawlJobs.setSwitch('batch', 'stored', 2);
  });
  await second.close();
  // Closed cleanly: each file's WAL was copied back and removed, so the file alone is its state.
  assert.ok(!fs.existsSync(`${lost}-wal`));
  fs.renameSync(`${lost}.before`, lost);
  return file;
}

test('accounts file: the graph part of a transaction committed alone gets its charge at restart', async () => {
  const dir = tempDir();
  try {
    const file = await halfCommitted(dir.path, 'graph');
    assert.equal(credits(file, 'tok_1'), 95, 'the crash left the charge out');
    const storage = openSqliteStorage(file);
    assert.equal(await storage.crawlJobs.getSwitch('batch'), 'stored');
    assert.equal((await storage.tokens.findById('tok_1'))?.credits, 65, 'the results stored are paid for');
    // The next transaction journals on, and a restart after it changes nothing.
    await storage.transaction(async (tx) => {
      assert.equal(await tx.tokens.charge('tok_1', 1), true);
      await tx.crawlJobs.setSwitch('next', 'on', 3);
    });
    await storage.close();
    const again = openSqliteStorage(file);
    assert.equal((await again.tokens.findById('tok_1'))?.credits, 64);
    await again.close();
  } finally {
    dir.remove();
  }
});

test('accounts file: the accounts part of a transaction committed alone is taken back at restart', async () => {
  const dir = tempDir();
  try {
    const file = await halfCommitted(dir.path, 'accounts');
    assert.equal(credits(file, 'tok_1'), 65, 'the crash kept the charge');
    const storage = openSqliteStorage(file);
    assert.equal(await storage.crawlJobs.getSwitch('batch'), undefined, 'the results were not stored');
    assert.equal(await storage.crawlJobs.getSwitch('earlier'), 'on');
    assert.equal((await storage.tokens.findById('tok_1'))?.credits, 95, 'their charge is given back');
    await storage.close();
    const again = openSqliteStorage(file);
    assert.equal((await again.tokens.findById('tok_1'))?.credits, 95, 'once');
    await again.close();
  } finally {
    dir.remove();
  }
});

/**
 * A store as a build before migration 4 left it: tokens (one unlimited) in the graph file and a
 * rule set of each limited token (whose foreign key names that tokens table).
 */
function oldStore(file: string): void {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;');
  applyMigrations(
    db,
    MIGRATIONS.filter((m) => m.version !== 4 && m.version !== 201),
    () => {},
  );
  db.exec(`INSERT INTO tokens (id, secret_hash, label, credits, created_at) VALUES
    ('tok_a', 'h-a', 'first', 120, 1), ('tok_b', 'h-b', NULL, 0, 2), ('tok_u', 'h-u', 'ops', NULL, 3)`);
  db.exec(`INSERT INTO custom_apis (hash, token_id, api, url_pattern, ruleset, created_at, updated_at) VALUES
    ('x1', 'tok_a', 'api1', '*', '{}', 1, 1), ('x2', 'tok_b', 'api2', '*', '{}', 2, 2), ('x3', 'tok_a', 'api3', '*', '{}', 3, 3)`);
  db.exec("DELETE FROM custom_apis WHERE hash = 'x3'");
  db.close();
}

async function assertUpgraded(file: string): Promise<void> {
  const storage = openSqliteStorage(file);
  try {
    const list = await storage.tokens.list();
    assert.deepEqual(
      list.map((t) => [t.id, t.label, t.credits, t.createdAt]),
      [
        ['tok_a', 'first', 120, 1],
        ['tok_b', null, 0, 2],
        ['tok_u', 'ops', null, 3],
      ],
    );
    assert.equal((await storage.tokens.findBySecretHash('h-b'))?.id, 'tok_b');
    assert.equal(await storage.tokens.charge('tok_a', 20), true);
    assert.equal(await storage.tokens.charge('tok_b', 1), false);
    assert.deepEqual(
      (await storage.customApis.list('tok_a')).map((r) => r.hash),
      ['x1'],
      'the rule sets survive the old tokens table',
    );
    assert.equal((await storage.customApis.list('tok_b')).length, 1);
    // The AUTOINCREMENT counter is kept: a new rule set does not take the deleted one's seq.
    await storage.customApis.save('tok_a', { hash: 'x4', api: 'api4', urlPattern: '*', ruleset: {} });
    const graph = new DatabaseSync(file, { readOnly: true });
    assert.equal(graph.prepare("SELECT seq FROM custom_apis WHERE hash = 'x4'").get()?.seq, 4);
    graph.close();
  } finally {
    await storage.close();
  }
  assert.equal(credits(file, 'tok_a'), 100);
  assert.ok(!tables(file).includes('tokens'), 'the old table is gone');
}

test('accounts file: migration 4 moves the tokens of an old store with their balances; its rule sets stay', async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir.path, 'quarry.sqlite');
    oldStore(file);
    await assertUpgraded(file);
  } finally {
    dir.remove();
  }
});

test('accounts file: a crash after migration 4 copied the tokens and before it dropped the old table is finished at restart', async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir.path, 'quarry.sqlite');
    oldStore(file);
    // The first step alone, then the process ends (the old table is still there, untouched).
    const db = new DatabaseSync(file);
    copyTokensToAccounts(db);
    db.close();
    assert.ok(tables(file).includes('tokens'));
    assert.equal(credits(file, 'tok_a'), 120, 'the copy is complete in the accounts file');
    // The restart does not copy again (that would fail on the tokens' primary key) and finishes.
    await assertUpgraded(file);
  } finally {
    dir.remove();
  }
});

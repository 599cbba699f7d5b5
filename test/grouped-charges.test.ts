import assert from 'node:assert/strict';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { accountsFileFor, openSqliteStorage } from '../src/storage/sqlite/index.ts';
import { tempDir } from './support/temp-dir.ts';

/**
 * A second connection's view of a token's balance (in the store's accounts file): what a restart
 * after a crash would see.
 */
function committedCredits(file: string, id: string): number | null {
  const db = new DatabaseSync(accountsFileFor(file), { readOnly: true });
  try {
    return (db.prepare('SELECT credits FROM tokens WHERE id = ?').get(id) as { credits: number | null })
      .credits;
  } finally {
    db.close();
  }
}

test('grouped charges: charges made at once never overspend and each is committed when it resolves', async () => {
  const dir = tempDir();
  const file = path.join(dir.path, 'quarry.sqlite');
  const storage = openSqliteStorage(file);
  try {
    await storage.tokens.create({ id: 'tok_g', secretHash: 'h-g', credits: 60 });
    // 100 charges of 1 in one turn (as concurrent requests answered together): exactly 60 pay.
    const results = await Promise.all(Array.from({ length: 100 }, () => storage.tokens.charge('tok_g', 1)));
    assert.equal(results.filter(Boolean).length, 60);
    assert.deepEqual(results.slice(0, 60), Array(60).fill(true), 'the first 60 made are the ones paid');
    assert.equal(committedCredits(file, 'tok_g'), 0);

    await storage.tokens.create({ id: 'tok_h', secretHash: 'h-h', credits: 10 });
    const one = storage.tokens.charge('tok_h', 3);
    // Not committed before the charge resolves (the answer waits for it)...
    assert.equal(committedCredits(file, 'tok_h'), 10);
    assert.equal(await one, true);
    // ...and committed once it has: another connection sees it.
    assert.equal(committedCredits(file, 'tok_h'), 7);
  } finally {
    storage.close();
    dir.remove();
  }
});

test('grouped charges: charges and refunds of one turn apply in the order made; a bad amount fails alone', async () => {
  const dir = tempDir();
  const storage = openSqliteStorage(path.join(dir.path, 'quarry.sqlite'));
  try {
    await storage.tokens.create({ id: 'tok_o', secretHash: 'h-o', credits: 5 });
    const made = [
      storage.tokens.charge('tok_o', 5),
      storage.tokens.charge('tok_o', 1),
      storage.tokens.refund('tok_o', 3).then(() => 'refunded'),
      storage.tokens.charge('tok_o', -1).catch((error: Error) => error.name),
      storage.tokens.charge('tok_o', 2),
      storage.tokens.charge('tok_missing', 1),
    ];
    assert.deepEqual(await Promise.all(made), [true, false, 'refunded', 'RangeError', true, false]);
    assert.equal((await storage.tokens.findById('tok_o'))?.credits, 1);
  } finally {
    storage.close();
    dir.remove();
  }
});

test('grouped charges: a charge made while a transaction is open waits for it and is not rolled back with it', async () => {
  const dir = tempDir();
  const storage = openSqliteStorage(path.join(dir.path, 'quarry.sqlite'));
  try {
    await storage.tokens.create({ id: 'tok_t', secretHash: 'h-t', credits: 10 });
    let outside: Promise<boolean> | undefined;
    await assert.rejects(() =>
      storage.transaction(async (tx) => {
        await tx.tokens.charge('tok_t', 4);
        outside = storage.tokens.charge('tok_t', 1);
        // Turns of the event loop pass while the transaction is open: the group must wait.
        await new Promise((resolve) => setTimeout(resolve, 20));
        await tx.tokens.charge('tok_t', 2);
        throw new Error('boom');
      }),
    );
    assert.equal(await outside, true);
    assert.equal((await storage.tokens.findById('tok_t'))?.credits, 9);
  } finally {
    storage.close();
    dir.remove();
  }
});

test('grouped charges: several tokens charged in one turn get what charging them one by one gives', async () => {
  const dir = tempDir();
  const file = path.join(dir.path, 'quarry.sqlite');
  const storage = openSqliteStorage(file);
  try {
    await storage.tokens.create({ id: 'tok_a', secretHash: 'h-a', credits: 5 });
    await storage.tokens.create({ id: 'tok_b', secretHash: 'h-b', credits: 100 });
    await storage.tokens.create({ id: 'tok_u', secretHash: 'h-u', credits: null });
    const charge = (id: string, amount: number) => storage.tokens.charge(id, amount);
    const made = [
      // tok_a cannot pay all three: the one that does not fit is refused, the later one paid.
      charge('tok_a', 3),
      charge('tok_b', 10),
      charge('tok_a', 3),
      charge('tok_u', 7),
      charge('tok_a', 2),
      charge('tok_b', 0),
      charge('tok_missing', 0),
      charge('tok_u', 0),
      charge('tok_b', 20),
      charge('tok_missing', 4),
      charge('tok_u', 1),
    ];
    assert.deepEqual(await Promise.all(made), [
      true,
      true,
      false,
      true,
      true,
      true,
      false,
      true,
      true,
      false,
      true,
    ]);
    assert.equal(committedCredits(file, 'tok_a'), 0);
    assert.equal(committedCredits(file, 'tok_b'), 70);
    assert.equal(committedCredits(file, 'tok_u'), null);
  } finally {
    storage.close();
    dir.remove();
  }
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { openStorage, type Storage } from '../src/storage/index.ts';
import { createTempDatabase, type TempDatabase } from './support/temp-postgres.ts';

let database: TempDatabase;
let stores: Storage[] = [];

before(async () => {
  database = await createTempDatabase();
  // Two stores with pools of their own: two processes' view of one database.
  stores = [
    openStorage({ adapter: 'postgres', url: database.url }),
    openStorage({ adapter: 'postgres', url: database.url }),
  ];
});

after(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await database.drop();
});

async function credits(id: string): Promise<number | null | undefined> {
  return (await stores[0].tokens.findById(id))?.credits;
}

test('grouped PostgreSQL charges: 200 at once over two stores on 50 credits pay exactly 50, balance 0', async () => {
  await stores[0].tokens.create({ id: 'tok_two', secretHash: 'h-two', credits: 50 });
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) => stores[i % 2].tokens.charge('tok_two', 1)),
  );
  assert.equal(results.filter(Boolean).length, 50);
  assert.equal(await credits('tok_two'), 0);
});

test('grouped PostgreSQL charges: the first made are the ones paid; a bad amount and an unknown token fail alone', async () => {
  const [store] = stores;
  await store.tokens.create({ id: 'tok_order', secretHash: 'h-order', credits: 60 });
  const results = await Promise.all(Array.from({ length: 100 }, () => store.tokens.charge('tok_order', 1)));
  assert.deepEqual(results, [...Array(60).fill(true), ...Array(40).fill(false)]);
  assert.equal(await credits('tok_order'), 0);

  await store.tokens.create({ id: 'tok_mix', secretHash: 'h-mix', credits: 5 });
  const made = [
    store.tokens.charge('tok_mix', 3),
    store.tokens.charge('tok_mix', 3),
    store.tokens.charge('tok_mix', -1).catch((error: Error) => error.name),
    store.tokens.charge('tok_mix', 2),
    store.tokens.charge('tok_mix', 0),
    store.tokens.charge('tok_missing', 1),
    store.tokens.charge('tok_missing', 0),
  ];
  // 3 pays; 3 + 2 + 0 as a group cannot (2 left): one by one, 3 fails, 2 and 0 pay.
  assert.deepEqual(await Promise.all(made), [true, false, 'RangeError', true, true, false, false]);
  assert.equal(await credits('tok_mix'), 0);

  await store.tokens.create({ id: 'tok_free', secretHash: 'h-free', credits: null });
  assert.deepEqual(
    await Promise.all(Array.from({ length: 20 }, () => store.tokens.charge('tok_free', 7))),
    Array(20).fill(true),
  );
  assert.equal(await credits('tok_free'), null);
});

test('grouped PostgreSQL charges: charges made while one is being written wait and go as one statement', async () => {
  const [store] = stores;
  await store.tokens.create({ id: 'tok_group', secretHash: 'h-group', credits: 10 });
  // Another session holds the token's row: the first charge waits on it in the database.
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query("SELECT credits FROM tokens WHERE id = 'tok_group' FOR UPDATE");
    const charges = Array.from({ length: 9 }, () => store.tokens.charge('tok_group', 1));
    const waiting = async () =>
      Number(
        (
          await holder.query(
            `SELECT count(*) AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
          )
        ).rows[0].n,
      );
    // The first charge reaches the row lock...
    for (let i = 0; i < 200 && (await waiting()) === 0; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(await waiting(), 1);
    // ...and the other eight are not sent meanwhile (ungrouped, each would wait on the lock too).
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await waiting(), 1);
    await holder.query('COMMIT');
    assert.deepEqual(await Promise.all(charges), Array(9).fill(true));
    assert.equal(await credits('tok_group'), 1);
  } finally {
    await holder.end();
  }
});

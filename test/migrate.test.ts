/**
 * `quarry migrate` creates or upgrades the schema of the configured store, and a server refuses
 * a store migrated by a newer Quarry (a migration it does not know), changing nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { LATEST_POSTGRES_VERSION } from '../src/storage/postgres/index.ts';
import { MIGRATIONS } from '../src/storage/sqlite/migrations/index.ts';
import { tempDir } from './support/temp-dir.ts';
import { createTempDatabase } from './support/temp-postgres.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');
const dir = tempDir();
after(() => dir.remove());

function quarry(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [MAIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, QUARRY_DATA_DIR: dir.path, LOG_LEVEL: 'warn', QUARRY_DATABASE_URL: '', ...env },
    timeout: 60_000,
  });
}

test('PostgreSQL: migrate applies every migration once; serve and migrate refuse a newer schema', async () => {
  const database = await createTempDatabase();
  const env = { QUARRY_DATABASE_URL: database.url };
  const client = new pg.Client({ connectionString: database.url });
  try {
    const first = quarry(['migrate'], env);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /applied \d+ migrations to the PostgreSQL database: 1, 2, /);
    const again = quarry(['migrate'], env);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stderr, 'the PostgreSQL database is up to date\n');
    await client.connect();
    const { rows } = await client.query('SELECT max(version) AS v FROM schema_migrations');
    assert.equal(rows[0].v, LATEST_POSTGRES_VERSION);
    await client.query(
      "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99999, 'from the future', 0)",
    );
    for (const command of [['migrate'], ['serve', '--port', '0']]) {
      const refused = quarry(command, env);
      assert.equal(refused.status, 1, `${command[0]}: ${refused.stderr}`);
      assert.match(refused.stderr, /migration 99999, which this Quarry does not know/);
    }
  } finally {
    await client.end();
    await database.drop();
  }
});

test('embedded store: migrate creates it, then finds it up to date', () => {
  const data = path.join(dir.path, 'embedded');
  const first = quarry(['migrate', '--data', data], {});
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stderr, new RegExp(`applied ${MIGRATIONS.length} migrations to .*quarry\\.sqlite`));
  const again = quarry(['migrate', '--data', data], {});
  assert.match(again.stderr, /quarry\.sqlite is up to date/);
});

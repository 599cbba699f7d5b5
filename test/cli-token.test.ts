import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { hashSecret } from '../src/accounts/index.ts';
import { tempDir } from './support/temp-dir.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');

function quarry(args: string[], dataDir: string) {
  return spawnSync(process.execPath, [MAIN, ...args], {
    env: { ...process.env, QUARRY_DATA_DIR: dataDir },
    encoding: 'utf8',
  });
}

test('token create prints only the token on stdout and stores its hash with the credits', async () => {
  const dir = tempDir();
  const run = quarry(['token', 'create', '--credits', '250'], dir.path);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^[0-9a-f]{32}\n$/);
  const secret = run.stdout.trim();
  const storage = openSqliteStorage(sqliteFileFor(dir.path));
  const record = await storage.tokens.findBySecretHash(hashSecret(secret));
  assert.equal(record?.credits, 250);
  storage.close();
  dir.remove();
});

test('token create --unlimited makes an unlimited token; both flags together are refused', async () => {
  const dir = tempDir();
  const run = quarry(['token', 'create', '--unlimited'], dir.path);
  assert.equal(run.status, 0, run.stderr);
  const storage = openSqliteStorage(sqliteFileFor(dir.path));
  assert.equal((await storage.tokens.findBySecretHash(hashSecret(run.stdout.trim())))?.credits, null);
  storage.close();
  const both = quarry(['token', 'create', '--unlimited', '--credits', '5'], dir.path);
  assert.notEqual(both.status, 0);
  assert.equal(both.stdout, '');
  assert.match(both.stderr, /mutually exclusive/);
  const bad = quarry(['token', 'create', '--credits', '-3'], dir.path);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /non-negative integer/);
  dir.remove();
});

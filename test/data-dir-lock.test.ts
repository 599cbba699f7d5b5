/**
 * One process at a time runs the service on an embedded store (issue 28 item 5): a second
 * `serve` or `worker` on the same data directory is refused with a message naming the holder,
 * while commands that do not run jobs keep working; a killed server leaves no stale lock.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, test } from 'node:test';
import { startServerProcess } from './support/server-process.ts';
import { tempDir } from './support/temp-dir.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');
const dir = tempDir();
after(() => dir.remove());

function quarry(args: string[]) {
  return spawnSync(process.execPath, [MAIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, QUARRY_DATA_DIR: dir.path, LOG_LEVEL: 'warn', QUARRY_DATABASE_URL: '' },
    timeout: 60_000,
  });
}

test('a second serve or worker on a data directory is refused; token create still works; SIGKILL frees it', async () => {
  const first = await startServerProcess(dir.path, { QUARRY_DATABASE_URL: '' });
  try {
    for (const command of [['serve', '--port', '0'], ['worker']]) {
      const second = quarry(command);
      assert.equal(second.status, 1, `${command[0]}: ${second.stderr}`);
      assert.match(
        second.stderr,
        new RegExp(`another Quarry process \\(pid ${first.child.pid} on [^)]+\\) is already running on `),
      );
      assert.match(second.stderr, /QUARRY_DATABASE_URL/);
    }
    const token = quarry(['token', 'create', '--credits', '5']);
    assert.equal(token.status, 0, token.stderr);
    assert.match(token.stdout, /^[0-9a-f]{32}\n$/);
    // The running server knows it at once (both write the store's accounts file), and an
    // unknown token is still refused.
    const listed = await fetch(`${first.url}/kg/v3/enhance/bulk/status?token=${token.stdout.trim()}`);
    assert.equal(listed.status, 200, await listed.text());
    const refused = await fetch(`${first.url}/kg/v3/enhance/bulk/status?token=${'0'.repeat(32)}`);
    assert.equal(refused.status, 401);
  } finally {
    await first.kill('SIGKILL');
  }
  // The operating system released the lock with the process: a new server starts.
  const next = await startServerProcess(dir.path, { QUARRY_DATABASE_URL: '' });
  await next.kill();
});

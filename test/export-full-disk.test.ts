/**
 * Issue 28 item 4 (exports): an export that cannot be written for lack of space answers 507 with
 * a clear body, leaves no `.part`, part or spill file behind, and works again once there is
 * space. The export directory is a real 1 MiB tmpfs (the tests run as root, as CI does). The
 * export files are on the server's own disk whichever the store is: the same with the results
 * read from PostgreSQL.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bulkClient } from './support/bulk-client.ts';
import { createTempDatabase, type TempDatabase } from './support/temp-postgres.ts';
import { tempDir } from './support/temp-dir.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

function mount(dir: string, size: string, remount = false): void {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `${remount ? 'remount,' : ''}size=${size}`, 'tmpfs', dir]);
  } catch (error) {
    throw new Error(`this test mounts a small tmpfs (as root, as CI runs): ${(error as Error).message}`);
  }
}

/**
 * Unmounts the tmpfs at `dir`. A file the closed runtime's threads held there may be released a
 * moment later on a loaded machine (umount: target is busy): retried, then detached lazily, so
 * that the directory can be removed either way.
 */
function unmount(dir: string): void {
  const mounted = () => fs.readFileSync('/proc/self/mounts', 'utf8').includes(` ${dir} `);
  for (let attempt = 0; attempt < 20 && mounted(); attempt++) {
    try {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      return;
    } catch {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  if (mounted()) execFileSync('umount', ['--lazy', dir], { stdio: 'ignore' });
}

for (const store of ['sqlite', 'postgres'] as const)
  describe(`an export on a full disk (${store})`, () => {
    let t: TestRuntime;
    let exportsDir: string;
    let database: TempDatabase | undefined;
    const dir = tempDir();

    before(async () => {
      exportsDir = path.join(dir.path, 'bulk-exports');
      fs.mkdirSync(exportsDir, { recursive: true });
      mount(exportsDir, '1m');
      database = store === 'postgres' ? await createTempDatabase() : undefined;
      t = await startTestRuntime({ dataDir: dir.path, ...(database ? { databaseUrl: database.url } : {}) });
    });
    after(async () => {
      await t?.close();
      await database?.drop();
      unmount(exportsDir);
      dir.remove();
    });

    test('507 with a clear body, nothing left behind, and a download once there is space', async () => {
      const token = await t.token();
      const client = bulkClient(t.runtime.app);
      // Long names make every record's line large: the JSON Lines export is several MiB.
      const records = Array.from({ length: 3_000 }, (_, i) => ({
        type: 'Organization',
        name: `Company ${i} ${'x'.repeat(1_500)}`,
        customId: `c${i}`,
      }));
      const jobId = (await client.submit(token, records)).json().job_id as string;
      await client.waitFinal(token, jobId, 60_000);
      await t.runtime.services.bulkExports.settled();

      const full = await client.get(token, `/${jobId}`, '&format=jsonl&wait=60');
      assert.equal(full.statusCode, 507, full.body);
      assert.equal(full.json().code, 507);
      assert.match(full.json().message, /disk is full/i);
      assert.doesNotMatch(full.body, /ENOSPC|\/tmp\/|bulk-exports/, 'no path or errno in the body');
      const left = fs.readdirSync(path.join(exportsDir, jobId));
      assert.deepEqual(
        left.filter((name) => /\.part$|\.\d+$|\.rows|spill|\.tmp$/.test(name) || name.endsWith('.jsonl')),
        [],
        `left behind: ${left.join(', ')}`,
      );

      // Space returns: the same download is written and served.
      mount(exportsDir, '64m', true);
      const ok = await client.get(token, `/${jobId}`, '&format=jsonl&wait=60');
      assert.equal(ok.statusCode, 200, ok.body.slice(0, 300));
      assert.equal(ok.body.trim().split('\n').length, 3_000);
    });
  });

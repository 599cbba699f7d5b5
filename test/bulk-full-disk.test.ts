/**
 * Issue 28 item 4 (bulk jobs): a bulk enhance job whose results cannot be written for lack of
 * space says so in its status instead of staying silently "in process", tries again with growing
 * waits, and finishes by itself once space returns, every record answered and charged exactly
 * once. The data directory (the SQLite store itself) is a real 64 MiB tmpfs, filled by a file
 * (the tests run as root, as CI does; export-full-disk.test.ts mounts one too).
 *
 * On PostgreSQL the same, for real: the test's database lives in a tablespace on a 64 MiB tmpfs
 * (the server is local and the tests run as root, so the directory can be handed to the
 * server's user), filled by a file; the server then refuses to extend the results table with
 * SQLSTATE 53100 ("could not extend file …: No space left on device"). Its WAL stays on the
 * server's own disk, so the server itself keeps running. The batches go through the work queue
 * there (a refused batch rolls back whole and is tried again), so this also covers
 * `QueueBulkRunner`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bulkClient } from './support/bulk-client.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { createTempDatabase, createTempTablespace, type TempDatabase } from './support/temp-postgres.ts';
import { tempDir } from './support/temp-dir.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');

function mount(dir: string, size: string): void {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  } catch (error) {
    throw new Error(`this test mounts a small tmpfs (as root, as CI runs): ${(error as Error).message}`);
  }
}

/** Writes `file` until the file system is full; returns the bytes written. */
function fillDisk(file: string): number {
  const fd = fs.openSync(file, 'w');
  let written = 0;
  try {
    for (const chunk of [Buffer.alloc(1 << 20, 1), Buffer.alloc(4096, 1), Buffer.alloc(64, 1)]) {
      for (;;) {
        try {
          written += fs.writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          break;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return written;
}

async function waitUntil<T>(probe: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Submits a 2,000-record job, fills the disk with `filler`, checks what the status says while it
 * is full, removes `filler`, and checks that the job finishes with every record answered and
 * charged exactly once.
 */
async function fullDiskScenario(t: TestRuntime, filler: string): Promise<void> {
  const created = await t.runtime.services.tokens.create({ credits: 10_000_000 });
  const client = bulkClient(t.runtime.app);
  // Long custom ids are echoed in every result: the results take several MiB.
  const total = 2_000;
  const records = Array.from({ length: total }, (_, i) => ({
    type: 'Organization',
    name: i % 2 === 0 ? 'Acme Robotics' : `Zzyzx Bakery ${i}`,
    customId: `c${i}-${'x'.repeat(1_900)}`,
  }));
  const submitted = await client.submit(created.secret, records);
  assert.equal(submitted.statusCode, 202, submitted.body.slice(0, 300));
  const jobId = submitted.json().job_id as string;
  assert.ok(fillDisk(filler) > 0);

  const status = async () =>
    (await client.get(created.secret, `/${jobId}/status`)).json().content as Record<string, unknown>;
  const stalled = await waitUntil(
    async () => {
      const content = await status();
      return /disk is full/i.test(String(content.message)) ? content : undefined;
    },
    30_000,
    'the status says the disk is full',
  );
  assert.equal(stalled.status, 'IN_PROCESS');
  assert.match(String(stalled.message), /cannot be stored.*trying again/i);
  assert.doesNotMatch(
    String(stalled.message),
    /\/tmp|SQLITE|ENOSPC|53100|pg_tblspc/,
    'no path or error code in the status',
  );
  const stuckAt = Number(stalled.jobs_completed);
  assert.ok(stuckAt < total);
  // Still full a while later: no progress, and it still says why.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const later = await status();
  assert.equal(later.jobs_completed, stuckAt);
  assert.match(String(later.message), /disk is full/i);

  // Space returns: the job finishes by itself.
  fs.rmSync(filler);
  const final = await client.waitFinal(created.secret, jobId, 90_000);
  assert.equal(final.status, 'COMPLETE', JSON.stringify(final).slice(0, 300));
  assert.equal(final.jobs_completed, total);
  assert.doesNotMatch(String(final.message), /disk/i);

  // Every record answered exactly once, and charged exactly once.
  const download = await client.get(created.secret, `/${jobId}`, '&format=jsonl&wait=60');
  assert.equal(download.statusCode, 200, download.body.slice(0, 300));
  const lines = download.body
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(lines.length, total);
  const indexes = new Set(lines.map((line) => line.request_ctx.query_ctx.jobIdx));
  assert.equal(indexes.size, total);
  const hits = lines.reduce((n, line) => n + line.hits, 0);
  assert.ok(hits >= total / 2, 'Acme is matched');
  const balance = await t.runtime.services.tokens.balance(created.record.id);
  assert.equal(10_000_000 - (balance ?? 0), hits * t.runtime.config.credits.perMatch);
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', ['--lazy', dir]);
  } catch {}
}

describe('a bulk job on a full disk (SQLite)', () => {
  let t: TestRuntime;
  const dir = tempDir();
  const filler = path.join(dir.path, 'filler');

  before(async () => {
    mount(dir.path, '64m');
    t = await startTestRuntime({ dataDir: dir.path });
    await loadFixtureGraph(t.runtime.storage.entities, FIXTURE);
  });
  after(async () => {
    fs.rmSync(filler, { force: true });
    await t?.close();
    unmount(dir.path);
    dir.remove();
  });

  test('says so in its status, retries, and finishes by itself once space returns, losing nothing', async () => {
    await fullDiskScenario(t, filler);
  });
});

describe('a bulk job on a full disk (PostgreSQL, a tablespace on a small tmpfs)', () => {
  let t: TestRuntime;
  let database: TempDatabase | undefined;
  let tablespace: { drop(): Promise<void> } | undefined;
  const dir = tempDir();
  const filler = path.join(dir.path, 'filler');

  before(async () => {
    mount(dir.path, '64m');
    // The server's user must own a tablespace's directory.
    const owner = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const group = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    fs.chownSync(dir.path, Number(owner), Number(group));
    const space = await createTempTablespace(dir.path);
    tablespace = space;
    database = await createTempDatabase(space.name);
    t = await startTestRuntime({ databaseUrl: database.url });
    await loadFixtureGraph(t.runtime.storage.entities, FIXTURE);
  });
  after(async () => {
    fs.rmSync(filler, { force: true });
    await t?.close();
    await database?.drop();
    await tablespace?.drop();
    unmount(dir.path);
    dir.remove();
  });

  test('says so in its status, retries, and finishes by itself once space returns, losing nothing', async () => {
    assert.ok(t.runtime.storage.workQueue, 'the batches go through the work queue');
    await fullDiskScenario(t, filler);
  });
});

/**
 * Crash safety (issue 3): a real server process is killed with SIGKILL while a bulk job runs,
 * started again on the same data directory, and the job must complete with exactly one result
 * per record, in order, identical to an uninterrupted run's — and charged exactly once.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { TokenService } from '../src/accounts/index.ts';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { sampleRecords } from './support/bulk-client.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { startServerProcess } from './support/server-process.ts';
import { tempDir } from './support/temp-dir.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');
const RECORDS = 20_000;
const CREDITS = 100_000_000;

/** The fixture graph and a token of `CREDITS` in a new store at `dir`; the token's secret and record. */
async function graphWithToken(dir: string) {
  const setup = openSqliteStorage(sqliteFileFor(dir));
  try {
    await loadFixtureGraph(setup.entities, FIXTURE);
    return await new TokenService(setup.tokens).create({ credits: CREDITS });
  } finally {
    setup.close();
  }
}

async function status(url: string, token: string, id: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/kg/v3/enhance/bulk/${id}/status?token=${token}`);
  return ((await res.json()) as { content: Record<string, unknown> }).content;
}

async function waitFinal(url: string, token: string, id: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const content = await status(url, token, id);
    if (content.status !== 'IN_PROCESS' && content.status !== 'NOT_STARTED') return content;
    if (Date.now() > deadline) throw new Error(`job ${id} did not finish: ${JSON.stringify(content)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function submit(url: string, token: string, records: unknown[]): Promise<string> {
  const res = await fetch(`${url}/kg/v3/enhance/bulk?token=${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(records),
  });
  assert.equal(res.status, 202);
  return ((await res.json()) as { job_id: string }).job_id;
}

test('a job survives SIGKILL of the server: every record exactly once, in order, as an uninterrupted run', async () => {
  const dir = tempDir();
  let live: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    const { secret: token, record } = await graphWithToken(dir.path);
    // Distinct records, so that any reordering or duplication would show.
    const records = sampleRecords(RECORDS).map((r, i) => ({ ...r, customId: `rec-${i}` }));

    let server = await startServerProcess(dir.path, { QUARRY_WORKERS: '2' });
    live = server;
    const crashed = await submit(server.url, token, records);
    // Kill it mid-job: some records done, most not.
    let before: Record<string, unknown>;
    for (;;) {
      before = await status(server.url, token, crashed);
      if ((before.jobs_completed as number) >= 2_000) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await server.kill('SIGKILL');
    assert.ok((before.jobs_completed as number) < RECORDS, 'killed while the job was running');

    server = await startServerProcess(dir.path, { QUARRY_WORKERS: '2' });
    live = server;
    const resumed = await waitFinal(server.url, token, crashed);
    assert.equal(resumed.status, 'COMPLETE');
    assert.equal(resumed.jobs_completed, RECORDS);
    assert.ok((resumed.jobs_completed as number) >= (before.jobs_completed as number));

    const clean = await submit(server.url, token, records);
    const uninterrupted = await waitFinal(server.url, token, clean);
    assert.equal(uninterrupted.status, 'COMPLETE');
    assert.equal(resumed.total_results, uninterrupted.total_results);
    assert.equal(resumed.fileSizeBytes, uninterrupted.fileSizeBytes);
    // The downloads (JSON Lines, in input order) are identical but for the job id.
    const download = async (id: string) => {
      const res = await fetch(`${server.url}/kg/v3/enhance/bulk/${id}?token=${token}&wait=60`);
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.equal(Buffer.byteLength(text), resumed.fileSizeBytes, 'fileSizeBytes is the download size');
      return text.replaceAll(id, '<job>');
    };
    const crashedDownload = await download(crashed);
    assert.equal(crashedDownload.split('\n').length, RECORDS + 1);
    assert.ok(crashedDownload === (await download(clean)), 'byte-for-byte equal downloads');
    await server.kill('SIGTERM');

    const store = openSqliteStorage(sqliteFileFor(dir.path));
    try {
      const a = await store.bulkJobs.results(crashed, 0, RECORDS + 1);
      const b = await store.bulkJobs.results(clean, 0, RECORDS + 1);
      assert.equal(a.length, RECORDS, 'one result per record');
      assert.deepEqual(
        a.map((r) => r.index),
        Array.from({ length: RECORDS }, (_, i) => i),
        'in input order, none missing, none twice',
      );
      for (let i = 0; i < RECORDS; i++) {
        const crashedResponse = `${a[i].response}${a[i].searchInfo}`.replaceAll(crashed, '<job>');
        const cleanResponse = `${b[i].response}${b[i].searchInfo}`.replaceAll(clean, '<job>');
        if (crashedResponse !== cleanResponse) assert.equal(crashedResponse, cleanResponse, `record ${i}`);
        assert.equal(JSON.parse(a[i].response).request_ctx.query.customId, `rec-${i}`);
      }
      // Charged exactly once per matched record: both runs cost the same, together all spent.
      const perRun = (uninterrupted.total_results as number) * 25;
      assert.equal((await store.tokens.findById(record.id))?.credits, CREDITS - 2 * perRun);
    } finally {
      store.close();
    }
  } finally {
    await live?.kill('SIGKILL');
    dir.remove();
  }
});

test('SIGKILL while a submission is uploaded: no job, no charge after the restart', async () => {
  const dir = tempDir();
  let live: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    const { secret: token, record } = await graphWithToken(dir.path);
    const records = sampleRecords(12_000);
    const server = await startServerProcess(dir.path, { QUARRY_WORKERS: '2' });
    live = server;
    // 12,000 records (two chunks stored), then the upload stalls.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`[${records.map((r) => JSON.stringify(r)).join(',')}`));
      },
    });
    const upload = fetch(`${server.url}/kg/v3/enhance/bulk?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await server.kill('SIGKILL');
    await upload;

    live = await startServerProcess(dir.path, { QUARRY_WORKERS: '2' });
    const list = await fetch(`${live.url}/kg/v3/enhance/bulk/status?token=${token}`);
    assert.equal(list.status, 200);
    assert.deepEqual(await list.json(), [], 'the interrupted submission is no job');
    await live.kill('SIGTERM');
    const store = openSqliteStorage(sqliteFileFor(dir.path));
    try {
      assert.equal((await store.tokens.findById(record.id))?.credits, CREDITS, 'nothing charged');
      const jobs = await store.bulkJobs.listByState(['NOT_STARTED', 'IN_PROCESS', 'COMPLETE', 'STOPPED']);
      assert.deepEqual(jobs, []);
    } finally {
      store.close();
    }
  } finally {
    await live?.kill('SIGKILL');
    dir.remove();
  }
});

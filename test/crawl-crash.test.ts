/**
 * A real server process is SIGKILLed in the middle of a bulk extract job and started again on
 * the same data directory: the job finishes with exact counters and complete data.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { respond, startFixtureServer } from './support/fixture-server.ts';
import { articlePage } from './support/crawl-runtime.ts';
import { tempDir } from './support/temp-dir.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function startServer(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', String(port), '--data', dataDir], {
    env: { ...process.env, QUARRY_ALLOW_PRIVATE_NETWORK: '1', LOG_LEVEL: 'warn', HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // A start-up limit, not a speed check: on a loaded machine start-up has taken over 20 s.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) return { url, child };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      // The caller never gets this child: end it here, or it keeps the test process (and the
      // whole suite) alive for ever.
      child.kill('SIGKILL');
      throw new Error('server did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function job(
  url: string,
  token: string,
): Promise<Record<string, number> & { jobStatus: { status: number } }> {
  const res = await fetch(`${url}/v3/bulk?token=${token}&name=crashy`);
  assert.equal(res.status, 200);
  return ((await res.json()) as { jobs: Array<Record<string, number> & { jobStatus: { status: number } }> })
    .jobs[0];
}

test('SIGKILL mid-job, restart, SIGTERM mid-job, restart: exact counters and complete data', {
  timeout: 180_000,
}, async () => {
  const site = await startFixtureServer();
  const dir = tempDir();
  const count = 300;
  for (let i = 0; i < count; i++)
    site.route(`/k/${i}`, respond.delay(15, respond.html(articlePage(`Page ${i}`))));
  let child: ChildProcess | undefined;
  try {
    const created = spawnSync(process.execPath, [MAIN, 'token', 'create'], {
      env: { ...process.env, QUARRY_DATA_DIR: dir.path },
      encoding: 'utf8',
    });
    const token = created.stdout.trim();
    const first = await startServer(dir.path);
    child = first.child;
    const form = new URLSearchParams({
      token,
      name: 'crashy',
      apiUrl: '/v3/article',
      urls: Array.from({ length: count }, (_, i) => site.url(`/k/${i}`)).join(' '),
      crawlDelay: '0',
    });
    const res = await fetch(`${first.url}/v3/bulk`, { method: 'POST', body: form });
    assert.equal(res.status, 200, await res.clone().text());
    let before = await job(first.url, token);
    while (before.pageProcessSuccesses < 60) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      before = await job(first.url, token);
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    const fetchedBeforeCrash = site.requests().filter((r) => r.path.startsWith('/k/')).length;
    assert.ok(fetchedBeforeCrash < count, 'the job was still running when killed');

    // Second start: resumes, then is stopped gracefully (SIGTERM) mid-job.
    const middle = await startServer(dir.path);
    child = middle.child;
    let during = await job(middle.url, token);
    assert.equal(during.jobStatus.status, 7);
    assert.ok(during.pageProcessSuccesses >= before.pageProcessSuccesses);
    while (during.pageProcessSuccesses < 150) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      during = await job(middle.url, token);
    }
    child.kill('SIGTERM');
    const code = await new Promise((resolve) => child!.once('exit', resolve));
    assert.equal(code, 0);

    const second = await startServer(dir.path);
    child = second.child;
    let after = await job(second.url, token);
    assert.ok(
      after.pageProcessSuccesses >= during.pageProcessSuccesses,
      'a graceful stop keeps what was done',
    );
    const deadline = Date.now() + 30_000;
    while (after.jobStatus.status !== 9) {
      assert.ok(Date.now() < deadline, `job did not finish: ${JSON.stringify(after.jobStatus)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await job(second.url, token);
    }
    // Pages whose fetch was under way at the kill and at the stop were fetched again, and each
    // of those requests counts (issue 28): at least every request the site saw, at most those
    // plus the fetches just begun (one host: 16 at a time) at each of the two interruptions.
    const siteRequests = site.requests().filter((r) => r.path.startsWith('/k/')).length;
    assert.ok(siteRequests > count, 'some pages were fetched twice');
    assert.ok(after.pageCrawlAttempts >= siteRequests, `${after.pageCrawlAttempts} < ${siteRequests}`);
    assert.ok(after.pageCrawlAttempts <= siteRequests + 32, `${after.pageCrawlAttempts} vs ${siteRequests}`);
    assert.equal(after.pageCrawlSuccesses, count);
    assert.equal(after.pageProcessAttempts, count);
    assert.equal(after.pageProcessSuccesses, count);
    assert.equal(after.objectsFound, count);
    assert.equal(after.roundsCompleted, 1);

    const data = (await (
      await fetch(`${second.url}/v3/bulk/data?token=${token}&name=crashy`)
    ).json()) as Array<{
      pageUrl: string;
    }>;
    assert.equal(data.length, count);
    assert.equal(new Set(data.map((o) => o.pageUrl)).size, count);
    const report = (await (
      await fetch(`${second.url}/v3/bulk/data?token=${token}&name=crashy&type=urls`)
    ).json()) as Array<{
      status: string;
      attempts: number;
    }>;
    assert.equal(report.length, count);
    for (const line of report) {
      assert.equal(line.status, 'processed');
      assert.ok(line.attempts >= 1 && line.attempts <= 3, String(line.attempts));
    }
    assert.equal(
      report.reduce((sum, line) => sum + line.attempts, 0),
      after.pageCrawlAttempts,
    );
    // Pages in flight at the kill were fetched again: each page at least once, in total more.
    for (let i = 0; i < count; i++) assert.ok(site.count(`/k/${i}`) >= 1);
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      // A server stuck in its shutdown must not keep the suite alive: SIGKILL after 15 s.
      const stuck = setTimeout(() => child?.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(stuck);
    }
    await site.close();
    dir.remove();
  }
});

/**
 * `quarry extract-job …` against a listening server: create, status, pause, resume, download,
 * restart, delete — and clear errors.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { respond, startFixtureServer, type FixtureServer } from './support/fixture-server.ts';
import {
  articlePage,
  type CrawlTestRuntime,
  startCrawlRuntime,
  waitForStatus,
} from './support/crawl-runtime.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');
const run = promisify(execFile);

let site: FixtureServer;
let t: CrawlTestRuntime;
let token: string;
let base: string;

before(async () => {
  site = await startFixtureServer();
  for (let i = 0; i < 5; i++) site.route(`/c/${i}`, respond.html(articlePage(`CLI ${i}`)));
  t = await startCrawlRuntime();
  base = await t.runtime.listen();
  token = await t.token();
});
after(async () => {
  await t.close();
  await site.close();
});

async function quarry(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [MAIN, 'extract-job', ...args], {
      env: { ...process.env, QUARRY_URL: base, QUARRY_TOKEN: token, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

test('create, status, pause, resume, download, restart and delete through the CLI', async () => {
  const urlsFile = path.join(t.dataDir, 'urls.txt');
  fs.writeFileSync(urlsFile, `${site.url('/c/0')}\n${site.url('/c/1')}\n${site.url('/c/2')}\n`);
  const created = await quarry([
    'create',
    'cli-job',
    '--api-url',
    '/v3/article',
    '--urls-file',
    urlsFile,
    '--urls',
    `${site.url('/c/3')} ${site.url('/c/4')}`,
    '--crawl-delay',
    '0',
    '--header',
    'X-From: cli',
  ]);
  assert.equal(created.code, 0, created.stderr);
  const createdBody = JSON.parse(created.stdout);
  assert.equal(createdBody.jobs[0].name, 'cli-job');
  assert.equal(createdBody.jobs[0].urlsHarvested, 5);
  assert.deepEqual(createdBody.jobs[0].customHeaders, { 'X-From': 'cli' });

  await waitForStatus(t.runtime, token, 'cli-job', [9]);
  const [status, list] = await Promise.all([quarry(['status', 'cli-job']), quarry(['status'])]);
  assert.equal(JSON.parse(status.stdout).jobs[0].pageProcessSuccesses, 5);
  assert.deepEqual(
    JSON.parse(list.stdout).jobs.map((j: { name: string }) => j.name),
    ['cli-job'],
  );
  assert.equal(JSON.parse((await quarry(['pause', 'cli-job'])).stdout).jobs[0].jobStatus.status, 6);
  assert.equal(JSON.parse((await quarry(['resume', 'cli-job'])).stdout).jobs[0].jobStatus.status, 9);

  const out = path.join(t.dataDir, 'report.csv');
  const [download, report] = await Promise.all([
    quarry(['download', 'cli-job']),
    quarry(['download', 'cli-job', '--report', '--format', 'csv', '--output', out]),
  ]);
  assert.equal(JSON.parse(download.stdout).length, 5);
  assert.equal(report.code, 0, report.stderr);
  assert.equal(fs.readFileSync(out, 'utf8').trim().split('\n').length, 6);

  assert.equal(JSON.parse((await quarry(['restart', 'cli-job'])).stdout).jobs[0].roundsCompleted, 0);
  await waitForStatus(t.runtime, token, 'cli-job', [9]);
  const deleted = JSON.parse((await quarry(['delete', 'cli-job'])).stdout);
  assert.deepEqual(deleted, { response: 'Successfully deleted job.', jobs: [] });
});

test('errors: unknown job, bad token, no token, unreachable server', async () => {
  const [unknown, badToken, noToken, down, noUrls] = await Promise.all([
    quarry(['status', 'nosuch']),
    quarry(['status'], { QUARRY_TOKEN: 'wrong' }),
    quarry(['status'], { QUARRY_TOKEN: '' }),
    quarry(['status', '--url', 'http://127.0.0.1:9']),
    quarry(['create', 'x', '--api-url', '/v3/article']),
  ]);
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /no collection record\. \(errorCode 500, HTTP 404\)/);
  assert.notEqual(badToken.code, 0);
  assert.match(badToken.stderr, /HTTP 401/);
  assert.notEqual(noToken.code, 0);
  assert.match(noToken.stderr, /token is required/);
  assert.notEqual(down.code, 0);
  assert.match(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:9/);
  assert.notEqual(noUrls.code, 0);
  assert.match(noUrls.stderr, /--urls/);
});

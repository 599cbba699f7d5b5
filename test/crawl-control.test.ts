/**
 * Bulk extract jobs: creation (form and JSON), validation answers, listing, token isolation,
 * pause/resume, restart, delete and operator maintenance, through the real app and a local site.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import {
  articlePage,
  type CrawlTestRuntime,
  control,
  createJob,
  jobNamed,
  startCrawlRuntime,
  waitFor,
  waitForStatus,
} from './support/crawl-runtime.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');
const run = promisify(execFile);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('bulk extract job control', () => {
  let site: FixtureServer;
  let t: CrawlTestRuntime;
  let token: string;
  const pages = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => site.url(`/${prefix}/${i}`)).join(' ');

  before(async () => {
    site = await startFixtureServer();
    for (const prefix of ['v', 'p', 'r', 'd', 'm', 'iso']) {
      for (let i = 0; i < 40; i++) {
        site.route(`/${prefix}/${i}`, respond.delay(40, respond.html(articlePage(`${prefix} ${i}`))));
      }
    }
    t = await startCrawlRuntime();
    token = await t.token();
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  describe('creation and validation', () => {
    test('form-encoded creation with the token as a form field', async () => {
      const form = new URLSearchParams({
        token,
        name: 'form-job',
        apiUrl: 'https://api.example.com/v3/article?fields=title',
        urls: pages('v', 2),
        crawlDelay: '0',
      });
      form.append('customHeaders', 'X-One:1');
      form.append('customHeaders', 'X-Two: 2');
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: '/v3/bulk',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form.toString(),
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.response, 'Successfully added urls for spidering.');
      assert.equal(body.jobs.length, 1);
      const record = body.jobs[0];
      assert.equal(record.name, 'form-job');
      assert.equal(record.type, 'bulk');
      assert.equal(record.apiUrl, 'https://api.example.com/v3/article?fields=title');
      assert.deepEqual(record.customHeaders, { 'X-One': '1', 'X-Two': '2' });
      assert.equal(record.crawlDelay, 0);
      assert.equal(record.obeyRobots, 1);
      assert.equal(record.urlsHarvested, 2);
      assert.match(
        record.downloadJson,
        new RegExp(`^http://[^/]+/v3/bulk/data\\?token=${token}&name=form-job&format=json$`),
      );
      await waitForStatus(t.runtime, token, 'form-job', [9]);
    });

    test('JSON creation with a bearer token; a second job with the same name is a 400', async () => {
      const payload = { name: 'json-job', apiUrl: '/v3/article', urls: pages('v', 1), crawlDelay: 0 };
      const first = await t.runtime.app.inject({
        method: 'POST',
        url: '/v3/bulk',
        headers: { authorization: `Bearer ${token}` },
        payload,
      });
      assert.equal(first.statusCode, 200, first.body);
      const again = await t.runtime.app.inject({ method: 'POST', url: `/v3/bulk?token=${token}`, payload });
      assert.equal(again.statusCode, 400);
      assert.deepEqual(again.json(), { errorCode: 400, error: 'A job named json-job already exists.' });
    });

    test('invalid input answers errorCode bodies with 4xx statuses naming the problem', async () => {
      const post = (payload: Record<string, unknown>) =>
        t.runtime.app.inject({ method: 'POST', url: `/v3/bulk?token=${token}`, payload });
      const badName = await post({ name: 'bad name!', apiUrl: '/v3/article', urls: pages('v', 1) });
      assert.equal(badName.statusCode, 400);
      assert.deepEqual(badName.json(), {
        errorCode: 505,
        error: 'Crawl names can consist only of letters, numbers, underscores or hyphens.',
      });
      const noUrls = await post({ name: 'no-urls', apiUrl: '/v3/article', urls: '' });
      assert.equal(noUrls.statusCode, 400);
      assert.equal(noUrls.json().errorCode, 400);
      assert.match(noUrls.json().error, /urls/);
      const badApi = await post({ name: 'bad-api', apiUrl: '/v3/nosuchapi', urls: pages('v', 1) });
      assert.equal(badApi.statusCode, 404);
      assert.deepEqual(badApi.json(), { errorCode: 457, error: 'Invalid API' });
      const badDelay = await post({
        name: 'bad-delay',
        apiUrl: '/v3/article',
        urls: pages('v', 1),
        crawlDelay: -1,
      });
      assert.equal(badDelay.statusCode, 400);
      assert.match(badDelay.json().error, /crawlDelay/);
      const unknownField = await post({ name: 'x', apiUrl: '/v3/article', urls: pages('v', 1), maxHops: 3 });
      assert.equal(unknownField.statusCode, 400);
      assert.match(unknownField.json().error, /maxHops/);
      const noToken = await t.runtime.app.inject({ method: 'POST', url: '/v3/bulk', payload: { name: 'x' } });
      assert.equal(noToken.statusCode, 401);
      assert.equal(noToken.json().errorCode, 401);
      const badToken = await t.runtime.app.inject({ method: 'GET', url: '/v3/bulk?token=nope' });
      assert.equal(badToken.statusCode, 401);
      // Nothing was created by the failed requests.
      const list = await t.runtime.app.inject({ method: 'GET', url: `/v3/bulk?token=${token}` });
      for (const name of ['bad-api', 'bad-delay', 'no-urls', 'x']) {
        assert.equal(
          list.json().jobs.some((job: { name: string }) => job.name === name),
          false,
          name,
        );
      }
    });

    test('a job whose URLs are all invalid is refused with a 400 naming them; nothing is created', async () => {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: `/v3/bulk?token=${token}`,
        payload: {
          name: 'nothing',
          apiUrl: '/v3/article',
          urls: 'file:///etc/passwd javascript:alert(1) nope',
        },
      });
      assert.equal(res.statusCode, 400);
      assert.match(
        res.json().error,
        /'urls': none of the URLs can be fetched .*"file:\/\/\/etc\/passwd" \(only http and https URLs are fetched\).*"nope" \(not an absolute URL\)/,
      );
      const list = await t.runtime.app.inject({ method: 'GET', url: `/v3/bulk?token=${token}&name=nothing` });
      assert.equal(list.statusCode, 404);
    });

    test('unknown and invalid names on control requests', async () => {
      const unknown = await t.runtime.app.inject({
        method: 'GET',
        url: `/v3/bulk?token=${token}&name=nosuchjob`,
      });
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(unknown.json(), { errorCode: 500, error: 'no collection record.' });
      const pauseUnknown = await t.runtime.app.inject({
        method: 'GET',
        url: `/v3/bulk?token=${token}&name=nosuchjob&pause=1`,
      });
      assert.equal(pauseUnknown.statusCode, 404);
      const invalid = await t.runtime.app.inject({
        method: 'GET',
        url: `/v3/bulk?token=${token}&name=${encodeURIComponent('a b')}&delete=1`,
      });
      assert.equal(invalid.statusCode, 400);
      assert.equal(invalid.json().errorCode, 505);
      const noName = await t.runtime.app.inject({ method: 'GET', url: `/v3/bulk?token=${token}&pause=1` });
      assert.equal(noName.statusCode, 400);
      assert.match(noName.json().error, /name/);
      const badValue = await t.runtime.app.inject({
        method: 'GET',
        url: `/v3/bulk?token=${token}&name=json-job&pause=2`,
      });
      assert.equal(badValue.statusCode, 400);
      assert.match(badValue.json().error, /pause/);
      const data = await t.runtime.app.inject({
        method: 'GET',
        url: `/v3/bulk/data?token=${token}&name=nosuchjob`,
      });
      assert.equal(data.statusCode, 404);
      assert.equal(data.json().errorCode, 500);
      const badFormat = await t.runtime.app.inject({
        method: 'GET',
        url: `/v3/bulk/data?token=${token}&name=json-job&format=xml`,
      });
      assert.equal(badFormat.statusCode, 400);
      assert.match(badFormat.json().error, /format/);
    });
  });

  test('the OpenAPI document describes the three area C operations', async () => {
    const doc = (await t.runtime.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.equal(doc.paths['/v3/bulk'].post.operationId, 'createBulkExtractJob');
    assert.equal(doc.paths['/v3/bulk'].get.operationId, 'bulkExtractJobs');
    assert.equal(doc.paths['/v3/bulk/data'].get.operationId, 'bulkExtractJobData');
  });

  test('token isolation: another token neither sees nor controls a job, and may reuse its name', async () => {
    const other = await t.token();
    await createJob(t.runtime, token, {
      name: 'mine',
      apiUrl: '/v3/article',
      urls: pages('iso', 3),
      crawlDelay: 0,
    });
    const list = await t.runtime.app.inject({ method: 'GET', url: `/v3/bulk?token=${other}` });
    assert.deepEqual(list.json(), { jobs: [] });
    for (const query of ['', '&pause=1', '&restart=1', '&delete=1']) {
      const res = await t.runtime.app.inject({
        method: 'GET',
        url: `/v3/bulk?token=${other}&name=mine${query}`,
      });
      assert.equal(res.statusCode, 404, query);
      assert.deepEqual(res.json(), { errorCode: 500, error: 'no collection record.' });
    }
    const data = await t.runtime.app.inject({ method: 'GET', url: `/v3/bulk/data?token=${other}&name=mine` });
    assert.equal(data.statusCode, 404);
    const theirs = await createJob(t.runtime, other, {
      name: 'mine',
      apiUrl: '/v3/article',
      urls: pages('iso', 1),
      crawlDelay: 0,
    });
    assert.equal(theirs.urlsHarvested, 1);
    const mine = await waitForStatus(t.runtime, token, 'mine', [9]);
    assert.equal(mine.urlsHarvested, 3);
    const listed = await t.runtime.app.inject({ method: 'GET', url: `/v3/bulk?token=${token}` });
    assert.ok(listed.json().jobs.some((job: { name: string }) => job.name === 'mine'));
  });

  test('pause stops new fetches at once; resume finishes the rest, each page fetched once', async () => {
    await createJob(t.runtime, token, {
      name: 'pausable',
      apiUrl: '/v3/article',
      urls: pages('p', 40),
      // One fetch at a time, 50 ms apart: the job is surely still running when paused.
      crawlDelay: 0.05,
    });
    await waitFor(async () =>
      (await jobNamed(t.runtime, token, 'pausable')).pageProcessSuccesses >= 3 ? true : undefined,
    );
    const paused = await control(t.runtime, token, 'pausable', 'pause', '1');
    assert.deepEqual(paused.jobs[0].jobStatus, { status: 6, message: 'Job paused.' });
    const countAtPause = site.requests().filter((r) => r.path.startsWith('/p/')).length;
    // In-flight fetches finish (each page takes 40 ms) and count; no new one starts. The job
    // fetches one page at a time, so at most one fetch was in flight at the pause: on a loaded
    // host its request can reach the site after the pause was answered.
    await sleep(300);
    const settled = site.requests().filter((r) => r.path.startsWith('/p/')).length;
    assert.ok(settled - countAtPause <= 1, `${settled - countAtPause} fetches started after the pause`);
    const whilePaused = await jobNamed(t.runtime, token, 'pausable');
    await sleep(1_000);
    assert.equal(site.requests().filter((r) => r.path.startsWith('/p/')).length, settled);
    const stillPaused = await jobNamed(t.runtime, token, 'pausable');
    assert.equal(stillPaused.jobStatus.status, 6);
    assert.equal(stillPaused.pageCrawlAttempts, whilePaused.pageCrawlAttempts);
    assert.equal(stillPaused.pageCrawlAttempts, settled);
    assert.ok(settled < 40);
    const resumed = await control(t.runtime, token, 'pausable', 'pause', '0');
    assert.equal(resumed.jobs[0].jobStatus.status, 7);
    const done = await waitForStatus(t.runtime, token, 'pausable', [9]);
    assert.equal(done.pageCrawlAttempts, 40);
    assert.equal(done.pageProcessSuccesses, 40);
    assert.equal(done.objectsFound, 40);
    for (let i = 0; i < 40; i++) assert.equal(site.count(`/p/${i}`), 1, `/p/${i}`);
    // Pausing and resuming a finished job leaves it finished.
    assert.equal((await control(t.runtime, token, 'pausable', 'pause', '1')).jobs[0].jobStatus.status, 6);
    assert.equal((await control(t.runtime, token, 'pausable', 'pause', '0')).jobs[0].jobStatus.status, 9);
  });

  test('restart erases results and counters and reprocesses every URL with the same settings', async () => {
    await createJob(t.runtime, token, {
      name: 'restartable',
      apiUrl: '/v3/article',
      urls: pages('r', 10),
      crawlDelay: 0,
      pageProcessPattern: '/r/',
    });
    const first = await waitForStatus(t.runtime, token, 'restartable', [9]);
    assert.equal(first.objectsFound, 10);
    const restarted = (await control(t.runtime, token, 'restartable', 'restart', '1')).jobs[0];
    assert.equal(restarted.jobStatus.status, 7);
    assert.equal(restarted.roundsCompleted, 0);
    assert.equal(restarted.pageProcessSuccesses <= 10, true);
    assert.equal(restarted.pageProcessPattern, '/r/');
    const done = await waitForStatus(t.runtime, token, 'restartable', [9]);
    assert.equal(done.pageCrawlAttempts, 10);
    assert.equal(done.objectsFound, 10);
    assert.equal(done.roundsCompleted, 1);
    for (let i = 0; i < 10; i++) assert.equal(site.count(`/r/${i}`), 2);
    const data = await t.runtime.app.inject({
      method: 'GET',
      url: `/v3/bulk/data?token=${token}&name=restartable`,
    });
    assert.equal(data.json().length, 10);
  });

  test('delete removes the job and its data', async () => {
    await createJob(t.runtime, token, {
      name: 'deletable',
      apiUrl: '/v3/article',
      urls: pages('d', 20),
      crawlDelay: 0,
    });
    await waitFor(async () =>
      (await jobNamed(t.runtime, token, 'deletable')).objectsFound >= 3 ? true : undefined,
    );
    const id = (await t.runtime.storage.crawlJobs.findJob(
      (await t.runtime.services.tokens.find(token))!.id,
      'deletable',
    ))!.id;
    const deleted = await control(t.runtime, token, 'deletable', 'delete', '1');
    assert.deepEqual(deleted, { response: 'Successfully deleted job.', jobs: [] });
    const gone = await t.runtime.app.inject({ method: 'GET', url: `/v3/bulk?token=${token}&name=deletable` });
    assert.equal(gone.statusCode, 404);
    const data = await t.runtime.app.inject({
      method: 'GET',
      url: `/v3/bulk/data?token=${token}&name=deletable`,
    });
    assert.equal(data.statusCode, 404);
    await sleep(200);
    const fetched = site.requests().filter((r) => r.path.startsWith('/d/')).length;
    await sleep(300);
    assert.equal(site.requests().filter((r) => r.path.startsWith('/d/')).length, fetched);
    assert.equal(await t.runtime.storage.crawlJobs.getJob(id), undefined);
    assert.equal((await t.runtime.storage.crawlJobs.listUrls(id, -1, 10)).length, 0);
    assert.equal((await t.runtime.storage.crawlJobs.listObjects(id, 0, 10)).length, 0);
    // The name can be used again.
    await createJob(t.runtime, token, {
      name: 'deletable',
      apiUrl: '/v3/article',
      urls: pages('d', 1),
      crawlDelay: 0,
    });
  });

  test('quarry maintenance on holds every running job within a second with status 8; off restores it', async () => {
    await createJob(t.runtime, token, {
      name: 'maint',
      apiUrl: '/v3/article',
      urls: pages('m', 40),
      // 40 fetches 150 ms apart: still running when maintenance starts, however slow the CLI.
      crawlDelay: 0.15,
    });
    await createJob(t.runtime, token, {
      name: 'maint-paused',
      apiUrl: '/v3/article',
      urls: pages('m', 2),
      crawlDelay: 0,
    });
    await control(t.runtime, token, 'maint-paused', 'pause', '1');
    await waitFor(async () =>
      (await jobNamed(t.runtime, token, 'maint')).pageCrawlAttempts >= 2 ? true : undefined,
    );
    const cli = async (state: string) => {
      try {
        const { stdout, stderr } = await run(process.execPath, [MAIN, 'maintenance', state], {
          env: {
            ...process.env,
            QUARRY_DATA_DIR: t.dataDir,
            ...(t.runtime.config.databaseUrl ? { QUARRY_DATABASE_URL: t.runtime.config.databaseUrl } : {}),
          },
        });
        return { status: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    const on = await cli('on');
    assert.equal(on.status, 0, on.stderr);
    assert.equal(on.stdout, 'maintenance on\n');
    const switchedAt = Date.now();
    const held = await waitForStatus(t.runtime, token, 'maint', [8], 2_000);
    assert.ok(Date.now() - switchedAt < 1_000, `held after ${Date.now() - switchedAt} ms`);
    assert.equal(
      held.jobStatus.message,
      'All crawling temporarily paused by root administrator for maintenance.',
    );
    assert.equal((await jobNamed(t.runtime, token, 'maint-paused')).jobStatus.status, 6);
    await sleep(200);
    const during = site.requests().filter((r) => r.path.startsWith('/m/')).length;
    // A job created during maintenance waits too.
    const created = await createJob(t.runtime, token, {
      name: 'maint-new',
      apiUrl: '/v3/article',
      urls: pages('v', 1),
      crawlDelay: 0,
    });
    assert.equal(created.jobStatus.status, 8);
    await sleep(500);
    assert.equal(site.requests().filter((r) => r.path.startsWith('/m/')).length, during);
    const [off, status, bogus] = await Promise.all([cli('off'), cli('status'), cli('bogus')]);
    assert.equal(off.status, 0, off.stderr);
    const resumed = await waitForStatus(t.runtime, token, 'maint', [7]);
    await waitFor(async () =>
      (await jobNamed(t.runtime, token, 'maint')).pageCrawlAttempts > resumed.pageCrawlAttempts
        ? true
        : undefined,
    );
    assert.equal((await jobNamed(t.runtime, token, 'maint-paused')).jobStatus.status, 6);
    await waitForStatus(t.runtime, token, 'maint-new', [9]);
    await control(t.runtime, token, 'maint', 'delete', '1');
    assert.match(status.stdout, /^maintenance (on|off)\n$/);
    assert.notEqual(bogus.status, 0);
    assert.match(bogus.stderr, /expected on, off or status/);
  });
});

describe('before processing starts', () => {
  test('a new job is initializing (status 0) until the scheduler picks it up', async () => {
    const site = await startFixtureServer();
    const t = await startCrawlRuntime({ start: false });
    try {
      site.route('/i/0', respond.html(articlePage('Init')));
      const token = await t.token();
      const created = await createJob(t.runtime, token, {
        name: 'init',
        apiUrl: '/v3/article',
        urls: site.url('/i/0'),
        crawlDelay: 0,
      });
      assert.deepEqual(created.jobStatus, { status: 0, message: 'Job is initializing.' });
      assert.equal(created.jobCompletionTimeUTC, 0);
      await sleep(200);
      assert.equal(site.requests().length, 0);
      await t.runtime.crawl.start();
      const done = await waitForStatus(t.runtime, token, 'init', [9]);
      assert.equal(done.pageProcessSuccesses, 1);
    } finally {
      await t.close();
      await site.close();
    }
  });
});

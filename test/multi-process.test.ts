/**
 * One deployment, several processes (issue 26 "Tests"): two `quarry serve` and one `quarry
 * worker` on one PostgreSQL database (a fresh one per run, dropped after), every guarantee of the
 * single process checked across them:
 * - a bulk job submitted to one server, its status read from the other, one server SIGKILLed
 *   mid-job and started again: every record answered exactly once, in order on download, and
 *   charged once;
 * - a stop sent to one process is in force on all once it answers;
 * - 200 concurrent enhance requests split over both servers on a token with 50 credits: at most
 *   50 matches answered, the balance exactly 0;
 * - a bulk extract job whose pages all three processes fetch (a local fixture web logs which
 *   process asked, and when): no page fetched twice, each host's delay kept between requests of
 *   different processes, and a pause sent to one server stops the fetches of all.
 *
 * Size: the 100,000 records (`MULTI_PROCESS_RECORDS` to change it). Measured on the
 * 2 shared cores of this machine at a load average of 15–18: the job took 99 s over the three
 * processes, one of them killed and restarted on the way, and the whole file 141 s.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TokenService } from '../src/accounts/index.ts';
import type { CrawlJobRecord } from '../src/crawl/index.ts';
import { openStorage, type Storage } from '../src/storage/index.ts';
import { articlePage } from './support/crawl-runtime.ts';
import { type FixtureServer, startFixtureServer } from './support/fixture-server.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { type QuarryProcess, startQuarryProcess } from './support/quarry-process.ts';
import { tempDir } from './support/temp-dir.ts';
import { createTempDatabase, type TempDatabase } from './support/temp-postgres.ts';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');
/** Records of the bulk job (see the module comment for its time). */
const RECORDS = Number(process.env.MULTI_PROCESS_RECORDS ?? 100_000);
const CREDITS = 1_000_000_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a value, failing with `what` after `ms`. */
async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await sleep(50);
  }
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('two serve and one worker process on one PostgreSQL database', () => {
  let database: TempDatabase;
  let storage: Storage;
  const dirs: Array<ReturnType<typeof tempDir>> = [];
  const processes: QuarryProcess[] = [];
  let env: Record<string, string>;
  let token: string;
  let tokenId: string;
  let a: QuarryProcess;
  let b: QuarryProcess;
  let worker: QuarryProcess;

  /** Starts a process in a data directory of its own, as on a machine of its own. */
  async function start(command: QuarryProcess['command']): Promise<QuarryProcess> {
    const dir = tempDir();
    dirs.push(dir);
    const started = await startQuarryProcess(command, dir.path, env);
    processes.push(started);
    return started;
  }

  before(async () => {
    database = await createTempDatabase();
    storage = openStorage({ adapter: 'postgres', url: database.url });
    await loadFixtureGraph(storage.entities, FIXTURE);
    const created = await new TokenService(storage.tokens).create({ credits: CREDITS });
    token = created.secret;
    tokenId = created.record.id;
    env = {
      QUARRY_DATABASE_URL: database.url,
      QUARRY_WORKERS: '1',
      QUARRY_ENHANCE_THREADS: '1',
      QUARRY_CREDITS_PER_MATCH: '1',
    };
    [a, b, worker] = await Promise.all([start('serve'), start('serve'), start('worker')]);
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    await storage?.close();
    await database?.drop();
    for (const dir of dirs) dir.remove();
  });

  async function bulkStatus(server: QuarryProcess, id: string): Promise<Record<string, unknown>> {
    const { body } = await getJson(`${server.url}/kg/v3/enhance/bulk/${id}/status?token=${token}`);
    return body.content as Record<string, unknown>;
  }

  async function submit(server: QuarryProcess, records: readonly unknown[]): Promise<string> {
    const res = await fetch(`${server.url}/kg/v3/enhance/bulk?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(records),
    });
    assert.equal(res.status, 202, await res.clone().text());
    return ((await res.json()) as { job_id: string }).job_id;
  }

  /** Records of three kinds (a match by name, by id, none), each with its own customId. */
  function records(n: number): Record<string, unknown>[] {
    return Array.from({ length: n }, (_, i) => {
      const customId = `rec-${i}`;
      if (i % 3 === 0) return { type: 'Organization', name: 'Acme Robotics', customId };
      if (i % 3 === 1) return { id: 'ORG-globex', customId };
      return { type: 'Organization', name: `Zzyzx Bakery ${i}`, customId };
    });
  }

  test(`a ${RECORDS}-record job survives SIGKILL of a server: every record once, in order, charged once`, async () => {
    const started = performance.now();
    const id = await submit(a, records(RECORDS));
    // Status from the other server; kill the one that took the job mid-way.
    const before = await until('a fifth of the job done', 10 * 60_000, async () => {
      const content = await bulkStatus(b, id);
      return (content.jobs_completed as number) >= RECORDS / 5 ? content : undefined;
    });
    await a.kill('SIGKILL');
    assert.ok((before.jobs_completed as number) < RECORDS, 'killed while the job was running');
    a = await start('serve');
    const final = await until('the job done', 20 * 60_000, async () => {
      const content = await bulkStatus(b, id);
      return content.status !== 'IN_PROCESS' && content.status !== 'NOT_STARTED' ? content : undefined;
    });
    console.log(
      `# ${RECORDS} records over 3 processes, one killed: ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    assert.equal(final.jobs_completed, RECORDS);
    // Downloaded from the restarted server: one line per record, in input order.
    const res = await fetch(`${a.url}/kg/v3/enhance/bulk/${id}?token=${token}&wait=60`);
    assert.equal(res.status, 200);
    const lines = (await res.text()).split('\n').filter((line) => line !== '');
    // A failed record says why: name the first few, so a failure here can be diagnosed.
    const failures = lines.filter((line) => line.includes('"errors":["')).slice(0, 3);
    assert.equal(final.status, 'COMPLETE', `records failed, e.g.: ${failures.join(' | ')}`);
    assert.equal(lines.length, RECORDS);
    let matched = 0;
    lines.forEach((line, i) => {
      const answer = JSON.parse(line) as { request_ctx: { query: { customId: string } }; data?: unknown[] };
      if (answer.request_ctx.query.customId !== `rec-${i}`) {
        assert.equal(answer.request_ctx.query.customId, `rec-${i}`, `line ${i}`);
      }
      if ((answer.data?.length ?? 0) > 0) matched++;
    });
    assert.equal(matched, Math.ceil(RECORDS / 3) + Math.ceil((RECORDS - 1) / 3), 'Acme and Globex match');
    // One credit per matched record, once: a batch answered twice would have been charged twice.
    assert.equal((await storage.tokens.findById(tokenId))?.credits, CREDITS - matched);
  });

  test('a stop sent to one server is in force on every process once it answers', async () => {
    const id = await submit(b, records(Math.min(RECORDS, 60_000)));
    await until('2,000 records done', 5 * 60_000, async () =>
      ((await bulkStatus(a, id)).jobs_completed as number) >= 2_000 ? true : undefined,
    );
    const { status, body } = await getJson(`${a.url}/kg/v3/enhance/bulk/${id}/stop?token=${token}`);
    assert.equal(status, 200);
    assert.equal(body.status, 'STOPPED');
    const atStop = (await storage.bulkJobs.get(id))!.completed;
    // The other server says so at once; no process stores a result after (batches in flight
    // find the job stopped when they commit).
    assert.equal((await bulkStatus(b, id)).status, 'STOPPED');
    await sleep(1_000);
    const later = (await storage.bulkJobs.get(id))!;
    assert.equal(later.state, 'STOPPED');
    assert.equal(later.completed, atStop, 'no result stored after the stop answered');
    assert.equal((await storage.bulkJobs.results(id, 0, RECORDS)).length, atStop);
  });

  test('200 concurrent enhance requests over two servers on a token with 50 credits: 50 matches, balance 0', async () => {
    const poor = await new TokenService(storage.tokens).create({ credits: 50 });
    const query = 'type=Organization&name=Acme%20Robotics';
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const server = i % 2 === 0 ? a : b;
        const res = await fetch(`${server.url}/kg/v3/enhance?${query}&token=${poor.secret}`);
        const body = (await res.json()) as { hits?: number };
        return { status: res.status, hits: body.hits ?? 0 };
      }),
    );
    const matched = answers.filter((answer) => answer.status === 200 && answer.hits > 0).length;
    const refused = answers.filter((answer) => answer.status === 429).length;
    assert.ok(matched <= 50, `${matched} answered with a match`);
    assert.equal(
      matched + refused,
      200,
      JSON.stringify(answers.filter((x) => x.status !== 200 && x.status !== 429)),
    );
    assert.equal((await storage.tokens.findById(poor.record.id))?.credits, 0);
    assert.equal(matched, 50, 'every credit bought an answer');
  });

  test('a bulk extract job fetched by every process: each page once, host delays kept, a pause on one stops all', async () => {
    const DELAY_MS = 200;
    const PAGES = 24;
    const pids = [a.pid, b.pid, worker.pid];
    const sites: FixtureServer[] = await Promise.all([startFixtureServer(), startFixtureServer()]);
    const log: Array<{
      host: number;
      path: string;
      pid: number | undefined;
      arrived: number;
      ended: number;
    }> = [];
    const now = () => performance.timeOrigin + performance.now();
    try {
      sites.forEach((site, host) => {
        for (let i = 0; i < PAGES; i++) {
          site.route(`/p/${i}`, (request, response) => {
            const entry = {
              host,
              path: `/p/${i}`,
              pid: socketOwner(request.socket.remotePort ?? 0, pids),
              arrived: now(),
              ended: 0,
            };
            log.push(entry);
            response.on('finish', () => {
              entry.ended = now();
            });
            // A little time on the wire, so that overlapping requests would show.
            setTimeout(() => {
              response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
              response.end(articlePage(`Page ${host} ${i}`));
            }, 15);
          });
        }
      });
      const urls = sites.flatMap((site) => Array.from({ length: PAGES }, (_, i) => site.url(`/p/${i}`)));
      const created = await fetch(`${b.url}/v3/bulk?token=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'spread',
          apiUrl: '/v3/article',
          urls: urls.join(' '),
          crawlDelay: DELAY_MS / 1000,
        }),
      });
      assert.equal(created.status, 200, await created.clone().text());
      const job = (server: QuarryProcess, extra = '') =>
        getJson(`${server.url}/v3/bulk?token=${token}&name=spread${extra}`).then(
          ({ body }) => (body.jobs as CrawlJobRecord[])[0],
        );
      // Paused from the other server mid-way: no process starts a fetch a second later.
      await until('12 pages fetched', 60_000, async () => (log.length >= 12 ? true : undefined));
      await job(a, '&pause=1');
      const pausedAt = now();
      await sleep(1_500);
      const late = log.filter((entry) => entry.arrived > pausedAt + 1_000);
      assert.deepEqual(late, [], 'requests more than 1 s after the pause answered');
      const beforeResume = log.length;
      assert.ok(beforeResume < 2 * PAGES, 'paused before the end');
      await job(b, '&pause=0');
      const record = await until('the crawl done', 60_000, async () => {
        const current = await job(a);
        return current.jobStatus.status === 9 ? current : undefined;
      });
      assert.equal(record.pageCrawlSuccesses, 2 * PAGES);
      // Each page once, by a process of the deployment; more than one process took part.
      const seen = new Set(log.map((entry) => `${entry.host}${entry.path}`));
      assert.equal(log.length, 2 * PAGES, 'no page fetched twice');
      assert.equal(seen.size, 2 * PAGES);
      for (const entry of log) assert.ok(entry.pid !== undefined, `${entry.path} from an unknown process`);
      const fetchers = new Set(log.map((entry) => entry.pid));
      assert.ok(fetchers.size >= 2, `pages fetched by ${fetchers.size} process(es)`);
      // Per host, whoever fetched: one request at a time, each beginning the delay after the
      // previous one ended (2 ms of slack: the database keeps whole milliseconds).
      for (let host = 0; host < sites.length; host++) {
        const requests = log.filter((entry) => entry.host === host).sort((x, y) => x.arrived - y.arrived);
        for (let i = 1; i < requests.length; i++) {
          const gap = requests[i].arrived - requests[i - 1].ended;
          assert.ok(
            gap >= DELAY_MS - 2,
            `host ${host}: request ${i} began ${gap.toFixed(1)} ms after the previous ended`,
          );
        }
      }
    } finally {
      await Promise.all(sites.map((site) => site.close()));
    }
  });
});

/**
 * The process, of `pids`, that owns the loopback socket whose local port is `port` (the client
 * end of a request the fixture web received): /proc/net/tcp names the socket, /proc/PID/fd its
 * owner.
 */
function socketOwner(port: number, pids: readonly number[]): number | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length > 9 && Number.parseInt(columns[1].split(':').at(-1)!, 16) === port)
        inodes.add(columns[9]);
    }
  }
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode && inodes.has(inode)) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

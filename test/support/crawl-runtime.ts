/**
 * Test support for bulk extract jobs: a whole Quarry over a temporary SQLite file with the
 * crawl waits shortened (retries, webhooks), plus small helpers to drive `/v3/bulk`.
 */
import assert from 'node:assert/strict';
import { type Config, loadConfig } from '../../src/config.ts';
import type { CrawlJobRecord, CrawlTuning } from '../../src/crawl/index.ts';
import { createLogger } from '../../src/logging.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { tempDir } from './temp-dir.ts';
import { testDatabase } from './temp-postgres.ts';

/** Waits short enough for tests: retries after ~20 ms, webhooks after 50 ms then 100 ms. */
export const FAST_CRAWL: CrawlTuning = {
  scheduler: { retry: { maxRetries: 3, baseDelayMs: 20, maxDelayMs: 200 }, flushIntervalMs: 10 },
  webhook: { delaysMs: [50, 100] },
};

export interface CrawlTestRuntime {
  readonly runtime: Runtime;
  readonly dataDir: string;
  /** Creates a token and returns its secret. */
  token(): Promise<string>;
  close(): Promise<void>;
}

/**
 * A runtime answering through `app.inject()` whose crawl scheduler runs (`start()`), unless
 * `start: false` (then the test starts it).
 */
export async function startCrawlRuntime(
  options: { config?: Partial<Config>; crawl?: CrawlTuning; dataDir?: string; start?: boolean } = {},
): Promise<CrawlTestRuntime> {
  const dir = options.dataDir ? undefined : tempDir();
  const dataDir = options.dataDir ?? dir!.path;
  const database = options.dataDir ? undefined : await testDatabase();
  const config = loadConfig(
    { QUARRY_ALLOW_PRIVATE_NETWORK: '1', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' },
    {
      dataDir,
      port: 0,
      host: '127.0.0.1',
      workerThreads: 1,
      ...(database ? { databaseUrl: database.url } : {}),
      ...options.config,
    },
  );
  const runtime = await createRuntime(
    config,
    createLogger({ level: config.logLevel, destination: 'stderr' }),
    {
      crawl: options.crawl ?? FAST_CRAWL,
    },
  );
  if (options.start !== false) await runtime.crawl.start();
  return {
    runtime,
    dataDir,
    token: async () => (await runtime.services.tokens.create({ credits: null })).secret,
    async close() {
      await runtime.close();
      await database?.drop();
      dir?.remove();
    },
  };
}

/** `POST /v3/bulk` with a JSON body; asserts success and returns the job record. */
export async function createJob(
  runtime: Runtime,
  token: string,
  fields: Record<string, unknown>,
): Promise<CrawlJobRecord> {
  const res = await runtime.app.inject({
    method: 'POST',
    url: `/v3/bulk?token=${token}`,
    payload: fields,
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().response, 'Successfully added urls for spidering.');
  return res.json().jobs[0] as CrawlJobRecord;
}

/** The job record by name (`GET /v3/bulk?name=`). */
export async function jobNamed(runtime: Runtime, token: string, name: string): Promise<CrawlJobRecord> {
  const res = await runtime.app.inject({ method: 'GET', url: `/v3/bulk?token=${token}&name=${name}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().jobs[0] as CrawlJobRecord;
}

/** `GET /v3/bulk?name=&<action>=<value>`; returns the parsed answer. */
export async function control(
  runtime: Runtime,
  token: string,
  name: string,
  action: 'pause' | 'restart' | 'delete',
  value: '0' | '1',
): Promise<{ response?: string; jobs: CrawlJobRecord[] }> {
  const res = await runtime.app.inject({
    method: 'GET',
    url: `/v3/bulk?token=${token}&name=${name}&${action}=${value}`,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Polls `probe` every 20 ms until it returns a value other than undefined; fails after `ms`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until the job reaches one of `statuses` and returns its record. */
export async function waitForStatus(
  runtime: Runtime,
  token: string,
  name: string,
  statuses: readonly number[],
  ms = 15_000,
): Promise<CrawlJobRecord> {
  return waitFor(async () => {
    const record = await jobNamed(runtime, token, name);
    return statuses.includes(record.jobStatus.status) ? record : undefined;
  }, ms);
}

/** A small article page (one object with the article API). */
export function articlePage(title: string, words = 40): string {
  const text = Array.from({ length: words }, (_, i) => `word${i}`).join(' ');
  return `<!DOCTYPE html><html lang="en"><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${text}.</p><p>Second paragraph of ${title}.</p></article></body></html>`;
}

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ENV, ENVIRONMENT, loadClientConfig, loadConfig } from './config.ts';

const ROOT = path.join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

describe('configuration', () => {
  test('defaults when the environment is empty', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.dataDir, path.resolve('data'));
    assert.equal(config.allowPrivateNetwork, false);
    assert.deepEqual(config.credits, { perMatch: 25, perMatchRefresh: 100 });
    assert.equal(config.limits.bulkBodyBytes, 200 * 1024 * 1024);
    assert.equal(config.bulkRetentionMs, 0);
    assert.deepEqual(config.web, { refreshMaxAgeMs: 86_400_000, crawlDelayMs: 250, searchUrl: undefined });
    assert.deepEqual(loadClientConfig({}), { url: 'http://localhost:8080', token: undefined });
  });

  test('each variable sets its option; flags win over the environment', () => {
    const config = loadConfig(
      { PORT: '9000', QUARRY_BULK_MAX_RECORDS: '7', QUARRY_ALLOW_PRIVATE_NETWORK: 'yes' },
      { port: 9001 },
    );
    assert.equal(config.port, 9001);
    assert.equal(config.limits.bulkMaxRecords, 7);
    assert.equal(config.allowPrivateNetwork, true);
    const client = loadClientConfig({ QUARRY_URL: 'http://q:1//', QUARRY_TOKEN: 't' }, { token: 'flag' });
    assert.deepEqual(client, { url: 'http://q:1', token: 'flag' });
  });

  test('refresh and search: durations with units, delays in seconds, the search URL', () => {
    const config = loadConfig({
      QUARRY_REFRESH_MAX_AGE: '30m',
      QUARRY_REFRESH_CRAWL_DELAY: '0.1',
      QUARRY_SEARCH_URL: 'http://127.0.0.1:8888/search',
    });
    assert.deepEqual(config.web, {
      refreshMaxAgeMs: 1_800_000,
      crawlDelayMs: 100,
      searchUrl: 'http://127.0.0.1:8888/search',
    });
    assert.equal(loadConfig({ QUARRY_REFRESH_MAX_AGE: '90' }).web.refreshMaxAgeMs, 90_000);
    assert.equal(loadConfig({ QUARRY_REFRESH_MAX_AGE: '0' }).web.refreshMaxAgeMs, 0);
    assert.equal(loadConfig({ QUARRY_REFRESH_MAX_AGE: '7d' }).web.refreshMaxAgeMs, 604_800_000);
    assert.throws(
      () => loadConfig({ QUARRY_REFRESH_MAX_AGE: 'a day' }),
      /QUARRY_REFRESH_MAX_AGE must be a duration/,
    );
    assert.throws(() => loadConfig({ QUARRY_REFRESH_CRAWL_DELAY: '-1' }), /QUARRY_REFRESH_CRAWL_DELAY/);
    assert.throws(() => loadConfig({ QUARRY_SEARCH_URL: 'ftp://x/' }), /QUARRY_SEARCH_URL must be/);
    assert.throws(() => loadConfig({ QUARRY_SEARCH_URL: 'searx' }), /QUARRY_SEARCH_URL must be/);
    assert.deepEqual(loadConfig({}).allowedAddresses, []);
    assert.deepEqual(loadConfig({ QUARRY_ALLOWED_ADDRESSES: '127.0.0.0/8, ::1,10.2.3.4' }).allowedAddresses, [
      '127.0.0.0/8',
      '::1',
      '10.2.3.4',
    ]);
    for (const bad of ['localhost', '127.0.0.0/33', '10.0.0.1/8/2', '::1/200'])
      assert.throws(() => loadConfig({ QUARRY_ALLOWED_ADDRESSES: bad }), /QUARRY_ALLOWED_ADDRESSES must be/);
  });

  test('a malformed value is refused naming the variable', () => {
    assert.throws(() => loadConfig({ QUARRY_WORKERS: 'many' }), /QUARRY_WORKERS must be/);
    assert.throws(() => loadConfig({ QUARRY_BULK_RETENTION_DAYS: '-2' }), /QUARRY_BULK_RETENTION_DAYS/);
  });

  test('the table names every variable once, and the README documents each', () => {
    const names = ENVIRONMENT.map((row) => row.name);
    assert.equal(new Set(names).size, names.length);
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const name of names) assert.ok(readme.includes(`\`${name}\``), `README.md names ${name}`);
    assert.equal(ENV.port.name, 'PORT');
  });

  test('no other module reads settings from process.env', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(path.join(ROOT, 'src'))) {
      if (file.endsWith(`${path.sep}config.ts`)) continue;
      const text = fs.readFileSync(file, 'utf8');
      for (const name of ENVIRONMENT.map((row) => row.name)) {
        if (new RegExp(`env(\\.|\\[')${name}\\b`).test(text)) offenders.push(`${file}: ${name}`);
      }
    }
    assert.deepEqual(offenders, []);
  });
});

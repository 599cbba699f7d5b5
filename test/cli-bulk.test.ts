import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { importEntities } from '../src/import/index.ts';
import { type FixtureServer, respond, startFixtureServer } from './support/fixture-server.ts';
import { organizationPage } from './support/fixture-web.ts';
import { loadFixtureGraph } from './support/load-graph.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');
const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'kg-small.jsonl');

/** Runs `quarry …` in a child process (asynchronously: the server runs in this process). */
function quarry(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('quarry bulk (CLI against a running server)', () => {
  let t: TestRuntime;
  let env: Record<string, string>;
  let files: string;
  before(async () => {
    t = await startTestRuntime();
    await loadFixtureGraph(t.runtime.storage.entities, FIXTURE);
    const url = await t.runtime.listen();
    env = { QUARRY_URL: url, QUARRY_TOKEN: await t.token(null) };
    files = fs.mkdtempSync(path.join(t.dataDir, 'cli-'));
  });
  after(async () => t.close());

  test('submit a JSONL file --wait, then status and a CSV download', async () => {
    const file = path.join(files, 'queries.jsonl');
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ type: 'Organization', name: 'Acme Robotics', customId: 'a' }),
        '',
        JSON.stringify({ id: 'ORG-globex' }),
        JSON.stringify({ name: 'Initech' }),
      ].join('\n'),
    );
    const submitted = await quarry(
      ['bulk', 'submit', file, '--name', 'cli job', '--wait', '--type', 'Organization'],
      env,
    );
    assert.equal(submitted.code, 0, submitted.stderr);
    const id = submitted.stdout.trim();
    assert.match(id, /^bj_[0-9a-f]{24}$/);
    assert.match(submitted.stderr, /is completed/);

    const status = await quarry(['bulk', 'status', id], env);
    assert.equal(status.code, 0, status.stderr);
    const record = JSON.parse(status.stdout);
    assert.equal(record.status, 'COMPLETE');
    assert.equal(record.name, 'cli job');
    assert.equal(record.jobs_total, 3);

    const list = await quarry(['bulk', 'status'], env);
    assert.match(list.stdout, /^JOB\s+STATUS\s+DONE/);
    assert.ok(list.stdout.includes(id));
    assert.ok(list.stdout.includes('3/3'));

    const out = path.join(files, 'out.csv');
    const downloaded = await quarry(
      ['bulk', 'download', id, '--format', 'csv', '-o', out, '--exportspec', 'id;name'],
      env,
    );
    assert.equal(downloaded.code, 0, downloaded.stderr);
    const rows = parse(fs.readFileSync(out)) as string[][];
    assert.deepEqual(
      rows.map((row) => row.slice(0, 2)),
      [
        ['id', 'name'],
        ['ORG-acme', 'Acme Robotics Inc.'],
        ['ORG-globex', 'Globex Corporation'],
        ['ORG-initech', 'Initech'],
      ],
    );
    const jsonl = await quarry(['bulk', 'download', id, '--head', '1'], env);
    assert.equal(JSON.parse(jsonl.stdout.trim()).request_ctx.query.customId, 'a');
  });

  test('submit a CSV with a column mapping; stop and delete', async () => {
    const file = path.join(files, 'companies.csv');
    fs.writeFileSync(
      file,
      'Company,Website,Ref\r\nAcme Robotics,acme-robotics.example,r1\r\n"Globex, Corp",,r2\r\n',
    );
    const submitted = await quarry(
      [
        'bulk',
        'submit',
        file,
        '--type',
        'Organization',
        '--map',
        'name=Company,url=Website,customId=Ref',
        '--wait',
      ],
      env,
    );
    assert.equal(submitted.code, 0, submitted.stderr);
    const id = submitted.stdout.trim();
    const lines = (await quarry(['bulk', 'download', id], env)).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(lines[0].request_ctx.query, {
      type: 'Organization',
      name: ['Acme Robotics'],
      url: ['acme-robotics.example'],
      customId: 'r1',
    });
    assert.deepEqual(lines[1].request_ctx.query.name, ['Globex, Corp']);

    const stopped = await quarry(['bulk', 'stop', id], env);
    assert.deepEqual(JSON.parse(stopped.stdout), {
      status: 'COMPLETE',
      message: `Bulkjob [${id}] is completed`,
    });
    const deleted = await quarry(['bulk', 'delete', id], env);
    assert.equal(deleted.code, 0);
    const gone = await quarry(['bulk', 'status', id], env);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /HTTP 404/);
  });

  test('submit --refresh --search MODE: the job refreshes and searches as asked', async () => {
    const site: FixtureServer = await startFixtureServer();
    try {
      site.route(
        '/about',
        respond.html(
          organizationPage({
            name: 'Cli Refresh Works GmbH',
            employees: 42,
            city: 'Hamburg',
            country: 'Germany',
          }),
        ),
      );
      const record = {
        id: 'ORG-cli-refresh',
        type: 'Organization',
        name: 'Cli Refresh Works GmbH',
        origins: [site.url('/about')],
        nbEmployees: 7,
        location: { city: { name: 'Hamburg' }, country: { name: 'Germany' } },
      };
      const imported = await importEntities(
        t.runtime.storage.entities,
        Readable.from([`${JSON.stringify(record)}\n`]),
        { fileName: 'cli-refresh.jsonl', workers: 0 },
      );
      assert.equal(imported.rejected, 0);
      const file = path.join(files, 'refresh.jsonl');
      fs.writeFileSync(
        file,
        [{ id: 'ORG-cli-refresh' }, { type: 'Organization', name: 'Qwzx Nowhere Holdings' }]
          .map((r) => JSON.stringify(r))
          .join('\n'),
      );
      const submitted = await quarry(
        ['bulk', 'submit', file, '--refresh', '--search', 'fallback', '--wait'],
        env,
      );
      assert.equal(submitted.code, 0, submitted.stderr);
      const id = submitted.stdout.trim();
      const status = JSON.parse((await quarry(['bulk', 'status', id], env)).stdout);
      assert.equal(status.refresh, true);
      assert.equal(status.search, 'FALLBACK');
      assert.equal(status.pagesFetched, 1);
      assert.equal(site.count('/about'), 1, 'the origin was fetched once');

      const out = path.join(files, 'refresh-out.jsonl');
      const downloaded = await quarry(['bulk', 'download', id, '--output', out], env);
      assert.equal(downloaded.code, 0, downloaded.stderr);
      const [refreshed, absent] = fs
        .readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.equal(refreshed.data[0].entity.nbEmployees, 42, 'rebuilt from the page');
      assert.equal(refreshed.data[0].refreshInfo[site.url('/about')].hasResult, true);
      // FALLBACK searched for the record the graph lacks: no provider here, so a note says so.
      assert.ok(
        absent.errors.some((e: string) => /search is not configured/.test(e)),
        JSON.stringify(absent.errors),
      );

      const badMode = await quarry(['bulk', 'submit', file, '--search', 'sometimes'], env);
      assert.equal(badMode.code, 1);
      assert.match(badMode.stderr, /ON, OFF, SEARCHONLY, FALLBACK/);
    } finally {
      await site.close();
    }
  });

  test('errors are one line on stderr with exit code 1', async () => {
    const bad = path.join(files, 'bad.jsonl');
    fs.writeFileSync(bad, '{"type":"Planet","name":"x"}\n');
    const refused = await quarry(['bulk', 'submit', bad], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /HTTP 400: Invalid parameter 'body\[0\]\.type'/);
    const noToken = await quarry(['bulk', 'status'], { QUARRY_URL: env.QUARRY_URL, QUARRY_TOKEN: '' });
    assert.equal(noToken.code, 1);
    assert.match(noToken.stderr, /no token/);
    const wrongFormat = await quarry(['bulk', 'submit', path.join(files, 'x.txt')], env);
    assert.equal(wrongFormat.code, 1);
    assert.match(wrongFormat.stderr, /--format/);

    // Issue 28: a malformed input file is reported as such, not as "cannot reach http://…".
    const badCsv = path.join(files, 'bad.csv');
    fs.writeFileSync(badCsv, 'name,url\n"Acme,acme.example\n');
    const csvRefused = await quarry(['bulk', 'submit', badCsv, '--type', 'Organization'], env);
    assert.equal(csvRefused.code, 1);
    assert.match(csvRefused.stderr, /bad\.csv: not valid CSV: Quote Not Closed/);
    assert.doesNotMatch(csvRefused.stderr, /cannot reach/);
    const badJsonl = path.join(files, 'broken.jsonl');
    fs.writeFileSync(badJsonl, '{"name":"Acme"}\n{"name":\n');
    const jsonlRefused = await quarry(['bulk', 'submit', badJsonl], env);
    assert.equal(jsonlRefused.code, 1);
    assert.match(jsonlRefused.stderr, /broken\.jsonl:2: not JSON/);
  });

  test('downloading a stopped job saves what it has (201 with the file)', async () => {
    const file = path.join(files, 'many.jsonl');
    fs.writeFileSync(
      file,
      Array.from({ length: 3_000 }, (_, i) =>
        JSON.stringify({ type: 'Organization', name: `Firm ${i}` }),
      ).join('\n'),
    );
    const submitted = await quarry(['bulk', 'submit', file], env);
    assert.equal(submitted.code, 0, submitted.stderr);
    const id = submitted.stdout.trim();
    await quarry(['bulk', 'stop', id], env);
    const out = path.join(files, 'stopped.jsonl');
    const downloaded = await quarry(['bulk', 'download', id, '--output', out], env);
    assert.equal(downloaded.code, 0, downloaded.stderr);
    const done = (await t.runtime.storage.bulkJobs.get(id))!.completed;
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n').filter(Boolean);
    assert.equal(lines.length, done);
  });
});

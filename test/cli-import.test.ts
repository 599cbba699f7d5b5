import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { importEntities } from '../src/import/index.ts';
import type { Entity } from '../src/kg/index.ts';
import { indexEntity, type PersonProfile } from '../src/match/index.ts';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { startServerProcess } from './support/server-process.ts';
import { tempDir } from './support/temp-dir.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');
const dirs: { remove(): void }[] = [];
after(() => {
  for (const dir of dirs) dir.remove();
});

function fresh(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir.path;
}

function quarry(args: string[], dataDir: string, stdin?: string) {
  return spawnSync(process.execPath, [MAIN, ...args], {
    env: { ...process.env, QUARRY_DATA_DIR: dataDir },
    encoding: 'utf8',
    input: stdin,
  });
}

test('import: JSON Lines and CSV files, summary and rejects on stderr, all rejects in --rejects FILE', async () => {
  const dir = fresh();
  const jsonl = path.join(dir, 'orgs.jsonl');
  fs.writeFileSync(
    jsonl,
    [
      JSON.stringify({ id: 'ORG-1', type: 'Organization', name: 'Acme', homepageUri: 'acme.example' }),
      'not json',
      JSON.stringify({ id: 'ORG-2', type: 'Organization', name: 'Globex' }),
    ].join('\n'),
  );
  const csv = path.join(dir, 'people.csv');
  fs.writeFileSync(csv, 'Ident,Full name,Employer\nPER-1,Jane Roe,Acme\nPER-2,John Doe,Globex;Initech\n');
  const rejects = path.join(dir, 'rejects.jsonl');
  const run = quarry(
    [
      'import',
      jsonl,
      csv,
      '--type',
      'Person',
      '--map',
      'Ident=id,Full name=name,Employer=employments.employer.name',
      '--rejects',
      rejects,
    ],
    path.join(dir, 'data'),
  );
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, '');
  assert.match(
    run.stderr,
    /orgs\.jsonl: 3 lines read, 2 created, 0 updated, 0 unchanged, 1 rejected \(\d+\.\d s, [\d,]+ entities\/s; keys indexed after the last file\)/,
  );
  // Several files: one key pass after the last.
  assert.match(run.stderr, /indexing the retrieval keys of every file…\nkeys indexed in \d+\.\d s\n/);
  assert.match(run.stderr, /line 2: invalid JSON/);
  assert.match(run.stderr, /people\.csv: 3 lines read, 2 created/);
  assert.match(run.stderr, /total: 4 lines imported, 1 rejected/);
  const written = fs
    .readFileSync(rejects, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(written.length, 1);
  assert.equal(written[0].file, 'orgs.jsonl');
  assert.equal(written[0].line, 2);
  const storage = openSqliteStorage(sqliteFileFor(path.join(dir, 'data')));
  assert.equal(storage.entities.getById('PER-2')?.doc.employments?.[1].employer?.name, 'Initech');
  assert.equal(storage.entities.refsForKey('d:acme.example', 5).length, 1);
  assert.equal(storage.entities.refsForKey('pt:jane', 5).length, 1);
  storage.close();
});

test('import: exit 2 when every line is rejected, 1 when a file cannot be read; stdin with -', async () => {
  const dir = fresh();
  const bad = path.join(dir, 'bad.jsonl');
  fs.writeFileSync(bad, '{"id":"X"}\n{"type":"Person"}\n');
  const allBad = quarry(['import', bad], dir);
  assert.equal(allBad.status, 2, allBad.stderr);
  assert.match(allBad.stderr, /2 rejected/);
  const missing = quarry(['import', path.join(dir, 'nope.jsonl')], dir);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /nope\.jsonl: cannot read/);
  const stdin = quarry(['import', '-', '--source', 'crm'], dir, '{"id":"ORG-s","type":"Organization"}\n');
  assert.equal(stdin.status, 0, stdin.stderr);
  assert.match(stdin.stderr, /stdin: 1 lines read, 1 created, .*; keys indexed in \d+\.\d s of it\)/);
  assert.doesNotMatch(stdin.stderr, /indexing the retrieval keys of every file/);
  const long = path.join(dir, 'long.jsonl');
  fs.writeFileSync(
    long,
    `${JSON.stringify({ id: 'ORG-long', type: 'Organization', name: 'x'.repeat(100) })}\n{"id":"ORG-ok","type":"Person"}\n`,
  );
  const capped = quarry(['import', long, '--max-line-bytes', '64', '--data', path.join(dir, 'other')], dir);
  assert.equal(capped.status, 0, capped.stderr);
  assert.match(capped.stderr, /line 1: line is \d+ bytes long, more than the 64-byte limit/);
  assert.ok(fs.existsSync(path.join(dir, 'other', 'quarry.sqlite')), '--data wins over QUARRY_DATA_DIR');
  const badFlag = quarry(['import', bad, '--format', 'xml'], dir);
  assert.notEqual(badFlag.status, 0);
  assert.match(badFlag.stderr, /must be jsonl, csv or wikidata/);
});

test('demo-data: the same seed writes the same bytes; --import loads it; --out and --import conflict', async () => {
  const dir = fresh();
  const a = path.join(dir, 'a.jsonl');
  const first = quarry(
    ['demo-data', '--organizations', '50', '--persons', '40', '--seed', '3', '--out', a],
    dir,
  );
  assert.equal(first.status, 0, first.stderr);
  const stdout = quarry(['demo-data', '--organizations', '50', '--persons', '40', '--seed', '3'], dir);
  assert.equal(stdout.stdout, fs.readFileSync(a, 'utf8'));
  const other = quarry(['demo-data', '--organizations', '50', '--persons', '40', '--seed', '4'], dir);
  assert.notEqual(other.stdout, stdout.stdout);
  const loaded = quarry(
    ['demo-data', '--organizations', '50', '--persons', '40', '--import'],
    path.join(dir, 'data'),
  );
  assert.equal(loaded.status, 0, loaded.stderr);
  assert.match(loaded.stderr, /90 entities created/);
  const storage = openSqliteStorage(sqliteFileFor(path.join(dir, 'data')));
  assert.deepEqual(storage.entities.counts(), { organizations: 50, persons: 40 });
  storage.close();
  const both = quarry(['demo-data', '--out', a, '--import'], dir);
  assert.notEqual(both.status, 0);
  assert.match(both.stderr, /mutually exclusive/);
});

test('a crash (SIGKILL) mid-import leaves a valid store; the next import completes it', async () => {
  const dir = fresh();
  const file = path.join(dir, 'demo.jsonl');
  const gen = quarry(['demo-data', '--organizations', '15000', '--persons', '15000', '--out', file], dir);
  assert.equal(gen.status, 0, gen.stderr);
  const data = path.join(dir, 'data');
  const child = spawn(process.execPath, [MAIN, 'import', file], {
    env: { ...process.env, QUARRY_DATA_DIR: data },
    stdio: 'ignore',
  });
  // Kill once the store holds some committed batches (or after 5 s at most).
  const storeFile = sqliteFileFor(data);
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (fs.existsSync(`${storeFile}-wal`) && fs.statSync(`${storeFile}-wal`).size > 4 * 1024 * 1024) break;
  }
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  const storage = openSqliteStorage(storeFile);
  const counts = storage.entities.counts();
  assert.ok(counts.organizations + counts.persons <= 30_000);
  assert.equal(await storage.transaction(async () => 'readable'), 'readable');
  storage.close();
  const again = quarry(['import', file], data);
  assert.equal(again.status, 0, again.stderr);
  const reopened = openSqliteStorage(storeFile);
  assert.deepEqual(reopened.entities.counts(), { organizations: 15_000, persons: 15_000 });
  assert.equal(reopened.entities.indexPendingKeys(), 0, 'nothing left pending');
  const any = reopened.entities.getById(JSON.parse(fs.readFileSync(file, 'utf8').split('\n', 1)[0]).id)!;
  assert.ok(reopened.entities.refsForKey(`d:${any.doc.homepageUri}`, 5).includes(any.ref));
  reopened.close();
});

test('index-keys finishes an import stopped before its key pass; serve warns until it runs', async () => {
  const data = fresh();
  const storage = openSqliteStorage(sqliteFileFor(data));
  // An import whose key pass never ran: what a kill between the last batch and that pass leaves.
  const lines = [
    { id: 'ORG-P1', type: 'Organization', name: 'Pendleton Mills', homepageUri: 'pendleton-mills.example' },
    { id: 'ORG-P2', type: 'Organization', name: 'Quillfeather Inks', homepageUri: 'quillfeather.example' },
  ];
  const input = (async function* () {
    yield lines.map((line) => JSON.stringify(line)).join('\n');
  })();
  await importEntities(storage.entities, input, {
    fileName: 'pending.jsonl',
    indexKeys: false,
  });
  assert.equal(storage.entities.pendingKeyCount(), 2);
  storage.close();
  const token = quarry(['token', 'create', '--unlimited'], data).stdout.trim();
  const enhance = async (url: string) => {
    const query = new URLSearchParams({
      type: 'Organization',
      url: 'https://pendleton-mills.example',
      token,
    });
    const response = await fetch(`${url}/kg/v3/enhance?${query}`);
    assert.equal(response.status, 200);
    return ((await response.json()) as { hits: number }).hits;
  };

  let server = await startServerProcess(data);
  try {
    const warning = server.startupLog
      .split('\n')
      .filter((line) => line.includes('quarry index-keys'))
      .map((line) => JSON.parse(line) as { level: number; entities: number });
    assert.deepEqual(
      warning.map(({ level, entities }) => ({ level, entities })),
      [{ level: 40, entities: 2 }],
      server.startupLog,
    );
    assert.equal(await enhance(server.url), 0, 'not found by enhance before its keys are indexed');
  } finally {
    await server.kill();
  }

  const run = quarry(['index-keys'], data);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /indexing the retrieval keys of 2 entities/);
  assert.match(run.stderr, /indexed the retrieval keys of 2 entities in \d+\.\d s/);
  const again = quarry(['index-keys'], data);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stderr, /nothing to index/);

  server = await startServerProcess(data);
  try {
    assert.doesNotMatch(server.startupLog, /index-keys/);
    assert.equal(await enhance(server.url), 1);
  } finally {
    await server.kill();
  }
});

test('index-keys --recompute gives a store keyed by an older build the keys computed now, once', () => {
  const data = fresh();
  const storage = openSqliteStorage(sqliteFileFor(data));
  const person: Entity = {
    id: 'PER-rekey',
    type: 'Person',
    name: 'Ada Quarrington',
    employments: [{ employer: { id: 'ORG-before', name: 'Before Works' }, isCurrent: false }],
    educations: [{ institution: { name: 'Ostara School of Music' } }],
  };
  const organization: Entity = { id: 'ORG-before', type: 'Organization', name: 'Before Works' };
  const index = indexEntity(person);
  // As an older build stored them: the person without its past employer's and school's keys.
  const older = index.keys.filter((key) => !key.startsWith('pe:') && !key.startsWith('ps:'));
  assert.equal(index.keys.length - older.length, 2);
  storage.entities.writeBatch([
    {
      id: organization.id,
      type: 'Organization',
      doc: organization,
      ledger: null,
      ...indexEntity(organization),
    },
    { id: person.id, type: 'Person', doc: person, ledger: null, ...index, keys: older },
  ]);
  storage.close();

  const run = quarry(['index-keys', '--recompute'], data);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /read 2 entities, re-keyed 1 whose keys or profile had changed, in \d+\.\d s/);
  const reopened = openSqliteStorage(sqliteFileFor(data));
  const ref = reopened.entities.getById(person.id)!.ref;
  assert.deepEqual(reopened.entities.refsForKey('pe:ORG-before', 5), [ref]);
  assert.deepEqual(reopened.entities.refsForKey('ps:music ostara school', 5), [ref]);
  assert.equal(reopened.entities.pendingKeyCount(), 0);
  reopened.close();

  const again = quarry(['index-keys', '--recompute'], data);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stderr, /read 2 entities, re-keyed 0 whose keys or profile had changed/);
});

test('index-keys --recompute rewrites a profile an older build computed, keys unchanged', () => {
  const data = fresh();
  const storage = openSqliteStorage(sqliteFileFor(data));
  const person: Entity = {
    id: 'PER-retitle',
    type: 'Person',
    name: 'Noah Schmidt',
    employments: [
      { isCurrent: true, title: 'Operations Manager' },
      { isCurrent: false, title: 'Research Scientist' },
    ],
  };
  const index = indexEntity(person);
  const profile = index.profile as PersonProfile;
  // As an older build stored it: every title in `t`, no `tp`.
  const older: PersonProfile = {
    ...profile,
    t: [...(profile.t ?? []), ...(profile.tp ?? [])],
    tp: undefined,
  };
  storage.entities.writeBatch([
    { id: person.id, type: 'Person', doc: person, ledger: null, ...index, profile: older },
  ]);
  storage.close();

  const run = quarry(['index-keys', '--recompute'], data);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /read 1 entities, re-keyed 1 whose keys or profile had changed/);
  const reopened = openSqliteStorage(sqliteFileFor(data));
  const ref = reopened.entities.getById(person.id)!.ref;
  const [stored] = reopened.entities.profiles([ref]);
  assert.deepEqual((stored.profile as PersonProfile).tp, ['research scientist']);
  reopened.close();
  const again = quarry(['index-keys', '--recompute'], data);
  assert.match(again.stderr, /read 1 entities, re-keyed 0 whose keys or profile had changed/);
});

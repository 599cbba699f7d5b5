import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { demoRecords, type Entity } from '../src/kg/index.ts';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { tempDir } from './support/temp-dir.ts';
import { demoEntities, writeIndexed } from './support/load-graph.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');
const dir = tempDir();
const kg = path.join(dir.path, 'kg.jsonl');
const queries = path.join(dir.path, 'queries.jsonl');

function quarry(args: string[]) {
  return spawnSync(process.execPath, [MAIN, ...args], {
    env: { ...process.env, QUARRY_DATA_DIR: path.join(dir.path, 'data') },
    encoding: 'utf8',
  });
}

// A small deterministic graph: distinct organizations and people.
const WORDS = [
  'Amber',
  'Birch',
  'Cedar',
  'Delta',
  'Ember',
  'Fjord',
  'Granite',
  'Harbor',
  'Indigo',
  'Juniper',
  'Kestrel',
  'Lumen',
  'Meadow',
  'Nimbus',
  'Orchid',
  'Pioneer',
  'Quarry',
  'Raven',
  'Summit',
  'Tundra',
];
const GIVEN = ['Alice', 'Bruno', 'Carla', 'Dmitri', 'Elena', 'Farid', 'Greta', 'Hiro', 'Ines', 'Jonas'];
const entities: Entity[] = [];
for (let i = 0; i < 200; i++) {
  const a = WORDS[i % 20];
  const b = WORDS[Math.floor(i / 20) % 20];
  entities.push({
    id: `ORG-${i}`,
    type: 'Organization',
    name: `${a} ${b} Institute`,
    homepageUri: `${a}${b}${i}.org`.toLowerCase(),
    allUris: [`${a}${b}${i}.org`.toLowerCase()],
    location: { country: { name: i % 2 ? 'Germany' : 'Canada' } },
  });
  entities.push({
    id: `PER-${i}`,
    type: 'Person',
    name: `${GIVEN[i % 10]} ${a}${b.toLowerCase()}`,
    nameDetail: { firstName: GIVEN[i % 10], lastName: `${a}${b.toLowerCase()}` },
    emailAddresses: [{ contactString: `${GIVEN[i % 10]}.${a}${i}@example.com`.toLowerCase() }],
    location: { city: { name: WORDS[(i * 7) % 20] } },
  });
}

before(() => {
  writeFileSync(kg, entities.map((e) => JSON.stringify(e)).join('\n'));
  const lines = [
    {
      query: { type: 'Organization', name: ['Amber Amber Inst.'] },
      expected: 'ORG-0',
      meta: { kinds: ['abbrev'] },
    },
    {
      query: { type: 'Organization', url: ['https://www.birchamber1.org/about'] },
      expected: 'ORG-1',
      meta: { kinds: ['url-path'] },
    },
    {
      query: { type: 'Person', name: ['Alice Amberamber'], email: ['alice.amber0@example.com'] },
      expected: 'PER-0',
      meta: { kinds: ['exact'] },
    },
    { query: { type: 'Person', name: ['Xavier Nobody'] }, expected: null, meta: { kinds: ['absent'] } },
  ];
  writeFileSync(queries, lines.map((l) => JSON.stringify(l)).join('\n'));
});
after(() => dir.remove());

test('quarry eval --kg prints the bench metrics and writes one result line per query', () => {
  const out = path.join(dir.path, 'results.jsonl');
  const run = quarry(['eval', queries, '--kg', kg, '--out', out, '--threshold', '0.3']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /queries {6}4 \(3 matchable, 1 expected null\)/);
  assert.match(run.stdout, /threshold {4}0\.3\n/);
  for (const label of ['precision', 'recall', 'f1', 'top1', 'ece'])
    assert.match(run.stdout, new RegExp(`^${label} +[01]\\.\\d{4}$`, 'm'));
  assert.match(run.stdout, /top1 {9}1\.0000/);
  // Then one line per kind of query (meta.kinds), in the order they first appear.
  assert.match(run.stdout, /^kinds\n {2}abbrev +1 {2}right [01]\.\d{4} {2}precision/m);
  assert.match(run.stdout, /^ {2}url-path +1 {2}right 1\.0000 {2}precision 1\.0000 {2}recall 1\.0000/m);
  assert.match(run.stdout, /^ {2}absent +1 {2}right 1\.0000/m);
  const results = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(results.length, 4);
  assert.deepEqual(
    results.slice(0, 3).map((r) => r.top),
    ['ORG-0', 'ORG-1', 'PER-0'],
  );
  for (const r of results) assert.ok(r.score === null || (r.score >= 0 && r.score <= 1));
  // The digest printed is that of the --out file: two machines compare answers by one line.
  const digest = createHash('sha256').update(readFileSync(out)).digest('hex').slice(0, 16);
  assert.match(run.stdout, new RegExp(`^outcomes +sha256 ${digest} \\(of the 4 --out lines\\)$`, 'm'));
});

test('quarry eval reads the graph in the data directory, and names a malformed query line', () => {
  const storage = openSqliteStorage(sqliteFileFor(path.join(dir.path, 'data')));
  writeIndexed(storage.entities, entities);
  storage.close();
  const run = quarry(['eval', queries]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /top1 {9}1\.0000/);
  const bad = path.join(dir.path, 'bad.jsonl');
  writeFileSync(
    bad,
    '{"query":{"type":"Person","name":["A"]},"expected":null}\n{"query":{"type":"Spaceship"},"expected":null}\n',
  );
  const failed = quarry(['eval', bad]);
  assert.notEqual(failed.status, 0);
  assert.match(failed.stderr, /bad\.jsonl:2: "query\.type"/);
});

test('quarry fit is reproducible: same files and seed, same model file', () => {
  const first = path.join(dir.path, 'model-a.json');
  const second = path.join(dir.path, 'model-b.json');
  const other = path.join(dir.path, 'model-c.json');
  for (const [out, seed] of [
    [first, '3'],
    [second, '3'],
    [other, '4'],
  ]) {
    const run = quarry(['fit', kg, '--seed', seed, '--out', out]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /validation \(all\)/);
  }
  const a = readFileSync(first, 'utf8');
  assert.equal(a, readFileSync(second, 'utf8'));
  assert.notEqual(a, readFileSync(other, 'utf8'));
  const model = JSON.parse(a);
  assert.equal(model.provenance.seed, 3);
  assert.equal(model.provenance.inputs[0].sha256.length, 64);
  assert.ok(model.threshold > 0 && model.threshold < 1);
  assert.ok(model.models.Person.base.weights.nameCoverQuery !== undefined);
});

test('quarry fit --demo-queries also trains on labelled queries about the demo graph, and needs that graph', () => {
  const demo = { organizations: 30, persons: 30, seed: 5 };
  const persons = [...demoRecords(demo)].filter((e) => e.type === 'Person' && e.name);
  const labelled = path.join(dir.path, 'demo-queries.jsonl');
  writeFileSync(
    labelled,
    persons
      .slice(0, 20)
      .map((p) => JSON.stringify({ query: { type: 'Person', name: [p.name] }, expected: p.id }))
      .join('\n'),
  );
  const graph = ['--demo-organizations', '30', '--demo-persons', '30', '--demo-seed', '5', '--seed', '3'];
  const withQueries = path.join(dir.path, 'model-demo-queries.json');
  const without = path.join(dir.path, 'model-demo.json');
  let run = quarry(['fit', kg, ...graph, '--demo-queries', labelled, '--out', withQueries]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /fit: 20 labelled demo queries/);
  run = quarry(['fit', kg, ...graph, '--out', without]);
  assert.equal(run.status, 0, run.stderr);
  const trained = JSON.parse(readFileSync(withQueries, 'utf8'));
  assert.deepEqual(trained.provenance.demoQueries, { queries: 20, repeats: 1 });
  assert.match(trained.provenance.command, /--demo-queries demo-queries\.jsonl/);
  assert.notDeepEqual(
    trained.models.Person.base,
    JSON.parse(readFileSync(without, 'utf8')).models.Person.base,
  );
  // Queries about a demo graph the fit does not build would name entities it never saw.
  run = quarry(['fit', kg, '--demo-queries', labelled, '--out', without]);
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /--demo-queries needs the demo graph/);
});

test('quarry calibrate writes per-type default thresholds meeting the precision floors, and eval uses them', () => {
  const model = path.join(dir.path, 'model-calibrated.json');
  writeFileSync(model, readFileSync(path.join(import.meta.dirname, '..', 'src', 'match', 'model.json')));
  const orgQueries = path.join(dir.path, 'org-queries.jsonl');
  const personQueries = path.join(dir.path, 'person-queries.jsonl');
  const org = [];
  const person = [];
  for (let i = 0; i < 40; i++) {
    org.push({ query: { type: 'Organization', name: [entities[2 * i].name] }, expected: entities[2 * i].id });
    person.push({
      query: { type: 'Person', email: [entities[2 * i + 1].emailAddresses![0].contactString] },
      expected: entities[2 * i + 1].id,
    });
  }
  org.push({ query: { type: 'Organization', name: ['Zyxw Qwerty Foundation'] }, expected: null });
  writeFileSync(orgQueries, org.map((l) => JSON.stringify(l)).join('\n'));
  writeFileSync(personQueries, person.map((l) => JSON.stringify(l)).join('\n'));
  const run = quarry(['calibrate', orgQueries, personQueries, '--kg', kg, '--model', model]);
  assert.equal(run.status, 0, run.stderr);
  const written = JSON.parse(readFileSync(model, 'utf8'));
  for (const type of ['Organization', 'Person']) {
    const t = written.thresholds[type];
    assert.ok(t > 0 && t < 1, `${type} threshold ${t}`);
  }
  const sets = written.provenance.thresholdCalibration.sets;
  assert.deepEqual(
    sets.map((s: { file: string; type: string }) => [s.file, s.type]),
    [
      ['org-queries.jsonl', 'Organization'],
      ['person-queries.jsonl', 'Person'],
    ],
  );
  assert.ok(sets[0].precision >= 0.99 && sets[1].precision >= 0.97, JSON.stringify(sets));
  assert.equal(sets[0].sha256.length, 64);
  // The fitted weights are untouched: a recalibration of their score, thresholds and provenance
  // are added.
  const original = JSON.parse(
    readFileSync(path.join(import.meta.dirname, '..', 'src', 'match', 'model.json'), 'utf8'),
  );
  for (const type of ['Organization', 'Person']) {
    assert.deepEqual(written.models[type].base, original.models[type].base);
    const { scale, offset } = written.models[type].calibration;
    assert.ok(scale >= 0.25 && scale <= 4 && Number.isFinite(offset), `${type} ${scale} ${offset}`);
  }
  // A set mixing types is refused.
  const mixed = path.join(dir.path, 'mixed.jsonl');
  writeFileSync(mixed, [org[0], person[0]].map((l) => JSON.stringify(l)).join('\n'));
  const refused = quarry(['calibrate', mixed, '--kg', kg, '--model', model]);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /one entity type/);
});

test('quarry calibrate --demo-queries: sets about a demo graph, matched against it, one set per type', () => {
  const model = path.join(dir.path, 'model-demo-calibrated.json');
  writeFileSync(model, readFileSync(path.join(import.meta.dirname, '..', 'src', 'match', 'model.json')));
  const sizes = { organizations: 300, persons: 300, seed: 3 };
  const demo = demoEntities(sizes);
  const lines = [];
  for (const type of ['Organization', 'Person'] as const) {
    for (const entity of demo.filter((e) => e.type === type).slice(0, 30)) {
      lines.push({ query: { type, name: [entity.name] }, expected: entity.id });
    }
  }
  lines.push({ query: { type: 'Person', name: ['Qwyx Zzyzzva'] }, expected: null });
  const demoQueries = path.join(dir.path, 'demo-queries.jsonl');
  writeFileSync(demoQueries, lines.map((l) => JSON.stringify(l)).join('\n'));
  const orgQueries = path.join(dir.path, 'org-queries.jsonl');
  const run = quarry([
    'calibrate',
    orgQueries,
    '--kg',
    kg,
    '--demo-queries',
    demoQueries,
    '--demo-organizations',
    '300',
    '--demo-persons',
    '300',
    '--demo-seed',
    '3',
    '--model',
    model,
  ]);
  assert.equal(run.status, 0, run.stderr);
  const calibration = JSON.parse(readFileSync(model, 'utf8')).provenance.thresholdCalibration;
  assert.deepEqual(calibration.demoGraph, { seed: 3, organizations: 300, persons: 300 });
  const sets = calibration.sets as { file: string; type: string; recall: number; sha256: string }[];
  assert.deepEqual(
    sets.map((s) => [s.file, s.type]),
    [
      ['org-queries.jsonl', 'Organization'],
      ['demo-queries.jsonl (Organization)', 'Organization'],
      ['demo-queries.jsonl (Person)', 'Person'],
    ],
  );
  // Matched against the demo graph (the --kg graph holds none of these entities).
  assert.ok(sets[1].recall > 0.5 && sets[2].recall > 0.5, JSON.stringify(sets));
  assert.equal(sets[2].sha256, createHash('sha256').update(readFileSync(demoQueries)).digest('hex'));
});

test('quarry eval on a file mixing types prints all queries, then each type at its own threshold', () => {
  const run = quarry(['eval', queries, '--kg', kg]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^all\nqueries {6}4 /m);
  assert.match(run.stdout, /threshold {4}Organization [0-9.]+, Person [0-9.]+/);
  assert.match(run.stdout, /^Organization\nqueries {6}2 /m);
  assert.match(run.stdout, /^Person\nqueries {6}2 /m);
});

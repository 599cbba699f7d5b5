import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { importEntities, importWikidataDump, type WikidataImportSummary } from '../src/import/index.ts';
import type { Entity } from '../src/kg/index.ts';
import type { Storage } from '../src/storage/index.ts';
import { openSqliteStorage, sqliteFileFor } from '../src/storage/sqlite/index.ts';
import { tempDir } from './support/temp-dir.ts';
import { startTestRuntime, type TestRuntime } from './support/test-runtime.ts';
import { dv, entity } from './support/wikidata-dump.ts';
import { type FixtureDump, fixtureDump, WD } from './support/wikidata-fixture.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');
const PAGE = (id: string) => `https://www.wikidata.org/wiki/${id}`;

const dir = tempDir('quarry-wikidata-test-');
after(() => dir.remove());
const dump: FixtureDump = fixtureDump();
const plainFile = path.join(dir.path, 'latest-all.json');
fs.writeFileSync(plainFile, dump.text);
const gzFile = path.join(dir.path, 'latest-all.json.gz');
fs.writeFileSync(gzFile, zlib.gzipSync(dump.text));
const bz2File = path.join(dir.path, 'latest-all.json.bz2');
{
  const bzip2 = spawnSync('bzip2', ['-c', plainFile], { maxBuffer: 64 << 20 });
  assert.equal(bzip2.status, 0, 'the bzip2 program is needed by these tests (apt-get install bzip2)');
  fs.writeFileSync(bz2File, bzip2.stdout);
}

let stores = 0;
function freshStorage(): Storage {
  return openSqliteStorage(path.join(dir.path, `store-${++stores}.sqlite`));
}

function doc(storage: Storage, id: string): Entity {
  const stored = storage.entities.getById(id);
  assert.ok(stored, `${id} is stored`);
  return stored.doc;
}

describe('Wikidata dump import: the fixture', () => {
  let storage: Storage;
  let summary: WikidataImportSummary;
  before(async () => {
    storage = freshStorage();
    summary = await importWikidataDump(storage.entities, plainFile, { workDir: dir.path, workers: 1 });
  });
  after(() => storage.close());

  test('has at least 300 entity lines; selects humans and organization classes; counts add up', () => {
    assert.ok(dump.entityLines >= 300, `${dump.entityLines} entity lines`);
    assert.equal(summary.linesRead, dump.entityLines + 2, 'the [ and ] lines count');
    assert.equal(summary.format, 'wikidata');
    assert.equal(summary.compression, 'plain');
    // 160 filler people + 11 hand-written (the polyglot included); 40 filler companies + 7.
    assert.equal(summary.selectedPersons, 171 + 2, 'two malformed lines looked like humans');
    assert.equal(summary.selectedOrganizations, 47);
    assert.equal(summary.created, 171 + 47);
    assert.equal(summary.rejected, dump.malformed.length);
    assert.equal(storage.entities.counts().persons, 171);
    assert.equal(storage.entities.counts().organizations, 47);
    assert.ok(
      summary.referenced > 0 && summary.labelled === summary.referenced - 1,
      'one item has no label line',
    );
  });

  test('malformed lines are rejected with their line number and reason; the rest is imported', () => {
    assert.deepEqual(
      summary.rejects.map((r) => r.line),
      dump.malformed.map((m) => m.line),
    );
    for (const [i, rejection] of summary.rejects.entries())
      assert.match(rejection.reason, dump.malformed[i].reason);
  });

  test('an organization: names, websites by rank, headquarters with qualifiers, counts by time', () => {
    const acme = doc(storage, WD.acme);
    assert.equal(acme.type, 'Organization');
    assert.equal(acme.name, 'Acme Corporation');
    assert.deepEqual(acme.allNames, [
      'Acme Corporation',
      'Acme Corp.',
      'ACME',
      'Acme Corporation, Inc.',
      'Acme AG',
      'Acme',
    ]);
    assert.equal(acme.description, 'American manufacturer of everything');
    assert.equal(acme.homepageUri, 'acme-corp.example', 'the preferred website');
    assert.deepEqual(acme.allUris, ['acme-corp.example', 'acme.example'], 'no deprecated website');
    assert.deepEqual(acme.origins, [PAGE(WD.acme)]);
    assert.deepEqual(acme.location, {
      street: '1 Market Street',
      city: { name: 'San Francisco' },
      postalCode: '94105',
      country: { name: 'United States of America' },
      latitude: 37.7936,
      longitude: -122.3958,
    });
    assert.deepEqual(acme.foundingDate, { str: 'd1952-03-11', precision: 3 }, 'the day, not the year');
    assert.equal(acme.nbEmployees, 1200, 'the latest count');
    assert.deepEqual(acme.industries, ['information technology']);
    assert.deepEqual(acme.images, [
      { url: 'https://commons.wikimedia.org/wiki/Special:FilePath/Acme_logo_2020.svg', primary: true },
    ]);
    assert.deepEqual(acme.subsidiaries, [
      { name: 'Acme Robotics', id: WD.acmeRobotics, type: 'Organization' },
    ]);
    assert.deepEqual(acme.ceo, { name: 'Jane Doe', id: WD.jane, type: 'Person' });
    assert.equal(acme.founders, undefined, 'somevalue: skipped');
    assert.equal(acme.twitterUri, 'twitter.com/acmecorp');
    assert.equal(acme.linkedInUri, 'linkedin.com/company/acme-corporation');
    assert.equal(acme.wikipediaUri, 'en.wikipedia.org/wiki/Acme_Corporation');
    assert.deepEqual(acme.identifiers, { lei: '5493001KJTIIGC8Y1R12' });
    // Normal values beside a preferred one, and deprecated ones: non-canonical, with the origin.
    assert.deepEqual(acme.nonCanonicalFacts, [
      { field: 'homepageUri', value: 'acme.example', origins: [PAGE(WD.acme)] },
      { field: 'homepageUri', value: 'acme-spam.example', origins: [PAGE(WD.acme)] },
      { field: 'nbEmployees', value: 1000, origins: [PAGE(WD.acme)] },
      { field: 'industries', value: 'energy industry', origins: [PAGE(WD.acme)] },
    ]);
  });

  test('a person: employer chain with dates, current employer, education, occupation, name parts', () => {
    const jane = doc(storage, WD.jane);
    assert.equal(jane.type, 'Person');
    assert.deepEqual(jane.location, {
      city: { name: 'Mountain View' },
      country: { name: 'United States of America' },
    });
    assert.deepEqual(jane.birthDate, { str: 'd1970-01-15', precision: 3 });
    assert.deepEqual(jane.gender, { normalizedValue: 'Female' });
    assert.deepEqual(jane.nameDetail, { firstName: 'Jane', middleName: ['Marie'], lastName: 'Doe' });
    assert.deepEqual(jane.employments, [
      {
        employer: { name: 'Acme Corporation', id: WD.acme, type: 'Organization' },
        title: 'chief executive officer',
        isCurrent: true,
        from: { str: 'd2010-01-01', precision: 3 },
      },
      {
        employer: { name: 'Acme Robotics', id: WD.acmeRobotics, type: 'Organization' },
        isCurrent: false,
        from: { str: 'd2001', precision: 1 },
        to: { str: 'd2009-06', precision: 2 },
      },
      { title: 'computer scientist' },
    ]);
    assert.deepEqual(jane.educations, [
      {
        institution: { name: 'Example Institute of Technology', id: WD.institute, type: 'Organization' },
        degree: { name: 'Bachelor of Science' },
        major: { name: 'computer science' },
        from: { str: 'd1988', precision: 1 },
        to: { str: 'd1992', precision: 1 },
      },
    ]);
    assert.deepEqual(jane.images, [
      { url: 'https://commons.wikimedia.org/wiki/Special:FilePath/Jane_Doe_(2019).jpg', primary: true },
    ]);
    assert.equal(jane.homepageUri, 'janedoe.example');
    assert.equal(jane.linkedInUri, 'linkedin.com/in/jane-doe-12345');
    assert.deepEqual(jane.identifiers, { orcid: '0000-0002-1825-0097' });
    assert.equal(jane.nonCanonicalFacts, undefined);
    // The chain goes on: Acme Robotics' parent is Acme, which is dissolved in a month.
    const robotics = doc(storage, WD.acmeRobotics);
    assert.deepEqual(robotics.parentCompany, { name: 'Acme Corporation', id: WD.acme, type: 'Organization' });
    assert.deepEqual(robotics.foundingDate, { str: 'd1999', precision: 1 });
    assert.deepEqual(robotics.dissolutionDate, { str: 'd2020-05', precision: 2 });
    assert.deepEqual(robotics.location, {
      city: { name: 'Mountain View' },
      country: { name: 'United States of America' },
    });
  });

  test('an employer that is not imported is named, with its Wikidata id', () => {
    const john = doc(storage, WD.john);
    assert.deepEqual(john.birthDate, { str: 'd1980-05', precision: 2 });
    assert.deepEqual(
      john.employments?.map((e) => [e.employer, e.isCurrent]),
      [
        [{ name: 'Acme Corporation', id: WD.acme, type: 'Organization' }, true],
        [{ name: 'Corner Bakery', wikidataId: WD.bakery }, false],
      ],
    );
    assert.equal(storage.entities.getById(WD.bakery), undefined);
  });

  test('ranks: a deprecated date loses, a preferred one wins over a more precise normal one', () => {
    const alma = doc(storage, WD.disputedBirth);
    assert.deepEqual(alma.birthDate, { str: 'd1901-02-03', precision: 3 });
    assert.deepEqual(alma.nonCanonicalFacts, [
      { field: 'birthDate', value: { str: 'd1900-01-01', precision: 3 }, origins: [PAGE(WD.disputedBirth)] },
    ]);
    const pat = doc(storage, WD.preferredBirth);
    assert.deepEqual(pat.birthDate, { str: 'd1955', precision: 1 });
    assert.deepEqual(pat.nonCanonicalFacts?.[0].value, { str: 'd1954-12-31', precision: 3 });
    assert.deepEqual(pat.gender, { normalizedValue: 'non-binary' }, 'another gender by its label');
  });

  test('dates BC keep Wikidata’s year numbering; a Julian calendar date is kept as stated', () => {
    const philosopher = doc(storage, WD.philosopher);
    assert.deepEqual(philosopher.birthDate, { str: 'd-0384', precision: 1 });
    assert.deepEqual(philosopher.deathDate, { str: 'd-0322', precision: 1 });
    assert.deepEqual(philosopher.employments, [
      { employer: { name: 'The Academy', id: WD.academy, type: 'Organization' }, isCurrent: false },
      { title: 'philosopher' },
    ]);
    const academy = doc(storage, WD.academy);
    assert.deepEqual(academy.foundingDate, { str: 'd-0387', precision: 1 });
    assert.deepEqual(
      academy.location,
      { city: { name: 'Αθήνα' }, country: { name: 'Greece' } },
      'a label in any language',
    );
  });

  test('no English label: mul, then any language; descriptions likewise', () => {
    const university = doc(storage, WD.beispielUniversity);
    assert.equal(university.name, 'Universität Beispielstadt');
    assert.equal(university.description, 'Universität in Deutschland');
    assert.deepEqual(university.location, { city: { name: 'Berlin' }, country: { name: 'Germany' } });
    const sony = doc(storage, WD.sony);
    assert.equal(sony.name, 'Sony Example');
    assert.deepEqual(sony.allNames, ['Sony Example', 'ソニー']);
    assert.deepEqual(sony.location, { city: { name: 'Tokyo' }, country: { name: 'Tokyo' } });
    const jean = doc(storage, WD.jean);
    assert.equal(jean.name, 'Jean Dupont');
    assert.equal(jean.description, 'ingénieur français');
    assert.deepEqual(jean.employments, [
      {
        employer: { name: 'Universität Beispielstadt', id: WD.beispielUniversity, type: 'Organization' },
        isCurrent: true,
      },
    ]);
    assert.equal(doc(storage, WD.liWei).name, 'Li Wei');
    assert.equal(doc(storage, WD.polyglot).allNames?.length, 64, 'names are capped');
  });

  test('several P31 values; deprecated, novalue and somevalue P31 do not select', () => {
    assert.equal(doc(storage, WD.twoClasses).type, 'Person');
    assert.equal(storage.entities.getById(WD.notACompany), undefined);
    assert.equal(storage.entities.getById('Q900006'), undefined);
    assert.equal(storage.entities.getById(WD.fictional), undefined);
    assert.equal(storage.entities.getById('Q30'), undefined, 'places are not imported');
  });

  test('novalue and somevalue snaks are skipped, not errors; a death ends current employment', () => {
    const una = doc(storage, WD.unknowns);
    assert.equal(una.birthDate, undefined);
    assert.equal(una.location, undefined);
    assert.deepEqual(una.employments, [
      { employer: { name: 'Acme Robotics', id: WD.acmeRobotics, type: 'Organization' }, isCurrent: false },
    ]);
    const agency = doc(storage, WD.agency);
    assert.equal(agency.homepageUri, undefined);
    assert.deepEqual(agency.location, { city: { name: 'Paris' } });
    const late = doc(storage, WD.dead);
    assert.equal(late.employments?.[0].isCurrent, false);
  });

  test('an entity line in another key order is read (its id, labels and classes)', () => {
    assert.equal(doc(storage, WD.institute).name, 'Example Institute of Technology');
  });
});

describe('Wikidata dump import: compressed dumps and re-imports', () => {
  test('.gz and .bz2 dumps import exactly what the plain dump does', async () => {
    const documents = async (file: string) => {
      const storage = freshStorage();
      try {
        const summary = await importWikidataDump(storage.entities, file, { workDir: dir.path, workers: 0 });
        const all: Record<string, Entity> = {};
        for (const id of [WD.acme, WD.jane, WD.philosopher, WD.sony, 'Q920007', 'Q910003'])
          all[id] = doc(storage, id);
        return { summary, all };
      } finally {
        storage.close();
      }
    };
    const plain = await documents(plainFile);
    for (const [file, compression] of [
      [gzFile, 'gzip'],
      [bz2File, 'bzip2'],
    ] as const) {
      const other = await documents(file);
      assert.equal(other.summary.compression, compression);
      assert.equal(other.summary.created, plain.summary.created);
      assert.deepEqual(other.summary.rejects, plain.summary.rejects);
      assert.deepEqual(other.all, plain.all);
    }
  });

  test('a newer dump updates the same entities in place and keeps the facts of other sources', async () => {
    const storage = freshStorage();
    try {
      await importWikidataDump(storage.entities, plainFile, { workDir: dir.path });
      // Another source states facts about Acme (same id).
      const crm = [
        JSON.stringify({
          id: WD.acme,
          type: 'Organization',
          name: 'Acme Corporation',
          nbEmployees: 1500,
          phoneNumbers: [{ string: '+1 415 555 0100' }],
        }),
      ].join('\n');
      await importEntities(storage.entities, Readable.from([Buffer.from(crm)]), {
        fileName: 'crm.jsonl',
        source: 'crm',
      });
      // The same dump again changes nothing.
      const again = await importWikidataDump(storage.entities, plainFile, { workDir: dir.path });
      assert.equal(again.created, 0);
      assert.equal(again.updated, 0);
      assert.equal(again.unchanged, 218);
      // A newer dump: Acme moved its website, has a new count, and a new person appears.
      const newer = dump.text
        .replace('https://www.acme-corp.example/', 'https://www.acme-new.example/')
        .replace('"amount":"+1200"', '"amount":"+1300"')
        .replace(
          '\n]\n',
          `,\n${JSON.stringify(
            entity({
              id: 'Q999999',
              labels: { en: 'Newt Comer' },
              claims: [
                ['P31', dv.item(5)],
                ['P108', dv.item(900001)],
              ],
            }),
          )}\n]\n`,
        );
      const newerFile = path.join(dir.path, 'newer.json');
      fs.writeFileSync(newerFile, newer);
      const summary = await importWikidataDump(storage.entities, newerFile, { workDir: dir.path });
      assert.equal(summary.created, 1);
      assert.equal(summary.updated, 1);
      assert.equal(summary.unchanged, 217);
      const acme = doc(storage, WD.acme);
      assert.equal(acme.homepageUri, 'acme-new.example');
      assert.deepEqual(acme.allUris, ['acme-new.example', 'acme.example']);
      assert.deepEqual(
        acme.phoneNumbers?.map((p) => p.string),
        ['+1 415 555 0100'],
        "crm's phone stays",
      );
      // Two sources disagree on the count: the newest (Wikidata) wins, crm's loses; Wikidata's own
      // older count stays non-canonical too.
      assert.equal(acme.nbEmployees, 1300);
      assert.deepEqual(
        acme.nonCanonicalFacts?.filter((f) => f.field === 'nbEmployees'),
        [
          { field: 'nbEmployees', value: 1500, origins: ['crm'] },
          { field: 'nbEmployees', value: 1000, origins: [PAGE(WD.acme)] },
        ],
      );
      assert.deepEqual(doc(storage, 'Q999999').employments?.[0].employer, {
        name: 'Acme Corporation',
        id: WD.acme,
        type: 'Organization',
      });
    } finally {
      storage.close();
    }
  });

  test('an entity whose type changed in the newer dump is rejected at its dump line; the rest imports', async () => {
    const storage = freshStorage();
    try {
      await importWikidataDump(storage.entities, plainFile, { workDir: dir.path });
      // John Smith becomes a company (P31 business instead of human) in the newer dump.
      const lines = dump.text.split('\n');
      const johnLine = lines.findIndex((line) => line.includes(`"id":"${WD.john}"`));
      lines[johnLine] = lines[johnLine].replace(
        '"numeric-id":5,"id":"Q5"',
        '"numeric-id":4830453,"id":"Q4830453"',
      );
      const file = path.join(dir.path, 'retyped.json');
      fs.writeFileSync(file, lines.join('\n'));
      const summary = await importWikidataDump(storage.entities, file, { workDir: dir.path });
      const conflict = summary.rejects.find((r) => r.reason.includes(WD.john));
      assert.ok(conflict, JSON.stringify(summary.rejects));
      assert.equal(conflict.line, johnLine + 1);
      assert.match(conflict.reason, /type Organization differs from the stored entity's type Person/);
      assert.equal(doc(storage, WD.john).type, 'Person');
    } finally {
      storage.close();
    }
  });

  test('a dump that breaks off is imported up to the break, and the import says so', async () => {
    const gz = fs.readFileSync(gzFile);
    const truncated = path.join(dir.path, 'truncated.json.gz');
    fs.writeFileSync(truncated, gz.subarray(0, Math.floor(gz.length * 0.6)));
    const storage = freshStorage();
    try {
      const summary = await importWikidataDump(storage.entities, truncated, { workDir: dir.path });
      assert.match(summary.readError ?? '', /unexpected end of file/);
      assert.ok(summary.created > 20 && summary.created < 218, `${summary.created} created`);
      assert.ok(storage.entities.getById(WD.acme), 'entities before the break are stored');
    } finally {
      storage.close();
    }
  });

  test('organization classes can be replaced', async () => {
    const storage = freshStorage();
    try {
      // Universities and colleges only.
      const summary = await importWikidataDump(storage.entities, plainFile, {
        workDir: dir.path,
        organizationClasses: [3918, 189004],
      });
      assert.equal(summary.selectedOrganizations, 3);
      assert.ok(storage.entities.getById(WD.institute));
      assert.equal(storage.entities.getById(WD.acme), undefined);
      // Jane's employer is now referred to by its Wikidata id, not imported.
      assert.deepEqual(doc(storage, WD.jane).employments?.[0].employer, {
        name: 'Acme Corporation',
        wikidataId: WD.acme,
      });
    } finally {
      storage.close();
    }
  });
});

describe('quarry import --format wikidata', () => {
  const quarry = (args: string[], dataDir: string) =>
    spawnSync(process.execPath, [MAIN, 'import', ...args], {
      env: { ...process.env, QUARRY_DATA_DIR: dataDir },
      encoding: 'utf8',
    });

  test('imports a .bz2 dump: summary and rejects on stderr, all rejects in --rejects FILE', () => {
    const dataDir = path.join(dir.path, 'cli-data');
    const rejects = path.join(dir.path, 'rejects.jsonl');
    const run = quarry(['--format', 'wikidata', bz2File, '--rejects', rejects], dataDir);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      /latest-all\.json\.bz2: 312 lines read, 173 persons and 47 organizations selected, 218 created, 0 updated, 0 unchanged, 4 rejected \(/,
    );
    assert.match(run.stderr, /selection [\d.]+ s at [\d,]+ lines\/s, labels of [\d,]+ linked items/);
    assert.match(run.stderr, /line 32: not a JSON object/);
    const written = fs
      .readFileSync(rejects, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      written.map((r) => [r.file, r.line]),
      dump.malformed.map((m) => ['latest-all.json.bz2', m.line]),
    );
    const storage = openSqliteStorage(sqliteFileFor(dataDir));
    try {
      assert.equal(storage.entities.getById(WD.jane)?.doc.name, 'Jane Doe');
      // Keys are indexed: the domain's key finds Acme and its subsidiary (robotics.acme-corp.example).
      assert.equal(storage.entities.refsForKey('d:acme-corp.example', 5).length, 2);
    } finally {
      storage.close();
    }
    // No work files are left behind in the data directory.
    assert.deepEqual(
      fs.readdirSync(dataDir).filter((name) => name.startsWith('quarry-wikidata-')),
      [],
    );
  });

  test('refuses stdin, CSV options and a bad class list, with a message', () => {
    const dataDir = path.join(dir.path, 'cli-refused');
    const stdin = quarry(['--format', 'wikidata', '-'], dataDir);
    assert.equal(stdin.status, 1);
    assert.match(stdin.stderr, /reads its dump twice: give a file/);
    const map = quarry(['--format', 'wikidata', plainFile, '--map', 'a=name'], dataDir);
    assert.equal(map.status, 1);
    assert.match(map.stderr, /--map applies to CSV/);
    const classes = path.join(dir.path, 'classes.txt');
    fs.writeFileSync(classes, 'Q3918 # university\nnot-an-id\n');
    const bad = quarry(['--format', 'wikidata', plainFile, '--org-classes', classes], dataDir);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /item 2 is not a Wikidata item id/);
    const missing = quarry(['--format', 'wikidata', path.join(dir.path, 'nope.json')], dataDir);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /nope\.json: cannot read/);
  });
});

describe('enhance finds what a Wikidata dump brought', () => {
  let t: TestRuntime;
  let token: string;
  before(async () => {
    t = await startTestRuntime();
    token = await t.token(null);
    await importWikidataDump(t.runtime.storage.entities, gzFile, { workDir: dir.path });
  });
  after(async () => t.close());

  const enhance = async (query: string) => {
    const res = await t.runtime.app.inject({ method: 'GET', url: `/kg/v3/enhance?token=${token}&${query}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { data: { score: number; entity: Entity }[] };
  };

  test('people by name and employer', async () => {
    const jane = await enhance(`type=Person&name=Jane%20Doe&employer=Acme%20Corporation`);
    assert.equal(jane.data[0]?.entity.id, WD.jane);
    // Filler staff share first and last names; the employer tells them apart.
    let found = 0;
    for (const person of dump.staff.slice(0, 40)) {
      const body = await enhance(
        `type=Person&name=${encodeURIComponent(person.name)}&employer=${encodeURIComponent(person.employerName)}`,
      );
      if (body.data[0]?.entity.id === person.id) found++;
    }
    assert.ok(found >= 36, `${found} of 40 people found by name and employer`);
  });

  test('companies by website', async () => {
    const acme = await enhance('type=Organization&url=https://www.acme-corp.example/about');
    assert.equal(acme.data[0]?.entity.id, WD.acme);
    let found = 0;
    for (const person of dump.staff.slice(0, 40)) {
      const body = await enhance(`type=Organization&url=${encodeURIComponent(person.employerHost)}`);
      if (body.data[0]?.entity.id === person.employer) found++;
    }
    assert.equal(found, 40);
  });

  test('combine returns the current employer the dump linked', async () => {
    const res = await t.runtime.app.inject({
      method: 'GET',
      url: `/kg/v3/enhance/combine?token=${token}&type=Person&name=Jane%20Doe&employer=Acme`,
    });
    const body = res.json() as { data: { entity: Entity; entity_ctx?: { role?: string } }[] };
    assert.equal(body.data[0]?.entity.id, WD.jane);
    assert.equal(body.data[1]?.entity.id, WD.acme);
    assert.equal(body.data[1]?.entity_ctx?.role, 'currentEmployer');
  });
});

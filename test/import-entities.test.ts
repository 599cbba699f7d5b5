import assert from 'node:assert/strict';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import {
  type ImportOptions,
  ImportSession,
  importEntities,
  type PreparedRecord,
  prepareRecord,
} from '../src/import/index.ts';
import { applyStatement, type Entity, type FactLedger, factOriginsOf } from '../src/kg/index.ts';
import { mintEntityId } from '../src/import/mint-id.ts';
import { indexEntity } from '../src/match/index.ts';
import type { EntityStore, Storage } from '../src/storage/index.ts';
import { openSqliteStorage } from '../src/storage/sqlite/index.ts';
import { createTransactionRunner } from '../src/storage/sqlite/sqlite-database.ts';
import { SqliteEntityStore } from '../src/storage/sqlite/sqlite-entity-store.ts';
import { tempDir } from './support/temp-dir.ts';

const dirs: { remove(): void }[] = [];
after(() => {
  for (const dir of dirs) dir.remove();
});

function freshStorage(): Storage {
  const dir = tempDir();
  dirs.push(dir);
  return openSqliteStorage(path.join(dir.path, 'quarry.sqlite'));
}

function input(text: string | Buffer, chunk = 64 * 1024): Readable {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) chunks.push(bytes.subarray(i, i + chunk));
  return Readable.from(chunks);
}

const lines = (...records: unknown[]) =>
  `${records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')}\n`;

function run(storage: Storage, text: string | Buffer, options: ImportOptions = {}) {
  return importEntities(storage.entities, input(text), { fileName: 'test.jsonl', ...options });
}

for (const workers of [2, 0]) {
  describe(`importEntities (${workers > 0 ? `${workers} worker threads` : 'inline'})`, () => {
    test('imports valid lines, reports bad ones with line number and reason, and goes on', async () => {
      const storage = freshStorage();
      const summary = await run(
        storage,
        lines(
          { id: 'ORG-1', type: 'Organization', name: 'Acme', homepageUri: 'acme.example' },
          '{"id": "ORG-2", "type": "Organization", "name": ',
          '[1,2,3]',
          { type: 'Organization', description: 'No id, no name' },
          { id: 'ORG-3', type: 'Company' },
          '',
          { id: 'ORG-4', type: 'Organization', nbEmployees: 'many' },
          { id: 'PER-1', type: 'Person', name: 'Jane Roe', extraField: { kept: true } },
        ),
        { workers },
      );
      assert.equal(summary.linesRead, 8);
      assert.equal(summary.created, 2);
      assert.equal(summary.rejected, 5);
      assert.deepEqual(
        summary.rejects.map((r) => r.line),
        [2, 3, 4, 5, 7],
      );
      assert.match(summary.rejects[0].reason, /^invalid JSON/);
      assert.match(summary.rejects[1].reason, /must be a JSON object, got an array/);
      assert.equal(summary.rejects[2].reason, 'id is missing');
      assert.match(summary.rejects[3].reason, /type must be Organization or Person, got "Company"/);
      assert.equal(summary.rejects[4].reason, 'nbEmployees must be a finite number, got a string');
      assert.deepEqual(storage.entities.getById('PER-1')?.doc.extraField, { kept: true });
      assert.equal(
        storage.entities.refsForKey('d:acme.example', 10).length,
        1,
        'keys are indexed at the end',
      );
      assert.ok(summary.entitiesPerSecond > 0);
      storage.close();
    });

    test('onIndexing is called once, after every entity is written and before its keys are indexed', async () => {
      const storage = freshStorage();
      const seen: { organizations: number; findable: number }[] = [];
      const summary = await run(
        storage,
        lines(
          { id: 'ORG-1', type: 'Organization', name: 'Acme', homepageUri: 'acme.example' },
          { id: 'ORG-2', type: 'Organization', name: 'Globex', homepageUri: 'globex.example' },
        ),
        {
          workers,
          onIndexing: () =>
            seen.push({
              organizations: storage.entities.counts().organizations,
              findable: storage.entities.refsForKey('d:acme.example', 10).length,
            }),
        },
      );
      assert.deepEqual(seen, [{ organizations: 2, findable: 0 }]);
      assert.equal(storage.entities.refsForKey('d:acme.example', 10).length, 1);
      assert.ok(
        summary.keyIndexMs >= 0 && summary.keyIndexMs <= summary.elapsedMs,
        `${summary.keyIndexMs} ms`,
      );
      storage.close();
    });

    test('indexKeys false leaves every key pending, earlier ones too, until indexPendingKeys', async () => {
      const storage = freshStorage();
      const first = await run(
        storage,
        lines({ id: 'ORG-1', type: 'Organization', name: 'Acme', homepageUri: 'acme.example' }),
        { workers, indexKeys: false, onIndexing: () => assert.fail('no key pass was asked for') },
      );
      const second = await run(
        storage,
        lines({ id: 'ORG-2', type: 'Organization', name: 'Globex', homepageUri: 'globex.example' }),
        { workers, indexKeys: false },
      );
      assert.deepEqual([first.created, second.created, first.keyIndexMs, second.keyIndexMs], [1, 1, 0, 0]);
      assert.ok(storage.entities.getById('ORG-1') !== undefined, 'stored');
      assert.equal(storage.entities.refsForKey('d:acme.example', 10).length, 0, 'not indexed by the second');
      assert.equal(storage.entities.refsForKey('d:globex.example', 10).length, 0);
      assert.equal(storage.entities.indexPendingKeys(), 2);
      assert.equal(storage.entities.refsForKey('d:acme.example', 10).length, 1);
      assert.equal(storage.entities.refsForKey('d:globex.example', 10).length, 1);
      storage.close();
    });

    test('skips a huge line without aborting; the lines around it import', async () => {
      const storage = freshStorage();
      const huge = JSON.stringify({
        id: 'ORG-huge',
        type: 'Organization',
        description: 'x'.repeat(3 * 1024 * 1024),
      });
      const rejected: number[] = [];
      const summary = await run(
        storage,
        lines({ id: 'ORG-a', type: 'Organization' }, huge, { id: 'ORG-b', type: 'Organization' }),
        { workers, onReject: (r) => rejected.push(r.line) },
      );
      assert.equal(summary.created, 2);
      assert.deepEqual(rejected, [2]);
      assert.match(summary.rejects[0].reason, /more than the 1048576-byte limit/);
      assert.equal(storage.entities.getById('ORG-huge'), undefined);
      const small = await run(storage, lines({ id: 'ORG-c', type: 'Organization', name: 'C'.repeat(200) }), {
        workers,
        maxLineBytes: 100,
      });
      assert.equal(small.rejected, 1);
      storage.close();
    });

    test('duplicates within a file: the later statement of the same source wins', async () => {
      const storage = freshStorage();
      const summary = await run(
        storage,
        lines(
          { id: 'ORG-1', type: 'Organization', name: 'Old name', nbEmployees: 5 },
          { id: 'ORG-1', type: 'Organization', name: 'New name' },
          { id: 'ORG-1', type: 'Organization', name: 'New name' },
        ),
        { workers },
      );
      assert.deepEqual([summary.created, summary.updated, summary.unchanged], [1, 1, 1]);
      const stored = storage.entities.getById('ORG-1')!;
      assert.equal(stored.doc.name, 'New name');
      assert.equal(stored.doc.nbEmployees, undefined, 'the same source restated without it');
      assert.equal(stored.doc.nonCanonicalFacts, undefined);
      assert.equal(storage.entities.refsForKey('ot:old', 10).length, 0);
      assert.equal(storage.entities.refsForKey('ot:new', 10).length, 1);
      storage.close();
    });

    test('re-importing updates; an unchanged re-import changes nothing', async () => {
      const storage = freshStorage();
      const text = lines(
        { id: 'ORG-1', type: 'Organization', name: 'Acme' },
        { id: 'ORG-2', type: 'Organization' },
      );
      await run(storage, text, { workers });
      const version = storage.entities.version();
      const again = await run(storage, text, { workers });
      assert.deepEqual([again.created, again.updated, again.unchanged], [0, 0, 2]);
      assert.equal(storage.entities.version(), version, 'nothing was written');
      const changed = await run(storage, lines({ id: 'ORG-1', type: 'Organization', name: 'Acme Corp' }), {
        workers,
      });
      assert.equal(changed.updated, 1);
      assert.equal(storage.entities.getById('ORG-1')?.doc.name, 'Acme Corp');
      assert.equal(storage.entities.counts().organizations, 2);
      storage.close();
    });

    test('sources accumulate: non-canonical facts and fact origins; a type change is rejected', async () => {
      const storage = freshStorage();
      await run(
        storage,
        lines({
          id: 'ORG-1',
          type: 'Organization',
          name: 'Acme',
          foundingDate: '1990',
          allUris: ['acme.example'],
          origins: ['https://acme.example/about'],
        }),
        { workers },
      );
      const second = await run(
        storage,
        lines(
          { id: 'ORG-1', type: 'Organization', name: 'Acme', foundingDate: '1991', allUris: ['acme.test'] },
          { id: 'ORG-1', type: 'Person', name: 'Acme' },
        ),
        { workers, source: 'registry' },
      );
      assert.equal(second.updated, 1);
      assert.equal(second.rejected, 1);
      assert.match(
        second.rejects[0].reason,
        /ORG-1: type Person differs from the stored entity's type Organization/,
      );
      const stored = storage.entities.getById('ORG-1')!;
      const doc: Entity = stored.doc;
      assert.deepEqual(doc.foundingDate, { str: 'd1991', precision: 1 });
      assert.deepEqual(doc.nonCanonicalFacts, [
        {
          field: 'foundingDate',
          value: { str: 'd1990', precision: 1 },
          origins: ['https://acme.example/about'],
        },
      ]);
      assert.deepEqual(doc.allUris, ['acme.test', 'acme.example']);
      const origins = factOriginsOf(doc, stored.ledger as never);
      assert.deepEqual(origins.foundingDate, ['registry']);
      assert.deepEqual(origins.name, ['https://acme.example/about', 'registry']);
      assert.equal(storage.entities.refsForKey('d:acme.test', 10).length, 1);
      assert.equal(storage.entities.refsForKey('d:acme.example', 10).length, 1);
      storage.close();
    });

    test('unicode: BOM, CRLF, NFC names, emoji and CJK survive; split multi-byte characters too', async () => {
      const storage = freshStorage();
      const text = `\ufeff${JSON.stringify({ id: 'ORG-ü', type: 'Organization', name: 'Fundac\u0327a\u0303o 東京 🎓' })}\r\n${JSON.stringify({ id: 'PER-é', type: 'Person', name: 'Zoë' })}\r\n`;
      const stream = input(text, 3);
      const summary = await importEntities(storage.entities, stream, { fileName: 'u.jsonl', workers });
      assert.equal(summary.rejected, 0, JSON.stringify(summary.rejects));
      assert.equal(storage.entities.getById('ORG-ü')?.doc.name, 'Fundação 東京 🎓');
      assert.equal(storage.entities.getById('PER-é')?.doc.name, 'Zoë');
      storage.close();
    });

    test('a line stored as written still reads back as the entity it states', async () => {
      const storage = freshStorage();
      const text =
        '{"id" : "ORG-t", "type":"Organization", "name":"Caf\\u00e9 \\"Z\\"", "allNames": ["Caf\\u00e9 \\"Z\\""], "nbEmployees": 1e2, "x":null}';
      const summary = await run(storage, `${text}\n`, { workers });
      assert.equal(summary.created, 1, JSON.stringify(summary.rejects));
      assert.deepEqual(storage.entities.getById('ORG-t')?.doc, {
        id: 'ORG-t',
        type: 'Organization',
        name: 'Café "Z"',
        nbEmployees: 100,
        x: null,
        allNames: ['Café "Z"'],
      });
      const again = await run(storage, `${text}\n`, { workers });
      assert.equal(again.unchanged, 1);
      storage.close();
    });

    test('order holds across jobs and workers: the last statement wins, rejects in line order', async () => {
      const storage = freshStorage();
      const records: string[] = [];
      for (let i = 1; i <= 7000; i++) {
        records.push(
          i % 997 === 0
            ? '{broken'
            : JSON.stringify({ id: `ORG-${i % 100}`, type: 'Organization', name: `v${i}` }),
        );
      }
      const seen: number[] = [];
      const summary = await run(storage, lines(...records), { workers, onReject: (r) => seen.push(r.line) });
      const expected = [997, 1994, 2991, 3988, 4985, 5982, 6979];
      assert.deepEqual(seen, expected);
      assert.deepEqual(
        summary.rejects.map((r) => r.line),
        expected,
      );
      assert.equal(summary.created, 100);
      assert.equal(summary.created + summary.updated + summary.unchanged + summary.rejected, 7000);
      for (const n of [0, 1, 42, 99]) {
        let last = 0;
        for (let i = 1; i <= 7000; i++) if (i % 100 === n && i % 997 !== 0) last = i;
        assert.equal(storage.entities.getById(`ORG-${n}`)?.doc.name, `v${last}`);
      }
      storage.close();
    });

    test('a stream that breaks off: the import fails, the records read before are stored and findable', async () => {
      const storage = freshStorage();
      async function* broken() {
        yield Buffer.from(lines({ id: 'ORG-r1', type: 'Organization', homepageUri: 'r1.example' }));
        yield Buffer.from(lines({ id: 'ORG-r2', type: 'Organization', homepageUri: 'r2.example' }));
        throw new Error('disk on fire');
      }
      await assert.rejects(
        importEntities(storage.entities, broken(), { fileName: 'b.jsonl', workers }),
        /disk on fire/,
      );
      assert.equal(storage.entities.getById('ORG-r2')?.doc.homepageUri, 'r2.example');
      assert.equal(storage.entities.refsForKey('d:r1.example', 5).length, 1);
      assert.equal(storage.entities.indexPendingKeys(), 0);
      storage.close();
    });

    test('CSV with a column mapping and a default type', async () => {
      const storage = freshStorage();
      const csv = [
        'Company,Website,City,Staff,Phones,Notes',
        'Acme GmbH,acme.example,Berlin,120,+49 30 123456;+49 30 654321,"multi',
        'line note"',
        ',nameless.example,Paris,3,,',
        'Globex,globex.example,"Lyon, France",lots,,',
      ].join('\n');
      const summary = await importEntities(storage.entities, input(csv), {
        fileName: 'companies.csv',
        type: 'Organization',
        map: 'Company=name,Website=homepageUri,City=location.city.name,Staff=nbEmployees,Phones=phoneNumbers,Notes=-',
        workers,
      });
      assert.equal(summary.format, 'csv');
      // No id column (issue 28): a row with a name gets an id minted from its type, name and
      // address; one without a name has nothing to derive it from. Physical line numbers.
      assert.deepEqual(
        summary.rejects.map((r) => [r.line, r.reason]),
        [
          [4, 'id is missing'],
          [5, 'column Staff: "lots" is not a number'],
        ],
      );
      assert.equal(summary.created, 1);
      const minted = mintEntityId({ type: 'Organization', name: 'Acme GmbH', homepageUri: 'acme.example' })!;
      assert.match(minted, /^ORG-m-[0-9a-f]{16}$/);
      assert.equal(storage.entities.getById(minted)?.doc.name, 'Acme GmbH');
      // Importing it again states the same entity: an update, not a twin.
      const again = await importEntities(storage.entities, input(csv), {
        fileName: 'companies.csv',
        type: 'Organization',
        map: 'Company=name,Website=homepageUri,City=location.city.name,Staff=nbEmployees,Phones=phoneNumbers,Notes=-',
        workers,
      });
      assert.equal(again.created, 0);
      assert.equal(storage.entities.counts().organizations, 1);
      const withIds = await importEntities(
        storage.entities,
        input('id,name,allUris,employments.title\nORG-9,Initech,initech.example;initech.test,\n'),
        { fileName: 'x.csv', type: 'Organization', workers },
      );
      assert.equal(withIds.created, 1);
      assert.deepEqual(storage.entities.getById('ORG-9')?.doc.allUris, ['initech.example', 'initech.test']);
      await assert.rejects(
        importEntities(storage.entities, input('a,b\n1,2\n'), {
          fileName: 'y.csv',
          map: 'Missing=name',
          workers,
        }),
        /--map names a column "Missing" that the header row does not have/,
      );
      storage.close();
    });
  });
}

describe('ImportSession into an empty store', () => {
  const statement = (id: string, origin: string, foundingDate: string) =>
    prepareRecord({ id, type: 'Organization', name: 'Acme', foundingDate, origins: [origin] }, 1, {
      format: 'jsonl',
      fileName: 'test.jsonl',
    });

  /** The sources of a stored entity's ledger, oldest first. */
  const sourcesOf = (storage: Storage, id: string) =>
    (storage.entities.getById(id)!.ledger as { sources: { source: string }[] }).sources.map((s) => s.source);

  test('finds the ids it wrote in earlier batches and merges restatements with them', () => {
    const storage = freshStorage();
    const session = new ImportSession(storage.entities, { batchSize: 1 });
    session.add([
      statement('ORG-1', 'https://a.example', '1990'),
      statement('ORG-2', 'https://a.example', '1990'),
    ]);
    session.add([statement('ORG-1', 'https://b.example', '1991')]);
    session.finish();
    assert.deepEqual([session.counts.created, session.counts.updated], [2, 1]);
    assert.deepEqual(sourcesOf(storage, 'ORG-1'), ['https://a.example', 'https://b.example']);
    assert.equal(storage.entities.getById('ORG-1')?.doc.nonCanonicalFacts?.length, 1);
    storage.close();
  });

  test('looks up every id once another writer has written meanwhile, and merges with its entities', async () => {
    const storage = freshStorage();
    const session = new ImportSession(storage.entities, { batchSize: 1 });
    session.add([statement('ORG-1', 'https://a.example', '1990')]);
    // Another import writes ORG-2 between two batches of the session.
    await run(
      storage,
      lines({ id: 'ORG-2', type: 'Organization', name: 'Acme', origins: ['https://c.example'] }),
      { workers: 0 },
    );
    session.add([statement('ORG-2', 'https://b.example', '1991')]);
    session.finish();
    assert.deepEqual([session.counts.created, session.counts.updated], [1, 1]);
    assert.deepEqual(sourcesOf(storage, 'ORG-2'), ['https://c.example', 'https://b.example']);
    storage.close();
  });

  /**
   * A store on a file, and another writer on a second connection to it, as the server (crawl
   * ingestion) or another import has. The other writer gives up on a held write lock after
   * 50 ms instead of 10 s; `otherStates` is its read-merge-write of a statement.
   */
  function twoWriters() {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir.path, 'quarry.sqlite');
    const storage = openSqliteStorage(file);
    const db = new DatabaseSync(file, { timeout: 50 });
    const other = new SqliteEntityStore(db, createTransactionRunner(db));
    const otherStates = (record: PreparedRecord) =>
      other.exclusively(() => {
        const stored = other.getById(record.id);
        const before = stored && { doc: stored.doc, ledger: stored.ledger as FactLedger | null };
        const next = applyStatement(before, record.source, JSON.parse(record.json.doc) as Entity);
        other.writeBatch([
          {
            id: record.id,
            type: next.doc.type,
            doc: next.doc,
            ledger: next.ledger,
            ...indexEntity(next.doc),
          },
        ]);
      });
    const close = () => {
      db.close();
      storage.close();
    };
    return { storage, otherStates, close };
  }

  /**
   * `store` with `act` run right after each of its first `times` `getByIds` made outside the
   * write lock (a batch has read, and merges outside), counting its reads and its transactions.
   */
  function actingAfterReads(store: EntityStore, act: () => void, times = 1) {
    let acted = 0;
    let exclusive = 0;
    let reads = 0;
    let locked = 0;
    const proxy = new Proxy(store, {
      get(target, property) {
        if (property === 'getByIds') {
          return (ids: readonly string[]) => {
            reads++;
            const found = target.getByIds(ids);
            if (locked === 0 && acted < times) {
              acted++;
              act();
            }
            return found;
          };
        }
        if (property === 'exclusively') {
          return <T>(fn: () => T) => {
            exclusive++;
            locked++;
            try {
              return target.exclusively(fn);
            } finally {
              locked--;
            }
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { store: proxy, transactions: () => exclusive, reads: () => reads };
  }

  test('a writer that states an entity while a batch merges with it loses nothing: no merge overwrites its statement', () => {
    const { storage, otherStates, close } = twoWriters();
    const first = new ImportSession(storage.entities);
    first.add([statement('ORG-1', 'https://a.example', '1990')]);
    first.finish();
    // The other writer states ORG-1 right after the session has read it: the batch merges
    // outside the write lock, so the other writer gets in (it would throw, busy, otherwise).
    const racing = actingAfterReads(storage.entities, () =>
      otherStates(statement('ORG-1', 'https://c.example', '1992')),
    );
    const session = new ImportSession(racing.store);
    session.add([statement('ORG-1', 'https://b.example', '1991')]);
    session.finish();
    assert.equal(racing.transactions(), 2, 'the first write found the version moved and merged again');
    assert.deepEqual(sourcesOf(storage, 'ORG-1').sort(), [
      'https://a.example',
      'https://b.example',
      'https://c.example',
    ]);
    close();
  });

  test('a batch merged again after another writer wrote is merged in slices, each its own transaction, and loses nothing', () => {
    const { storage, otherStates, close } = twoWriters();
    const first = new ImportSession(storage.entities);
    first.add([statement('ORG-1', 'https://a.example', '1990')]);
    first.finish();
    // Meanwhile the other writer states ORG-1 (stored) and ORG-5500 (new, in the second slice).
    const racing = actingAfterReads(storage.entities, () => {
      otherStates(statement('ORG-1', 'https://c.example', '1992'));
      otherStates(statement('ORG-5500', 'https://c.example', '1992'));
    });
    const session = new ImportSession(racing.store);
    session.add(Array.from({ length: 6_000 }, (_, i) => statement(`ORG-${i}`, 'https://b.example', '1991')));
    session.finish();
    // The attempt that found the version moved, then two slices of at most 5,000.
    assert.equal(racing.transactions(), 3);
    assert.deepEqual([session.counts.created, session.counts.updated], [5_998, 2]);
    assert.deepEqual(sourcesOf(storage, 'ORG-1').sort(), [
      'https://a.example',
      'https://b.example',
      'https://c.example',
    ]);
    assert.deepEqual(sourcesOf(storage, 'ORG-5500').sort(), ['https://b.example', 'https://c.example']);
    assert.equal(storage.entities.counts().organizations, 6_000);
    close();
  });

  test('once another writer got in while a batch merged, the next batches merge once, under the lock, and lose nothing', () => {
    const { storage, otherStates, close } = twoWriters();
    // The other writer states an entity of its own whenever a batch merges outside the lock, as
    // a running crawl would.
    let stated = 0;
    const racing = actingAfterReads(
      storage.entities,
      () => otherStates(statement(`ORG-other-${stated++}`, 'https://c.example', '1992')),
      Number.POSITIVE_INFINITY,
    );
    const session = new ImportSession(racing.store, { batchSize: 1_000 });
    session.add(Array.from({ length: 3_000 }, (_, i) => statement(`ORG-${i}`, 'https://b.example', '1991')));
    session.finish();
    // The first batch: the attempt the writer got into, then its merge under the lock. The two
    // others: one merge each, under the lock (merging outside again read and merged them twice).
    assert.equal(racing.reads(), 4);
    assert.equal(racing.transactions(), 4);
    assert.equal(stated, 1, 'the other writer got in once');
    assert.deepEqual([session.counts.created, session.counts.updated], [3_000, 0]);
    assert.equal(storage.entities.counts().organizations, 3_001);
    close();
  });
});

/**
 * Storage contract for what the import adds to EntityStore: deferred key indexing
 * (`writeBatch(…, {deferKeys})` + `indexPendingKeys()`), `getByIds`, and the pass over the
 * whole graph that re-keys a store an older build imported (`entitiesAfter`, `reindexKeys`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reindexKeys } from '../src/import/index.ts';
import type { Entity } from '../src/kg/index.ts';
import { indexEntity } from '../src/match/index.ts';
import type { EntityWrite, Storage } from '../src/storage/index.ts';
import type { OpenStorage } from './storage-contract.ts';

function write(id: string, keys: string[], doc: Partial<Entity> = {}): EntityWrite {
  const full: Entity = { id, type: 'Organization', name: id, ...doc };
  return {
    id,
    type: full.type,
    doc: full,
    ledger: { sources: [{ source: 'test' }] },
    profile: { name: full.name },
    keys,
  };
}

export function runKgImportStorageContract(adapter: string, open: OpenStorage): void {
  describe(`storage contract (kg import): ${adapter}`, () => {
    let storage: Storage;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ storage, cleanup } = await open());
    });
    after(async () => cleanup());

    test('deferred keys: readable by id at once, found by key only after indexPendingKeys', () => {
      const version = storage.entities.version();
      assert.equal(storage.entities.pendingKeyCount(), 0);
      storage.entities.writeBatch(
        [write('D-1', ['t:deferred', 'd:d1.example']), write('D-2', ['t:deferred'])],
        {
          deferKeys: true,
        },
      );
      assert.equal(storage.entities.pendingKeyCount(), 2);
      assert.notEqual(storage.entities.version(), version);
      assert.equal(storage.entities.getById('D-1')?.doc.name, 'D-1');
      assert.deepEqual(storage.entities.getById('D-1')?.ledger, { sources: [{ source: 'test' }] });
      assert.equal(storage.entities.refsForKey('t:deferred', 10).length, 0);
      assert.equal(storage.entities.indexPendingKeys(), 2);
      assert.equal(storage.entities.pendingKeyCount(), 0);
      assert.equal(storage.entities.refsForKey('t:deferred', 10).length, 2);
      assert.equal(storage.entities.refsForKey('d:d1.example', 10).length, 1);
      assert.equal(storage.entities.indexPendingKeys(), 0, 'idempotent');
    });

    test('indexPendingKeysOffThread: the same pass as indexPendingKeys, awaited', async () => {
      storage.entities.writeBatch([write('O-1', ['t:offthread']), write('O-2', ['t:offthread'])], {
        deferKeys: true,
      });
      const version = storage.entities.version();
      assert.equal(await storage.entities.indexPendingKeysOffThread(), 2);
      assert.equal(storage.entities.pendingKeyCount(), 0);
      assert.equal(storage.entities.refsForKey('t:offthread', 10).length, 2);
      assert.notEqual(storage.entities.version(), version);
      assert.equal(await storage.entities.indexPendingKeysOffThread(), 0, 'idempotent');
    });

    test('a deferred replacement drops stale keys at once and indexes the new ones later', () => {
      storage.entities.writeBatch([write('D-1', ['t:deferred', 'd:d1.test'], { name: 'Renamed' })], {
        deferKeys: true,
      });
      assert.equal(storage.entities.refsForKey('d:d1.example', 10).length, 0);
      assert.equal(storage.entities.getById('D-1')?.doc.name, 'Renamed');
      assert.equal(storage.entities.pendingKeyCount(), 1, 'the replaced entity waits, once');
      storage.entities.indexPendingKeys();
      assert.equal(storage.entities.refsForKey('d:d1.test', 10).length, 1);
      assert.equal(storage.entities.refsForKey('t:deferred', 10).length, 2);
    });

    test('an entity written twice before indexing ends with the keys of its last write only', () => {
      storage.entities.writeBatch([write('D-3', ['t:first'])], { deferKeys: true });
      storage.entities.writeBatch([write('D-3', ['t:second'])], { deferKeys: true });
      storage.entities.writeBatch([write('D-3', ['t:third'])]);
      storage.entities.indexPendingKeys();
      assert.equal(storage.entities.refsForKey('t:first', 10).length, 0);
      assert.equal(storage.entities.refsForKey('t:second', 10).length, 0);
      assert.equal(storage.entities.refsForKey('t:third', 10).length, 1);
    });

    test('a failing deferred batch writes nothing and leaves nothing pending', () => {
      const bad = { ...write('D-bad', ['t:bad']), type: 'Planet' as never };
      assert.throws(() => storage.entities.writeBatch([write('D-ok', ['t:ok2']), bad], { deferKeys: true }));
      assert.equal(storage.entities.getById('D-ok'), undefined);
      assert.equal(storage.entities.indexPendingKeys(), 0);
    });

    test('serialized writes store their JSON as given, with or without deferred keys', () => {
      const json = (id: string, key: string) => ({
        doc: JSON.stringify({ id, type: 'Person', name: 'Zoë' }),
        ledger: null,
        profile: JSON.stringify({ names: ['zoe'] }),
        keys: JSON.stringify([key]),
      });
      storage.entities.writeBatch([{ id: 'S-1', type: 'Person', json: json('S-1', 't:zoe-s1') }]);
      storage.entities.writeBatch([{ id: 'S-2', type: 'Person', json: json('S-2', 't:zoe-s2') }], {
        deferKeys: true,
      });
      storage.entities.indexPendingKeys();
      for (const id of ['S-1', 'S-2']) {
        const stored = storage.entities.getById(id);
        assert.deepEqual(stored?.doc, { id, type: 'Person', name: 'Zoë' });
        assert.equal(stored?.ledger, null);
        assert.deepEqual(storage.entities.profiles([stored!.ref])[0].profile, { names: ['zoe'] });
      }
      assert.equal(storage.entities.refsForKey('t:zoe-s1', 5).length, 1);
      assert.equal(storage.entities.refsForKey('t:zoe-s2', 5).length, 1);
      storage.entities.writeBatch([{ id: 'S-1', type: 'Person', json: json('S-1', 't:zoe-renamed') }]);
      assert.equal(storage.entities.refsForKey('t:zoe-s1', 5).length, 0);
      assert.equal(storage.entities.refsForKey('t:zoe-renamed', 5).length, 1);
    });

    test('getByIds returns the stored ones among the ids, keyed by id', () => {
      const found = storage.entities.getByIds(['D-1', 'D-404', 'D-2', 'D-1']);
      assert.deepEqual([...found.keys()].sort(), ['D-1', 'D-2']);
      assert.equal(found.get('D-1')?.doc.name, 'Renamed');
      assert.equal(storage.entities.getByIds([]).size, 0);
      assert.equal(storage.entities.getByIds(['Ω "quoted" \\ id']).size, 0);
    });

    test('exclusively: reads inside see its own writes; they commit together, or not at all when it throws', () => {
      const result = storage.entities.exclusively(() => {
        storage.entities.writeBatch([write('X-1', ['t:exclusive'])], { deferKeys: true });
        storage.entities.writeBatch([write('X-2', ['t:exclusive'])]);
        return storage.entities.getByIds(['X-1', 'X-2']).size;
      });
      assert.equal(result, 2);
      assert.equal(storage.entities.getById('X-1')?.doc.name, 'X-1');
      const version = storage.entities.version();
      assert.throws(
        () =>
          storage.entities.exclusively(() => {
            storage.entities.writeBatch([
              write('X-3', ['t:exclusive']),
              write('X-1', [], { name: 'Changed' }),
            ]);
            assert.equal(storage.entities.getById('X-3')?.doc.name, 'X-3');
            throw new Error('merge failed');
          }),
        /merge failed/,
      );
      assert.equal(storage.entities.getById('X-3'), undefined);
      assert.equal(storage.entities.getById('X-1')?.doc.name, 'X-1');
      assert.equal(storage.entities.version(), version);
      assert.equal(storage.entities.indexPendingKeys(), 1);
      assert.equal(storage.entities.refsForKey('t:exclusive', 5).length, 2);
    });

    test('entitiesAfter: every entity once, in ref order, chunk by chunk, with its stored keys', () => {
      storage.entities.writeBatch([write('A-1', ['t:after', 'd:a1.example']), write('A-2', [])]);
      const seen: number[] = [];
      const byId = new Map<string, readonly string[]>();
      for (let after = 0; ; ) {
        const chunk = storage.entities.entitiesAfter(after, 3);
        if (chunk.length === 0) break;
        assert.ok(chunk.length <= 3);
        for (const entity of chunk) {
          seen.push(entity.ref);
          byId.set(entity.id, entity.keys);
        }
        after = chunk[chunk.length - 1].ref;
      }
      assert.deepEqual(
        seen,
        [...seen].sort((a, b) => a - b),
        'ref order',
      );
      assert.equal(new Set(seen).size, seen.length, 'each once');
      assert.equal(seen.length, storage.entities.counts().organizations + storage.entities.counts().persons);
      assert.deepEqual(byId.get('A-1'), ['t:after', 'd:a1.example']);
      assert.deepEqual(byId.get('A-2'), []);
      const [a1] = storage.entities.entitiesAfter(storage.entities.getById('A-1')!.ref - 1, 1);
      assert.equal(a1.id, 'A-1');
      assert.deepEqual(a1.ledger, { sources: [{ source: 'test' }] });
      assert.deepEqual(storage.entities.entitiesAfter(Math.max(...seen), 10), []);
    });

    test("reindexKeys gives entities stored with an older build's keys the keys computed now", async () => {
      const person: Entity = {
        id: 'P-rekey',
        type: 'Person',
        name: 'Ada Quarrington',
        employments: [
          { employer: { id: 'O-now', name: 'Now Works' }, isCurrent: true },
          { employer: { id: 'O-before', name: 'Before Works' }, isCurrent: false },
        ],
        educations: [{ institution: { name: 'Ostara School of Music' } }],
      };
      const index = indexEntity(person);
      // As an older build stored it: without the past employer's and the school's keys.
      const older = index.keys.filter((key) => !key.startsWith('pe:') && !key.startsWith('ps:'));
      assert.ok(older.length < index.keys.length);
      const ledger = { sources: [{ source: 'old' }] };
      storage.entities.writeBatch([
        { id: person.id, type: 'Person', doc: person, ledger, ...index, keys: older },
      ]);
      assert.deepEqual(storage.entities.refsForKey('pe:O-before', 5), []);
      const first = await reindexKeys(storage.entities);
      assert.ok(first.rekeyed >= 1, JSON.stringify(first));
      assert.equal(storage.entities.pendingKeyCount(), 0);
      const ref = storage.entities.getById(person.id)!.ref;
      assert.deepEqual(storage.entities.refsForKey('pe:O-before', 5), [ref]);
      assert.deepEqual(storage.entities.refsForKey('ps:music ostara school', 5), [ref]);
      assert.deepEqual(storage.entities.refsForKey('pw:O-now', 5), [ref], 'the keys it had are kept');
      assert.deepEqual(storage.entities.getById(person.id)?.doc, person, 'the document is unchanged');
      assert.deepEqual(storage.entities.getById(person.id)?.ledger, ledger, 'the ledger is unchanged');
      const second = await reindexKeys(storage.entities);
      assert.equal(second.rekeyed, 0, 'idempotent');
      assert.equal(second.scanned, first.scanned);
    });
  });
}

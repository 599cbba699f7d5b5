/**
 * Storage contract for the matcher's read side of `EntityStore`: batched key lookups and term
 * vocabularies. Every adapter runs it (`test/sqlite-storage.test.ts` for the embedded store).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { EntityWrite, Storage } from '../src/storage/index.ts';
import type { OpenStorage } from './storage-contract.ts';

function write(id: string, keys: string[]): EntityWrite {
  return {
    id,
    type: 'Person',
    doc: { id, type: 'Person', name: id },
    ledger: null,
    profile: { k: 'P', n: [id] },
    keys,
  };
}

export function runMatchStoreContract(adapter: string, open: OpenStorage): void {
  describe(`storage contract: ${adapter}: matcher reads`, () => {
    let storage: Storage;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ storage, cleanup } = await open());
      storage.entities.writeBatch([
        write('m1', ['pt:ann', 'pt:lee', 'e:ann@x.org']),
        write('m2', ['pt:ann', 'pt:kim']),
        write('m3', ['pt:ann', 'pl:leeds']),
        write('m4', ['pu:zz']),
      ]);
    });
    after(async () => cleanup());

    test('refsForKeys answers every key, in ref order, at most limitPerKey each', () => {
      const refs = storage.entities.refsForKeys(['pt:ann', 'pt:kim', 'pt:nobody', 'pt:ann'], 2);
      assert.equal(refs.size, 3);
      const ann = refs.get('pt:ann') ?? [];
      assert.equal(ann.length, 2);
      assert.ok(ann[0] < ann[1]);
      assert.equal(refs.get('pt:kim')?.length, 1);
      assert.deepEqual(refs.get('pt:nobody'), []);
    });

    test('refsForKeys of a whole bulk batch (hundreds of keys) answers each key as alone', () => {
      const keys = Array.from({ length: 300 }, (_, i) => (i % 7 === 0 ? 'pt:ann' : `pt:none${i}`));
      keys.push('pt:kim', 'pu:zz');
      const together = storage.entities.refsForKeys(keys, 10);
      assert.equal(together.size, new Set(keys).size);
      for (const key of new Set(keys))
        assert.deepEqual(together.get(key), storage.entities.refsForKeys([key], 10).get(key));
      assert.equal(together.get('pt:ann')?.length, 3);
    });

    test('refsForKeys honours every limit, however many different limits are asked for', () => {
      // Twice over 0–20: each limit read again, and more limits than the embedded store prepares
      // a statement of its own for (the rest are bound).
      for (let round = 0; round < 2; round++)
        for (let limit = 0; limit <= 20; limit++) {
          const refs = storage.entities.refsForKeys(['pt:ann', 'pt:kim', 'pt:nobody'], limit);
          assert.deepEqual(refs.get('pt:ann'), storage.entities.refsForKey('pt:ann', limit));
          assert.equal(refs.get('pt:ann')?.length, Math.min(3, limit));
          assert.equal(refs.get('pt:kim')?.length, Math.min(1, limit));
          assert.deepEqual(refs.get('pt:nobody'), []);
        }
    });

    test('getByRefs of several refs answers their entities in the order asked, absent ones left out', () => {
      const [m1, m2, m3] = storage.entities.refsForKeys(['pt:ann'], 10).get('pt:ann') ?? [];
      const [m4] = storage.entities.refsForKeys(['pu:zz'], 10).get('pu:zz') ?? [];
      const ids = (refs: number[]) => storage.entities.getByRefs(refs).map((entity) => entity.id);
      assert.deepEqual(ids([m4, m1, 9_999_999, m3, m2]), ['m4', 'm1', 'm3', 'm2']);
      assert.deepEqual(ids([m2, m2]), ['m2', 'm2']);
      assert.deepEqual(ids([9_999_999]), []);
      assert.deepEqual(ids([]), []);
      const [one] = storage.entities.getByRefs([m3, m1]);
      assert.deepEqual(
        { ref: one.ref, type: one.type, doc: one.doc, ledger: one.ledger },
        { ref: m3, type: 'Person', doc: { id: 'm3', type: 'Person', name: 'm3' }, ledger: null },
      );
    });

    test('termCounts lists the keys of one prefix with their entity counts, prefix removed', () => {
      assert.deepEqual(
        storage.entities.termCounts('pt:'),
        new Map([
          ['ann', 3],
          ['kim', 1],
          ['lee', 1],
        ]),
      );
      assert.deepEqual(storage.entities.termCounts('pl:'), new Map([['leeds', 1]]));
      assert.equal(storage.entities.termCounts('zz:').size, 0);
      assert.throws(() => storage.entities.termCounts(''), RangeError);
    });

    test('termCounts follows rewrites: replaced keys are no longer counted', () => {
      storage.entities.writeBatch([write('m2', ['pt:kimberly'])]);
      const counts = storage.entities.termCounts('pt:');
      assert.equal(counts.get('ann'), 2);
      assert.equal(counts.get('kim'), undefined);
      assert.equal(counts.get('kimberly'), 1);
    });

    test('in a read snapshot, profiles and documents after postings are those of the snapshot, in order', () => {
      const outside = storage.entities.refsForKeys(['pt:ann', 'pu:zz'], 10);
      const [m1, , m3] = outside.get('pt:ann') ?? [];
      const [m4] = outside.get('pu:zz') ?? [];
      const expected = storage.entities.profiles([m4, m1, m4, m3]);
      const docs = storage.entities.getByRefs([m4, m1]).map((e) => e.doc);
      const seen = storage.readSnapshot(() => {
        // A few refs (their profiles may be read along), then refs partly among them.
        assert.deepEqual(storage.entities.refsForKeys(['pu:zz'], 10), new Map([['pu:zz', [m4]]]));
        return {
          profiles: storage.entities.profiles([m4, m1, m4, m3]),
          docs: storage.entities.getByRefs([m4, m1]).map((e) => e.doc),
          one: storage.entities.getByRefs([m4]).map((e) => e.doc),
        };
      });
      assert.deepEqual(seen.profiles, expected);
      assert.deepEqual(seen.docs, docs);
      assert.deepEqual(seen.one, [docs[0]]);
    });

    test('in a read snapshot, a write is seen by the profiles and documents read after it', () => {
      const [m4] = storage.entities.refsForKeys(['pu:zz'], 10).get('pu:zz') ?? [];
      const seen = storage.readSnapshot(() => {
        storage.entities.refsForKeys(['pu:zz'], 10);
        storage.entities.profiles([m4]);
        storage.entities.writeBatch([
          {
            ...write('m4', ['pu:zz']),
            doc: { id: 'm4', type: 'Person', name: 'm4 renamed' },
            profile: { k: 'P', n: ['m4 renamed'] },
          },
        ]);
        return {
          profile: storage.entities.profiles([m4])[0]?.profile,
          doc: storage.entities.getByRefs([m4])[0]?.doc,
        };
      });
      assert.deepEqual(seen.profile, { k: 'P', n: ['m4 renamed'] });
      assert.equal(seen.doc?.name, 'm4 renamed');
    });
  });
}

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
  });
}

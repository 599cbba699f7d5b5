/**
 * The storage contract: every adapter (embedded SQLite now, PostgreSQL later) must pass these.
 * An adapter plugs in by calling `runStorageContract(name, open)` from its own test file, where
 * `open()` returns a fresh, empty Storage and a cleanup function.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Entity } from '../src/kg/index.ts';
import type { EntityWrite, Storage } from '../src/storage/index.ts';

export type OpenStorage = () => Promise<{ storage: Storage; cleanup(): Promise<void> }>;

function entityWrite(id: string, keys: string[], doc: Partial<Entity> = {}): EntityWrite {
  const full: Entity = { id, type: 'Organization', name: id, ...doc };
  return { id, type: full.type, doc: full, ledger: null, profile: { name: full.name }, keys };
}

export function runStorageContract(adapter: string, open: OpenStorage): void {
  describe(`storage contract: ${adapter}`, () => {
    let storage: Storage;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ storage, cleanup } = await open());
    });
    after(async () => cleanup());

    describe('tokens', () => {
      test('creates, finds by secret hash and by id', () => {
        const created = storage.tokens.create({ id: 'tok_a', secretHash: 'h-a', label: 'A', credits: 50 });
        assert.equal(created.credits, 50);
        assert.deepEqual(storage.tokens.findBySecretHash('h-a')?.id, 'tok_a');
        assert.equal(storage.tokens.findById('tok_a')?.label, 'A');
        assert.equal(storage.tokens.findBySecretHash('nope'), undefined);
      });

      test('rejects a second token with the same secret hash', () => {
        assert.throws(() => storage.tokens.create({ id: 'tok_a2', secretHash: 'h-a', credits: 1 }));
      });

      test('charges only when the balance covers the amount, never below zero', () => {
        storage.tokens.create({ id: 'tok_b', secretHash: 'h-b', credits: 60 });
        assert.equal(storage.tokens.charge('tok_b', 25), true);
        assert.equal(storage.tokens.charge('tok_b', 25), true);
        assert.equal(storage.tokens.charge('tok_b', 25), false);
        assert.equal(storage.tokens.findById('tok_b')?.credits, 10);
        assert.equal(storage.tokens.charge('tok_b', 10), true);
        assert.equal(storage.tokens.findById('tok_b')?.credits, 0);
        assert.equal(storage.tokens.charge('tok_b', 1), false);
        assert.equal(storage.tokens.charge('tok_b', 0), true);
        storage.tokens.refund('tok_b', 7);
        assert.equal(storage.tokens.findById('tok_b')?.credits, 7);
      });

      test('unlimited tokens always pay and stay unlimited; unknown tokens never pay', () => {
        storage.tokens.create({ id: 'tok_u', secretHash: 'h-u', credits: null });
        assert.equal(storage.tokens.charge('tok_u', 1_000_000), true);
        assert.equal(storage.tokens.findById('tok_u')?.credits, null);
        assert.equal(storage.tokens.charge('tok_missing', 1), false);
      });

      test('lists tokens in creation order', () => {
        const ids = storage.tokens.list().map((t) => t.id);
        assert.deepEqual(ids.slice(0, 3), ['tok_a', 'tok_b', 'tok_u']);
      });
    });

    describe('entities', () => {
      test('writes a batch and reads it back by id and ref', () => {
        const before = storage.entities.version();
        storage.entities.writeBatch([
          entityWrite('ORG-1', ['d:acme.com', 't:acme']),
          entityWrite('ORG-2', ['d:globex.com', 't:globex', 't:corp']),
          {
            ...entityWrite('PER-1', ['e:jane@acme.com', 't:jane']),
            type: 'Person',
            doc: { id: 'PER-1', type: 'Person', name: 'Jane' },
          },
        ]);
        assert.notEqual(storage.entities.version(), before);
        const one = storage.entities.getById('ORG-1');
        assert.equal(one?.doc.name, 'ORG-1');
        assert.equal(one?.type, 'Organization');
        const [again] = storage.entities.getByRefs([one!.ref]);
        assert.equal(again.id, 'ORG-1');
        assert.deepEqual(storage.entities.counts(), { organizations: 2, persons: 1 });
        assert.equal(storage.entities.getById('ORG-404'), undefined);
      });

      test('finds refs and counts by key, capped', () => {
        const refs = storage.entities.refsForKey('t:acme', 10);
        assert.equal(refs.length, 1);
        assert.equal(storage.entities.profiles(refs)[0].id, 'ORG-1');
        assert.deepEqual(storage.entities.profiles(refs)[0].profile, { name: 'ORG-1' });
        const counts = storage.entities.keyCounts(['t:acme', 't:missing'], 10);
        assert.equal(counts.get('t:acme'), 1);
        assert.equal(counts.get('t:missing'), 0);
      });

      test('keyCounts stops counting at the cap and refsForKey honours its limit', () => {
        const many = Array.from({ length: 30 }, (_, i) => entityWrite(`ORG-many-${i}`, ['t:common']));
        storage.entities.writeBatch(many);
        assert.equal(storage.entities.keyCounts(['t:common'], 10).get('t:common'), 10);
        assert.equal(storage.entities.keyCounts(['t:common'], 100).get('t:common'), 30);
        assert.equal(storage.entities.refsForKey('t:common', 7).length, 7);
      });

      test('replacing an entity replaces its keys', () => {
        storage.entities.writeBatch([entityWrite('ORG-1', ['d:acme.org', 't:acme'], { name: 'Acme' })]);
        assert.equal(storage.entities.refsForKey('d:acme.com', 10).length, 0);
        assert.equal(storage.entities.refsForKey('d:acme.org', 10).length, 1);
        assert.equal(storage.entities.refsForKey('t:acme', 10).length, 1);
        assert.equal(storage.entities.getById('ORG-1')?.doc.name, 'Acme');
        assert.equal(storage.entities.counts().organizations, 32);
      });

      test('a failing batch writes nothing', () => {
        const bad = { ...entityWrite('ORG-bad', ['t:bad']), type: 'Planet' as never };
        assert.throws(() => storage.entities.writeBatch([entityWrite('ORG-ok', ['t:ok']), bad]));
        assert.equal(storage.entities.getById('ORG-ok'), undefined);
        assert.equal(storage.entities.refsForKey('t:ok', 10).length, 0);
      });

      test('keeps unicode intact', () => {
        const name = 'Fundação Hermínio Ometto 東京大学 🎓';
        storage.entities.writeBatch([entityWrite('ORG-u', ['t:fundação'], { name })]);
        assert.equal(storage.entities.getById('ORG-u')?.doc.name, name);
        assert.equal(storage.entities.refsForKey('t:fundação', 10).length, 1);
      });

      test('counts follow new entities, deferred-key writes, re-writes and a change of type', () => {
        const start = storage.entities.counts();
        const plus = (organizations: number, persons: number) => ({
          organizations: start.organizations + organizations,
          persons: start.persons + persons,
        });
        storage.entities.writeBatch([entityWrite('ORG-C1', ['t:c1']), entityWrite('ORG-C2', ['t:c2'])]);
        storage.entities.writeBatch([entityWrite('ORG-C3', ['t:c3'])], { deferKeys: true });
        storage.entities.indexPendingKeys();
        // Writing an id again (same type) counts it once.
        storage.entities.writeBatch([entityWrite('ORG-C1', ['t:c1', 't:again'])]);
        assert.deepEqual(storage.entities.counts(), plus(3, 0));
        storage.entities.writeBatch([
          { ...entityWrite('ORG-C2', ['t:c2']), type: 'Person', doc: { id: 'ORG-C2', type: 'Person' } },
        ]);
        assert.deepEqual(storage.entities.counts(), plus(2, 1));
      });

      test('a read snapshot sees its own writes, and the version it reads follows them', () => {
        const seen = storage.readSnapshot(() => {
          const before = storage.entities.version();
          assert.equal(storage.entities.version(), before);
          storage.transaction(() => storage.entities.writeBatch([entityWrite('ORG-S1', ['t:s1'])]));
          return { before, after: storage.entities.version(), found: storage.entities.getById('ORG-S1') };
        });
        assert.notEqual(seen.after, seen.before);
        assert.equal(seen.found?.id, 'ORG-S1');
        assert.equal(storage.entities.version(), seen.after);
      });
    });

    describe('transactions', () => {
      test('roll back everything when the function throws', () => {
        assert.throws(() =>
          storage.transaction(() => {
            storage.tokens.create({ id: 'tok_tx', secretHash: 'h-tx', credits: 1 });
            throw new Error('boom');
          }),
        );
        assert.equal(storage.tokens.findById('tok_tx'), undefined);
      });
    });
  });
}

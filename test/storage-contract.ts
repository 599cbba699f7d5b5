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
      test('creates, finds by secret hash and by id', async () => {
        const created = await storage.tokens.create({
          id: 'tok_a',
          secretHash: 'h-a',
          label: 'A',
          credits: 50,
        });
        assert.equal(created.credits, 50);
        assert.deepEqual((await storage.tokens.findBySecretHash('h-a'))?.id, 'tok_a');
        assert.equal((await storage.tokens.findById('tok_a'))?.label, 'A');
        assert.equal(await storage.tokens.findBySecretHash('nope'), undefined);
      });

      test('rejects a second token with the same secret hash', async () => {
        await assert.rejects(async () =>
          storage.tokens.create({ id: 'tok_a2', secretHash: 'h-a', credits: 1 }),
        );
      });

      test('charges only when the balance covers the amount, never below zero', async () => {
        await storage.tokens.create({ id: 'tok_b', secretHash: 'h-b', credits: 60 });
        assert.equal(await storage.tokens.charge('tok_b', 25), true);
        assert.equal(await storage.tokens.charge('tok_b', 25), true);
        assert.equal(await storage.tokens.charge('tok_b', 25), false);
        assert.equal((await storage.tokens.findById('tok_b'))?.credits, 10);
        assert.equal(await storage.tokens.charge('tok_b', 10), true);
        assert.equal((await storage.tokens.findById('tok_b'))?.credits, 0);
        assert.equal(await storage.tokens.charge('tok_b', 1), false);
        assert.equal(await storage.tokens.charge('tok_b', 0), true);
        await storage.tokens.refund('tok_b', 7);
        assert.equal((await storage.tokens.findById('tok_b'))?.credits, 7);
      });

      test('unlimited tokens always pay and stay unlimited; unknown tokens never pay', async () => {
        await storage.tokens.create({ id: 'tok_u', secretHash: 'h-u', credits: null });
        assert.equal(await storage.tokens.charge('tok_u', 1_000_000), true);
        assert.equal((await storage.tokens.findById('tok_u'))?.credits, null);
        assert.equal(await storage.tokens.charge('tok_missing', 1), false);
        assert.equal(await storage.tokens.charge('tok_missing', 0), false);
      });

      test('lists tokens in creation order', async () => {
        const ids = (await storage.tokens.list()).map((t) => t.id);
        assert.deepEqual(ids.slice(0, 3), ['tok_a', 'tok_b', 'tok_u']);
      });
    });

    describe('entities', () => {
      test('writes a batch and reads it back by id and ref', async () => {
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

      test('finds refs and counts by key, capped', async () => {
        const refs = storage.entities.refsForKey('t:acme', 10);
        assert.equal(refs.length, 1);
        assert.equal(storage.entities.profiles(refs)[0].id, 'ORG-1');
        assert.deepEqual(storage.entities.profiles(refs)[0].profile, { name: 'ORG-1' });
        // The stored JSON's length comes along: the matcher's cache sizes a row by it.
        assert.equal(
          storage.entities.profiles(refs)[0].profileTextLength,
          JSON.stringify({ name: 'ORG-1' }).length,
        );
        const counts = storage.entities.keyCounts(['t:acme', 't:missing'], 10);
        assert.equal(counts.get('t:acme'), 1);
        assert.equal(counts.get('t:missing'), 0);
      });

      test('keyCounts stops counting at the cap and refsForKey honours its limit', async () => {
        const many = Array.from({ length: 30 }, (_, i) => entityWrite(`ORG-many-${i}`, ['t:common']));
        storage.entities.writeBatch(many);
        assert.equal(storage.entities.keyCounts(['t:common'], 10).get('t:common'), 10);
        assert.equal(storage.entities.keyCounts(['t:common'], 100).get('t:common'), 30);
        assert.equal(storage.entities.refsForKey('t:common', 7).length, 7);
      });

      test('replacing an entity replaces its keys', async () => {
        storage.entities.writeBatch([entityWrite('ORG-1', ['d:acme.org', 't:acme'], { name: 'Acme' })]);
        assert.equal(storage.entities.refsForKey('d:acme.com', 10).length, 0);
        assert.equal(storage.entities.refsForKey('d:acme.org', 10).length, 1);
        assert.equal(storage.entities.refsForKey('t:acme', 10).length, 1);
        assert.equal(storage.entities.getById('ORG-1')?.doc.name, 'Acme');
        assert.equal(storage.entities.counts().organizations, 32);
      });

      test('a failing batch writes nothing', async () => {
        const bad = { ...entityWrite('ORG-bad', ['t:bad']), type: 'Planet' as never };
        assert.throws(() => storage.entities.writeBatch([entityWrite('ORG-ok', ['t:ok']), bad]));
        assert.equal(storage.entities.getById('ORG-ok'), undefined);
        assert.equal(storage.entities.refsForKey('t:ok', 10).length, 0);
      });

      test('keeps unicode intact', async () => {
        const name = 'Fundação Hermínio Ometto 東京大学 🎓';
        storage.entities.writeBatch([entityWrite('ORG-u', ['t:fundação'], { name })]);
        assert.equal(storage.entities.getById('ORG-u')?.doc.name, name);
        assert.equal(storage.entities.refsForKey('t:fundação', 10).length, 1);
      });

      test('counts follow new entities, deferred-key writes, re-writes and a change of type', async () => {
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

      test('a read snapshot sees its own writes, and the version it reads follows them', async () => {
        const seen = storage.readSnapshot(() => {
          const before = storage.entities.version();
          assert.equal(storage.entities.version(), before);
          storage.entities.writeBatch([entityWrite('ORG-S1', ['t:s1'])]);
          return { before, after: storage.entities.version(), found: storage.entities.getById('ORG-S1') };
        });
        assert.notEqual(seen.after, seen.before);
        assert.equal(seen.found?.id, 'ORG-S1');
        assert.equal(storage.entities.version(), seen.after);
      });
    });

    describe('transactions', () => {
      test('roll back everything when the function throws', async () => {
        await assert.rejects(() =>
          storage.transaction(async (tx) => {
            await tx.tokens.create({ id: 'tok_tx', secretHash: 'h-tx', credits: 1 });
            throw new Error('boom');
          }),
        );
        assert.equal(await storage.tokens.findById('tok_tx'), undefined);
      });

      test('commit everything when the function resolves', async () => {
        const value = await storage.transaction(async (tx) => {
          await tx.tokens.create({ id: 'tok_tx2', secretHash: 'h-tx2', credits: 5 });
          assert.equal(await tx.tokens.charge('tok_tx2', 2), true);
          return (await tx.tokens.findById('tok_tx2'))?.credits;
        });
        assert.equal(value, 3);
        assert.equal((await storage.tokens.findById('tok_tx2'))?.credits, 3);
      });

      test('a call made outside a transaction while it runs does not join it', async () => {
        await storage.tokens.create({ id: 'tok_iso', secretHash: 'h-iso', credits: 10 });
        let outside: Promise<boolean> | undefined;
        await assert.rejects(() =>
          storage.transaction(async (tx) => {
            await tx.tokens.charge('tok_iso', 4);
            outside = storage.tokens.charge('tok_iso', 1);
            await tx.tokens.charge('tok_iso', 2);
            throw new Error('boom');
          }),
        );
        assert.equal(await outside, true);
        assert.equal((await storage.tokens.findById('tok_iso'))?.credits, 9, 'only the outside charge stays');
      });
    });

    describe('ping', () => {
      test('answers while the store is open, many pings at once too', async () => {
        await storage.ping();
        const pings = await Promise.allSettled(Array.from({ length: 50 }, () => storage.ping()));
        assert.deepEqual(
          pings.filter((p) => p.status === 'rejected'),
          [],
        );
      });

      test('refuses once the store is closed', async () => {
        const other = await open();
        await other.storage.ping();
        // cleanup() closes the store (and removes its file or database).
        await other.cleanup();
        await assert.rejects(() => other.storage.ping());
      });
    });
  });
}

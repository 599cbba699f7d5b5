/**
 * The contract of `HostTurnStore` (politeness of crawls across processes): the turns kept in
 * memory by one process, and PostgreSQL's, shared by every process of a deployment. Each
 * "process" is a store of its own over the same database (its own owner number).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HostTurn, HostTurnStore } from '../src/storage/index.ts';
import { MemoryHostTurnStore, openStorage } from '../src/storage/index.ts';
import { createTempDatabase } from './support/temp-postgres.ts';

/** Two processes' views of one store of turns; `closeFirst` ends the first process's session. */
export interface HostTurnStores {
  readonly first: HostTurnStore;
  readonly second: HostTurnStore;
  /** Ends the first process; absent in memory, where no turn outlives its process. */
  readonly closeFirst?: () => Promise<void>;
  cleanup(): Promise<void>;
}

export const HOST_TURN_ADAPTERS: ReadonlyArray<{ name: string; open(): Promise<HostTurnStores> }> = [
  {
    name: 'memory',
    open: async () => {
      const store = new MemoryHostTurnStore();
      return { first: store, second: store, cleanup: async () => {} };
    },
  },
  {
    name: 'postgres',
    open: async () => {
      const database = await createTempDatabase();
      const a = openStorage({ adapter: 'postgres', url: database.url });
      const b = openStorage({ adapter: 'postgres', url: database.url });
      let aOpen = true;
      return {
        first: a.hostTurns!,
        second: b.hostTurns!,
        closeFirst: async () => {
          aOpen = false;
          await a.close();
        },
        cleanup: async () => {
          if (aOpen) await a.close();
          await b.close();
          await database.drop();
        },
      };
    },
  },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function token(turn: HostTurn): number {
  assert.ok(turn.granted, `the turn was refused: ${JSON.stringify(turn)}`);
  return turn.token;
}

export function runHostTurnStoreContract(name: string, open: () => Promise<HostTurnStores>): void {
  describe(`HostTurnStore contract (${name})`, () => {
    let stores: HostTurnStores;
    before(async () => {
      stores = await open();
    });
    after(() => stores.cleanup());

    test('one holder of a host at a time; the next turn begins a delay after the last ended', async () => {
      const { first, second } = stores;
      const held = token(await first.take('a.example', 300, 60_000));
      const refused = await second.take('a.example', 300, 60_000);
      assert.deepEqual(refused, { granted: false, waitMs: 300 });
      // Another host is free meanwhile.
      token(await second.take('b.example', 300, 60_000));
      await first.release('a.example', held);
      const early = await second.take('a.example', 300, 60_000);
      assert.equal(early.granted, false);
      assert.ok(!early.granted && early.waitMs > 0 && early.waitMs <= 300, JSON.stringify(early));
      await sleep(early.granted ? 0 : early.waitMs + 5);
      token(await second.take('a.example', 300, 60_000));
      // A shorter delay asked by another request of the host counts from the same end.
      const other = await first.take('a.example', 0, 60_000);
      assert.equal(other.granted, false);
    });

    test('of many processes asking at once, one gets the turn', async () => {
      const asks = Array.from({ length: 24 }, (_, i) =>
        (i % 2 === 0 ? stores.first : stores.second).take('c.example', 100, 60_000),
      );
      const granted = (await Promise.all(asks)).filter((turn) => turn.granted);
      assert.equal(granted.length, 1);
    });

    test('a turn not ended within its hold lapses, and its late release frees nothing', async () => {
      const { first, second } = stores;
      const lapsed = token(await first.take('d.example', 0, 50));
      assert.equal((await second.take('d.example', 0, 60_000)).granted, false);
      await sleep(80);
      const next = token(await second.take('d.example', 0, 60_000));
      await first.release('d.example', lapsed);
      assert.equal((await first.take('d.example', 0, 60_000)).granted, false, 'still held by the second');
      await second.release('d.example', next);
      token(await first.take('d.example', 0, 60_000));
    });

    test('a turn held by a process that is gone is free at once', async (t) => {
      if (!stores.closeFirst) return t.skip('one process: nothing outlives it');
      token(await stores.first.take('e.example', 0, 600_000));
      assert.equal((await stores.second.take('e.example', 0, 600_000)).granted, false);
      await stores.closeFirst();
      token(await stores.second.take('e.example', 0, 600_000));
    });
  });
}

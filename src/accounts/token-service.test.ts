import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Storage, TokenStore } from '../storage/index.ts';
import { openTempSqliteStorage } from '../../test/support/temp-sqlite.ts';
import { InvalidTokenError, MissingTokenError } from '../errors.ts';
import { TokenService } from './token-service.ts';

let storage: Storage;
let cleanup: () => Promise<void>;
before(async () => {
  ({ storage, cleanup } = await openTempSqliteStorage());
});
after(() => cleanup());

/** The real token store, counting look-ups by secret. */
function counting(store: TokenStore): { store: TokenStore; lookups: () => number } {
  let lookups = 0;
  return {
    store: new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name !== 'findBySecretHash') return typeof value === 'function' ? value.bind(target) : value;
        return (hash: string) => {
          lookups++;
          return target.findBySecretHash(hash);
        };
      },
    }),
    lookups: () => lookups,
  };
}

test('recent look-ups are bounded by bytes: tokens with long labels evict, ordinary ones stay', async () => {
  const { store, lookups } = counting(storage.tokens);
  const bound = 8_000;
  const tokens = new TokenService(store, bound);
  const ordinary = await tokens.create({ credits: null, label: 'ci' });
  await tokens.authenticate(ordinary.secret);
  await tokens.authenticate(ordinary.secret);
  assert.equal(lookups(), 1, 'the second look-up is remembered');
  for (let i = 0; i < 10; i++) await tokens.authenticate((await tokens.create({ credits: 5 })).secret);
  await tokens.authenticate(ordinary.secret);
  assert.equal(lookups(), 11, 'eleven ordinary tokens (~310 bytes each) fit the bound');
  // Three tokens with 3,000-character labels (~3.2 KB each) push the least recently used out.
  for (let i = 0; i < 3; i++) {
    await tokens.authenticate((await tokens.create({ credits: 5, label: 'x'.repeat(3_000) })).secret);
  }
  await tokens.authenticate(ordinary.secret);
  assert.equal(lookups(), 15, 'evicted by bytes: looked up again');
  // A token whose label alone is over the bound is not kept.
  const huge = await tokens.create({ credits: 5, label: 'y'.repeat(10_000) });
  await tokens.authenticate(huge.secret);
  await tokens.authenticate(huge.secret);
  assert.equal(lookups(), 17);
});

test('lookUp gives the token of a recent look-up at once, hashing the secret once, and the 401s of authenticate', async () => {
  const { store, lookups } = counting(storage.tokens);
  const tokens = new TokenService(store);
  const created = await tokens.create({ credits: 7 });
  const first = tokens.lookUp(created.secret);
  assert.ok(first instanceof Promise, 'never looked up: a store read');
  const record = await first;
  assert.equal(record.id, created.record.id);
  assert.deepEqual(tokens.lookUp(created.secret), record, 'recent: the record itself, no promise');
  // The same secret with the spaces `authenticate` trims.
  assert.deepEqual(tokens.lookUp(` ${created.secret} `), record);
  assert.equal(lookups(), 1, 'no store read for a recent token');
  for (const secret of [undefined, '', '   ']) {
    assert.throws(() => tokens.lookUp(secret), MissingTokenError, String(secret));
    await assert.rejects(tokens.authenticate(secret), MissingTokenError, String(secret));
  }
  const unknown = tokens.lookUp('f'.repeat(32));
  assert.ok(unknown instanceof Promise);
  await assert.rejects(unknown, InvalidTokenError);
  assert.equal(lookups(), 2);
});

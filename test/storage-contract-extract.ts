/**
 * Storage contract for Custom API rule sets (`CustomApiStore`). Every adapter runs it through
 * `runStorageContract`'s caller (`test/sqlite-storage.test.ts` for the embedded store).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CustomApiWrite, Storage } from '../src/storage/index.ts';
import type { OpenStorage } from './storage-contract.ts';

function write(api: string, urlPattern: string, hash: string, marker: string): CustomApiWrite {
  return { api, urlPattern, hash, ruleset: { api, urlPattern, rules: [{ name: 'marker', value: marker }] } };
}

export function runCustomApiStoreContract(adapter: string, open: OpenStorage): void {
  describe(`storage contract: ${adapter}: custom APIs`, () => {
    let storage: Storage;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ storage, cleanup } = await open());
      for (const id of ['tok_c1', 'tok_c2', 'tok_c3'])
        await storage.tokens.create({ id, secretHash: `h-${id}`, credits: null });
    });
    after(async () => cleanup());

    test('save creates a rule set with the given hash and reads it back', async () => {
      const saved = await storage.customApis.save('tok_c1', write('/api/article', 'a\\.com', 'hash-1', 'v1'));
      assert.equal(saved.hash, 'hash-1');
      assert.equal(saved.tokenId, 'tok_c1');
      assert.deepEqual(saved.ruleset.rules, [{ name: 'marker', value: 'v1' }]);
      assert.equal(saved.createdAt, saved.updatedAt);
      const listed = await storage.customApis.list('tok_c1');
      assert.equal(listed.length, 1);
      assert.deepEqual(listed[0], saved);
    });

    test('saving the same (api, urlPattern) replaces the rule set and keeps hash and creation time', async () => {
      const before = (await storage.customApis.list('tok_c1'))[0];
      await new Promise((resolve) => setTimeout(resolve, 5));
      const updated = await storage.customApis.save(
        'tok_c1',
        write('/api/article', 'a\\.com', 'hash-ignored', 'v2'),
      );
      assert.equal(updated.hash, 'hash-1');
      assert.equal(updated.createdAt, before.createdAt);
      assert.ok(updated.updatedAt > before.updatedAt);
      assert.deepEqual(updated.ruleset.rules, [{ name: 'marker', value: 'v2' }]);
      assert.equal((await storage.customApis.list('tok_c1')).length, 1);
    });

    test('identity is exact: another pattern, api or token makes another rule set', async () => {
      await storage.customApis.save('tok_c1', write('/api/article', 'a\\.com/', 'hash-2', 'x'));
      await storage.customApis.save('tok_c1', write('/api/product', 'a\\.com', 'hash-3', 'x'));
      await storage.customApis.save('tok_c2', write('/api/article', 'a\\.com', 'hash-4', 'other token'));
      assert.deepEqual(
        (await storage.customApis.list('tok_c1')).map((r) => r.hash),
        ['hash-1', 'hash-2', 'hash-3'],
      );
      assert.deepEqual(
        (await storage.customApis.list('tok_c2')).map((r) => r.hash),
        ['hash-4'],
      );
    });

    test('listByApi filters by api within the token, in creation order', async () => {
      assert.deepEqual(
        (await storage.customApis.listByApi('tok_c1', ['/api/article'])).map((r) => r.hash),
        ['hash-1', 'hash-2'],
      );
      assert.deepEqual(
        (await storage.customApis.listByApi('tok_c1', ['/api/product', '/api/article'])).map((r) => r.hash),
        ['hash-1', 'hash-2', 'hash-3'],
      );
      assert.deepEqual(await storage.customApis.listByApi('tok_c1', ['/api/none']), []);
      assert.deepEqual(await storage.customApis.listByApi('tok_c1', []), []);
      assert.deepEqual(
        (await storage.customApis.listByApi('tok_c2', ['/api/article'])).map((r) => r.hash),
        ['hash-4'],
      );
    });

    test('a hash is unique across tokens', async () => {
      await assert.rejects(async () =>
        storage.customApis.save('tok_c3', write('/api/x', 'y', 'hash-1', 'dup')),
      );
      assert.deepEqual(await storage.customApis.list('tok_c3'), []);
    });

    test('replaceAll swaps the whole set atomically, keeping hashes of pairs that remain', async () => {
      const replaced = await storage.customApis.replaceAll('tok_c1', [
        write('/api/product', 'a\\.com', 'new-a', 'kept pair'),
        write('/api/recipes', 'r\\.com', 'new-b', 'new pair'),
      ]);
      assert.deepEqual(
        replaced.map((r) => r.hash),
        ['hash-3', 'new-b'],
      );
      assert.deepEqual(
        (await storage.customApis.list('tok_c1')).map((r) => [
          r.api,
          r.hash,
          (r.ruleset.rules as { value: string }[])[0].value,
        ]),
        [
          ['/api/product', 'hash-3', 'kept pair'],
          ['/api/recipes', 'new-b', 'new pair'],
        ],
      );
      assert.equal((await storage.customApis.list('tok_c2')).length, 1, 'other tokens are untouched');
    });

    test('replaceAll that fails changes nothing', async () => {
      await assert.rejects(() =>
        storage.customApis.replaceAll('tok_c1', [
          write('/api/a', '1', 'r-1', 'x'),
          write('/api/a', '1', 'r-2', 'duplicate pair'),
        ]),
      );
      assert.deepEqual(
        (await storage.customApis.list('tok_c1')).map((r) => r.hash),
        ['hash-3', 'new-b'],
      );
    });

    test('replaceAll with nothing removes every rule set of the token', async () => {
      assert.deepEqual(await storage.customApis.replaceAll('tok_c3', []), []);
      await storage.customApis.save('tok_c3', write('/api/x', 'y', 'hash-c3', 'x'));
      await storage.customApis.replaceAll('tok_c3', []);
      assert.deepEqual(await storage.customApis.list('tok_c3'), []);
    });

    test('delete removes one rule set of one token and returns it', async () => {
      assert.equal(
        await storage.customApis.delete('tok_c2', '/api/recipes', 'r\\.com'),
        undefined,
        "another token's set",
      );
      const deleted = await storage.customApis.delete('tok_c1', '/api/recipes', 'r\\.com');
      assert.equal(deleted?.hash, 'new-b');
      assert.equal(await storage.customApis.delete('tok_c1', '/api/recipes', 'r\\.com'), undefined);
      assert.deepEqual(
        (await storage.customApis.list('tok_c1')).map((r) => r.hash),
        ['hash-3'],
      );
    });

    test('keeps unicode and regex metacharacters intact', async () => {
      const pattern = '^https?://(www\\.)?exämple\\.com/[^?]+\\?q=日本$';
      const saved = await storage.customApis.save(
        'tok_c2',
        write('/api/article', pattern, 'hash-u', 'ünïcödé'),
      );
      assert.equal(saved.urlPattern, pattern);
      assert.equal(
        (await storage.customApis.listByApi('tok_c2', ['/api/article'])).find((r) => r.hash === 'hash-u')
          ?.urlPattern,
        pattern,
      );
    });
  });
}

/**
 * Storage contract for the origin fetches of refresh and search (`OriginFetchStore`). Every
 * adapter runs it from its test file (`test/sqlite-storage.test.ts` for the embedded store).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { OriginFetchRecord, Storage } from '../src/storage/index.ts';
import type { OpenStorage } from './storage-contract.ts';

function fetched(
  url: string,
  fetchedAt: number,
  overrides: Partial<OriginFetchRecord> = {},
): OriginFetchRecord {
  return { url, fetchedAt, hasResult: true, httpStatus: 200, message: 'fetched', ...overrides };
}

export function runOriginFetchStoreContract(adapter: string, open: OpenStorage): void {
  describe(`storage contract: ${adapter}: origin fetches`, () => {
    let storage: Storage;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ storage, cleanup } = await open());
    });
    after(async () => cleanup());

    test('records fetches and reads back those asked for', async () => {
      await storage.originFetches.record([
        fetched('https://a.example/', 1_000),
        fetched('https://b.example/about', 2_000, { hasResult: false, httpStatus: 404, message: 'HTTP 404' }),
        fetched('https://c.example/', 3_000, { httpStatus: null, message: 'robots.txt disallows it' }),
      ]);
      const found = await storage.originFetches.lastFetches([
        'https://a.example/',
        'https://b.example/about',
        'https://c.example/',
        'https://unknown.example/',
      ]);
      assert.equal(found.size, 3);
      assert.deepEqual(found.get('https://a.example/'), fetched('https://a.example/', 1_000));
      assert.deepEqual(found.get('https://b.example/about'), {
        url: 'https://b.example/about',
        fetchedAt: 2_000,
        hasResult: false,
        httpStatus: 404,
        message: 'HTTP 404',
      });
      assert.equal(found.get('https://c.example/')?.httpStatus, null);
      assert.equal(found.has('https://unknown.example/'), false);
    });

    test('a later record of a URL replaces the earlier one', async () => {
      await storage.originFetches.record([fetched('https://d.example/', 5_000)]);
      await storage.originFetches.record([
        fetched('https://d.example/', 9_000, { hasResult: false, message: 'no entity on the page' }),
      ]);
      const found = await storage.originFetches.lastFetches(['https://d.example/']);
      assert.equal(found.get('https://d.example/')?.fetchedAt, 9_000);
      assert.equal(found.get('https://d.example/')?.hasResult, false);
      assert.equal(found.get('https://d.example/')?.message, 'no entity on the page');
    });

    test('looks up more URLs than one statement binds, and repeated URLs once', async () => {
      const many = Array.from({ length: 1_200 }, (_, i) => fetched(`https://many.example/${i}`, i));
      await storage.originFetches.record(many);
      const urls = [...many.map((m) => m.url), 'https://many.example/7', 'https://nowhere.example/'];
      const found = await storage.originFetches.lastFetches(urls);
      assert.equal(found.size, 1_200);
      assert.equal(found.get('https://many.example/1199')?.fetchedAt, 1_199);
      assert.deepEqual(await storage.originFetches.lastFetches([]), new Map());
    });
  });
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CompiledFilters } from './compiled-filters.ts';

test('compiled filters are remembered, and bounded by bytes: long filters evict, ordinary ones stay', () => {
  const bound = 64 * 1024;
  const filters = new CompiledFilters(bound);
  const ordinary = filters.of('name;homepageUri', undefined);
  assert.ok(ordinary);
  assert.equal(filters.of('name;homepageUri', undefined), ordinary, 'remembered: the same compiled filter');
  assert.equal(filters.of(undefined, ''), undefined, 'no paths: no filtering');
  for (let i = 0; i < 20; i++) filters.of(`name;f${i}`, undefined);
  assert.equal(filters.of('name;homepageUri', undefined), ordinary, '21 ordinary filters fit the bound');
  // A filter of 300 paths (~2,100 characters, ~135 KB estimated) is more than the bound alone
  // and is not kept; forty of 12 paths (~90 characters, ~7 KB each) push the oldest out.
  const long = (n: number, i: number) => Array.from({ length: n }, (_, j) => `f${i}_${j}`).join(';');
  filters.of(long(300, 0), undefined);
  assert.ok(filters.bytes <= bound);
  assert.equal(filters.of('name;homepageUri', undefined), ordinary, 'a filter over the bound is not kept');
  for (let i = 1; i <= 40; i++) filters.of(long(12, i), undefined);
  assert.ok(filters.bytes <= bound, `${filters.bytes} > ${bound}`);
  assert.ok(filters.size < 30, `${filters.size} kept`);
  assert.notEqual(filters.of('name;homepageUri', undefined), ordinary, 'evicted by bytes');
  assert.throws(() => filters.of('name;$[', undefined), /filter/);
});

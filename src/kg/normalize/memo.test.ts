import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedMemo } from './memo.ts';

test('BoundedMemo computes each key once, remembers undefined too, and starts over when full', () => {
  // Each entry of a one-letter key and value: 48 + 2 + 2 bytes; three fit in 160.
  const memo = new BoundedMemo<string | undefined>(160, () => 2);
  let computed = 0;
  const get = (key: string) =>
    memo.get(key, () => {
      computed++;
      return key === 'none' ? 'N' : key.toUpperCase();
    });
  assert.equal(get('a'), 'A');
  assert.equal(get('a'), 'A');
  assert.equal(computed, 1);
  get('b');
  get('c');
  assert.equal(computed, 3);
  assert.equal(memo.bytes, 156);
  // Full: the next new key drops the others, which are then computed again.
  get('d');
  assert.equal(computed, 4);
  get('d');
  assert.equal(computed, 4);
  get('a');
  assert.equal(computed, 5);
});

test('BoundedMemo is bounded by bytes: long keys take their room, one too large is not kept', () => {
  const memo = new BoundedMemo<string>(64 * 1024);
  for (let i = 0; i < 1_000; i++) memo.get(`${i}-${'x'.repeat(10_000)}`, () => 'v');
  assert.ok(memo.bytes <= 64 * 1024, String(memo.bytes));
  let computed = 0;
  const huge = 'y'.repeat(100_000);
  memo.get(huge, () => String(++computed));
  memo.get(huge, () => String(++computed));
  assert.equal(computed, 2, 'a key larger than the bound is computed each time, never kept');
  assert.ok(memo.bytes <= 64 * 1024);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedMemo } from './memo.ts';

test('BoundedMemo computes each key once, remembers undefined too, and starts over when full', () => {
  const memo = new BoundedMemo<string | undefined>(3);
  let computed = 0;
  const get = (key: string) =>
    memo.get(key, () => {
      computed++;
      return key === 'none' ? undefined : key.toUpperCase();
    });
  assert.equal(get('a'), 'A');
  assert.equal(get('a'), 'A');
  assert.equal(get('none'), undefined);
  assert.equal(get('none'), undefined);
  assert.equal(computed, 2);
  get('b');
  assert.equal(computed, 3);
  // Full (3 keys): the next new key drops the others, which are then computed again.
  get('c');
  assert.equal(computed, 4);
  get('c');
  assert.equal(computed, 4);
  get('a');
  assert.equal(computed, 5);
});

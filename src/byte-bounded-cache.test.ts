import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ByteBoundedCache } from './byte-bounded-cache.ts';

const bySize = (value: string) => value.length;

test('the bound is in bytes: large entries push out many small ones, least recently used first', () => {
  const cache = new ByteBoundedCache<string, string>(100, bySize);
  for (let i = 0; i < 10; i++) cache.set(`k${i}`, 'x'.repeat(10));
  assert.equal(cache.size, 10);
  assert.equal(cache.bytes, 100);
  cache.get('k0'); // k0 is now the most recent: k1 goes first
  cache.set('big', 'y'.repeat(35));
  assert.ok(cache.bytes <= 100);
  assert.equal(cache.has('k0'), true);
  assert.deepEqual(
    ['k1', 'k2', 'k3', 'k4'].map((k) => cache.has(k)),
    [false, false, false, false],
  );
  assert.equal(cache.get('big'), 'y'.repeat(35));
  assert.equal(cache.bytes, 95);
});

test('an entry larger than the bound is not kept; replacing an entry counts its new size', () => {
  const cache = new ByteBoundedCache<string, string>(50, bySize);
  cache.set('a', 'x'.repeat(20));
  cache.set('huge', 'z'.repeat(51));
  assert.equal(cache.has('huge'), false);
  assert.equal(cache.bytes, 20);
  cache.set('a', 'x'.repeat(5));
  assert.equal(cache.bytes, 5);
  cache.delete('a');
  assert.equal(cache.bytes, 0);
  assert.equal(cache.size, 0);
});

test('a million distinct entries stay within the bound', () => {
  const cache = new ByteBoundedCache<number, string>(64 * 1024, (v) => 16 + v.length);
  for (let i = 0; i < 1_000_000; i++) cache.set(i, `value-${i}`);
  assert.ok(cache.bytes <= 64 * 1024);
  assert.ok(cache.size > 1_000 && cache.size < 5_000, String(cache.size));
  assert.equal(cache.get(999_999), 'value-999999');
});

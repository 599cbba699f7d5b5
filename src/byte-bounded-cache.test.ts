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

test('gets, sets and deletes in any order keep the entries a plain least-recently-used list keeps', () => {
  const cache = new ByteBoundedCache<number, string>(60, bySize);
  // The reference: a Map whose insertion order is the recency, oldest dropped first.
  const reference = new Map<number, string>();
  const referenceBytes = () => [...reference.values()].reduce((n, v) => n + v.length, 0);
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 48271) % 2147483647;
    return seed % n;
  };
  for (let step = 0; step < 5_000; step++) {
    const key = next(12);
    const op = next(10);
    if (op < 4) {
      const want = reference.get(key);
      if (want !== undefined) {
        reference.delete(key);
        reference.set(key, want);
      }
      assert.equal(cache.get(key), want, `get ${key} at step ${step}`);
    } else if (op < 9) {
      const value = 'v'.repeat(1 + next(25));
      reference.delete(key);
      reference.set(key, value);
      for (const [oldest] of reference) {
        if (referenceBytes() <= 60) break;
        reference.delete(oldest);
      }
      cache.set(key, value);
    } else {
      assert.equal(cache.delete(key), reference.delete(key));
    }
    assert.equal(cache.size, reference.size);
    assert.equal(cache.bytes, referenceBytes());
  }
  for (const [key, value] of reference) assert.equal(cache.peek(key), value);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Random } from '../random.ts';
import { Vocabulary } from './vocabulary.ts';

test('vocabulary weighs rare tokens more and finds typo neighbours, most frequent first', () => {
  const vocabulary = new Vocabulary(
    new Map([
      ['university', 500],
      ['salamanca', 1],
      ['oxford', 3],
      ['oxfords', 1],
      ['guadalajara', 2],
    ]),
    1000,
  );
  assert.ok(vocabulary.idf('salamanca') > vocabulary.idf('university'));
  assert.equal(vocabulary.count('nowhere'), 0);
  assert.deepEqual(vocabulary.neighbours('oxfrod'), ['oxford']);
  assert.deepEqual(vocabulary.neighbours('oxford'), ['oxfords']);
  // Two edits, for long tokens only.
  assert.deepEqual(vocabulary.neighbours('salaamanxa'), ['salamanca']);
  assert.deepEqual(vocabulary.neighbours('guadzpajara'), ['guadalajara']);
  assert.deepEqual(vocabulary.neighbours('oxf'), []);
});

/** Every vocabulary token one edit from `token`, spelled out as strings (the plain way). */
function oneEditNeighbours(token: string, counts: ReadonlyMap<string, number>, limit: number): string[] {
  const found = new Map<string, number>();
  const consider = (candidate: string) => {
    const n = counts.get(candidate);
    if (candidate !== token && n !== undefined) found.set(candidate, n);
  };
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i < token.length; i++) {
    consider(token.slice(0, i) + token.slice(i + 1));
    if (i + 1 < token.length) consider(token.slice(0, i) + token[i + 1] + token[i] + token.slice(i + 2));
    for (const ch of letters) consider(token.slice(0, i) + ch + token.slice(i + 1));
  }
  for (let i = 0; i <= token.length; i++)
    for (const ch of letters) consider(token.slice(0, i) + ch + token.slice(i));
  return [...found.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([candidate]) => candidate);
}

test('typo neighbours are every token one edit away, as spelling each variant out finds them', () => {
  const random = new Random(11);
  // Few letters, so that one-edit neighbours are common; some non-ASCII and astral code units.
  const alphabet = ['a', 'b', 'c', 'd', 'e', 'é', 'ж', '𝔸'];
  const word = (length: number) => Array.from({ length }, () => random.pick(alphabet)).join('');
  const counts = new Map<string, number>();
  while (counts.size < 3000) counts.set(word(3 + random.int(5)), 1 + random.int(50));
  const vocabulary = new Vocabulary(counts, 10_000);
  let compared = 0;
  for (let round = 0; round < 3000; round++) {
    const token = random.chance(0.5) ? random.pick([...counts.keys()]) : word(4 + random.int(4));
    if (token.length < 4) continue;
    const limit = 1 + random.int(6);
    const expected = oneEditNeighbours(token, counts, limit);
    // Without one-edit neighbours, long tokens fall back to two edits (tested above).
    if (expected.length === 0 && token.length >= 6) continue;
    assert.deepEqual(vocabulary.neighbours(token, limit), expected, token);
    compared++;
  }
  assert.ok(compared > 1000, `${compared} tokens compared`);
});

test('remembered neighbours are bounded by bytes: long tokens evict, ordinary ones stay remembered', () => {
  const counts = new Map([
    ['oxford', 3],
    ['oxfords', 1],
  ]);
  const bound = 4_000;
  const vocabulary = new Vocabulary(counts, 1000, bound);
  const first = vocabulary.neighbours('oxfrod');
  assert.deepEqual(first, ['oxford']);
  // Remembered: the same array again.
  assert.equal(vocabulary.neighbours('oxfrod'), first);
  for (let i = 0; i < 20; i++) vocabulary.neighbours(`ordinary${i}`);
  assert.equal(vocabulary.neighbours('oxfrod'), first, '21 ordinary tokens fit the bound');
  // 60-character tokens (~190 bytes each) push the least recently used out by their bytes.
  for (let i = 0; i < 40; i++) vocabulary.neighbours(`${'z'.repeat(58)}${String(i).padStart(2, '0')}`);
  assert.ok(vocabulary.neighbourCacheBytes <= bound, `${vocabulary.neighbourCacheBytes} > ${bound}`);
  assert.ok(vocabulary.neighbourCacheBytes > bound / 2);
  assert.notEqual(vocabulary.neighbours('oxfrod'), first, 'evicted');
  assert.deepEqual(vocabulary.neighbours('oxfrod'), ['oxford'], 'and found again');
});

test('tokens longer than 64 characters get no typo neighbours (their look-up is quadratic)', () => {
  const long = 'a'.repeat(64);
  const vocabulary = new Vocabulary(new Map([[`${long}b`, 1]]), 10);
  assert.deepEqual(vocabulary.neighbours(long), [`${long}b`], '64 characters: looked up');
  // Was ~2 s of CPU for a 2,000-character token (idle core); 66 characters would find `${long}b`.
  assert.deepEqual(vocabulary.neighbours(`${long}bb`), [], '66 characters: not looked up');
  assert.deepEqual(vocabulary.neighbours('q'.repeat(2_000)), []);
});

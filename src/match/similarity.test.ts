import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Random } from '../random.ts';
import { bestTokenMatches, editDistance, jaroWinkler, tokenSimilarity } from './similarity.ts';

test('jaroWinkler matches the textbook values', () => {
  assert.equal(jaroWinkler('martha', 'martha'), 1);
  assert.ok(Math.abs(jaroWinkler('martha', 'marhta') - 0.9611) < 0.001);
  assert.ok(Math.abs(jaroWinkler('dixon', 'dicksonx') - 0.8133) < 0.001);
  assert.equal(jaroWinkler('abc', ''), 0);
});

test('jaroWinkler is the textbook loop exactly: short ASCII strings by bit masks, any others by the loop', () => {
  // The reference: the window scanned for each character of `a`, flags in arrays.
  const reference = (a: string, b: string): number => {
    if (a === b) return 1;
    if (a.length === 0 || b.length === 0) return 0;
    const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
    const inA = new Array<boolean>(a.length).fill(false);
    const inB = new Array<boolean>(b.length).fill(false);
    let m = 0;
    for (let i = 0; i < a.length; i++) {
      for (let j = Math.max(0, i - window); j <= Math.min(i + window, b.length - 1); j++) {
        if (!inB[j] && a[i] === b[j]) {
          inA[i] = inB[j] = true;
          m++;
          break;
        }
      }
    }
    if (m === 0) return 0;
    let t = 0;
    for (let i = 0, k = 0; i < a.length; i++) {
      if (!inA[i]) continue;
      while (!inB[k]) k++;
      if (a[i] !== b[k++]) t++;
    }
    const jaro = (m / a.length + m / b.length + (m - t / 2) / m) / 3;
    let prefix = 0;
    while (prefix < 4 && prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
    return jaro + prefix * 0.1 * (1 - jaro);
  };
  const random = new Random(3);
  // Few letters, so that characters repeat and match across the window; a letter beyond ASCII
  // now and then; lengths about the 32 the masks hold, in either string.
  const alphabets = ['ab', 'abc', 'abcde .', 'abcdefghijklmnopqrstuvwxyz', 'aäeé.@'];
  const word = (letters: string, length: number) =>
    Array.from({ length }, () => letters[random.int(letters.length)]).join('');
  for (let n = 0; n < 20_000; n++) {
    const letters = alphabets[random.int(alphabets.length)];
    const a = word(letters, random.int(36));
    // Half the pairs alike: `a` with a few characters replaced, or moved along.
    const b =
      random.int(2) === 0
        ? word(letters, random.int(36))
        : [...a].map((c) => (random.int(5) === 0 ? letters[random.int(letters.length)] : c)).join('') +
          word(letters, random.int(3));
    assert.equal(jaroWinkler(a, b), reference(a, b), `${a} | ${b}`);
    assert.equal(jaroWinkler(b, a), reference(b, a), `${b} | ${a}`);
  }
  for (const [a, b] of [
    ['a'.repeat(32), 'a'.repeat(32)],
    ['a'.repeat(32), `${'a'.repeat(31)}b`],
    [`b${'a'.repeat(31)}`, `${'a'.repeat(31)}b`],
    ['ada.hoffmann84@lebomivo.example', 'ada.hofmann@lebomivo.example'],
    ['müller', 'muller'],
  ])
    assert.equal(jaroWinkler(a, b), reference(a, b), `${a} | ${b}`);
});

test('editDistance counts transpositions as one edit and stops early', () => {
  assert.equal(editDistance('lyon', 'lyonn'), 1);
  assert.equal(editDistance('trinity', 'triity'), 1);
  assert.equal(editDistance('wright', 'wrihgt'), 1);
  assert.equal(editDistance('abcdef', 'uvwxyz', 2), 3);
});

test('tokenSimilarity tolerates typos on long tokens and prefix abbreviations, not on short ones', () => {
  assert.equal(tokenSimilarity('oxford', 'oxford'), 1);
  assert.equal(tokenSimilarity('oxfrod', 'oxford'), 0.85);
  assert.equal(tokenSimilarity('theol', 'theological'), 0.7);
  assert.equal(tokenSimilarity('ab', 'ac'), 0);
  assert.deepEqual(bestTokenMatches(['new', 'yrok'], ['new', 'york', 'city']), [1, 0.85]);
});

test('editDistance is the full optimal-string-alignment distance when at most max, else max + 1', () => {
  // The reference: every cell of the table, no band and no early stop.
  const reference = (a: string, b: string): number => {
    const d = Array.from({ length: a.length + 1 }, (_, i) =>
      Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
    );
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        d[i][j] = Math.min(
          d[i - 1][j] + 1,
          d[i][j - 1] + 1,
          d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
        );
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
    return d[a.length][b.length];
  };
  let seed = 5;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * n);
  };
  // Words and their typos (edits, swaps) over a small alphabet, so that near pairs are common.
  const word = () => Array.from({ length: next(12) }, () => 'abcde@.'[next(7)]).join('');
  const typo = (w: string) => {
    let out = w;
    for (let k = next(5); k > 0; k--) {
      const at = next(out.length + 1);
      const op = next(4);
      if (op === 0) out = out.slice(0, at) + 'abc'[next(3)] + out.slice(at);
      else if (op === 1) out = out.slice(0, at) + out.slice(at + 1);
      else if (op === 2) out = out.slice(0, at) + 'xyz'[next(3)] + out.slice(at + 1);
      else out = out.slice(0, at) + out.slice(at + 1, at + 2) + out.slice(at, at + 1) + out.slice(at + 2);
    }
    return out;
  };
  const seen = new Set<number>();
  for (let i = 0; i < 20_000; i++) {
    const a = word();
    const b = next(4) === 0 ? word() : typo(a);
    const max = 1 + next(3);
    const expected = Math.min(reference(a, b), max + 1);
    assert.equal(editDistance(a, b, max), expected, `${a} / ${b} / ${max}`);
    seen.add(expected);
  }
  assert.deepEqual([...seen].sort(), [0, 1, 2, 3, 4]);
});

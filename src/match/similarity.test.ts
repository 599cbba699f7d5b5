import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bestTokenMatches, editDistance, jaroWinkler, tokenSimilarity } from './similarity.ts';

test('jaroWinkler matches the textbook values', () => {
  assert.equal(jaroWinkler('martha', 'martha'), 1);
  assert.ok(Math.abs(jaroWinkler('martha', 'marhta') - 0.9611) < 0.001);
  assert.ok(Math.abs(jaroWinkler('dixon', 'dicksonx') - 0.8133) < 0.001);
  assert.equal(jaroWinkler('abc', ''), 0);
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

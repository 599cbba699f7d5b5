import assert from 'node:assert/strict';
import { test } from 'node:test';
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

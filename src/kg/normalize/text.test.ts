import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldText, textTokens } from './text.ts';

test('foldText folds accents and special letters and lowercases', () => {
  assert.equal(foldText('Fundação Hermínio Ometto'), 'fundacao herminio ometto');
  assert.equal(foldText('Øresund Straße'), 'oresund strasse');
  assert.equal(foldText('Łódź'), 'lodz');
});

test('textTokens splits on punctuation, joins apostrophes and spells out &', () => {
  assert.deepEqual(textTokens("St. Mary's College & Seminary"), [
    'st',
    'marys',
    'college',
    'and',
    'seminary',
  ]);
  assert.deepEqual(textTokens('  --  '), []);
});

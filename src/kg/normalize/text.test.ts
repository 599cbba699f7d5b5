import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Random } from '../../random.ts';
import { foldText, sortedDistinct, textTokens } from './text.ts';

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

test('textTokens gives plain ASCII text the same tokens as the general (Unicode) path', () => {
  // Every printable ASCII character, alone and between words: appending a non-ASCII word sends
  // the same text down the general path, whose tokens must then be the ASCII path's plus one.
  const samples = ["O'Brien & Sons-Ltd. (42)", 'a`b', 'x_y', 'AT&T', '', '   '];
  for (let code = 32; code < 127; code++) samples.push(`ab${String.fromCharCode(code)}cd`);
  // And seeded random strings over the characters the rules treat specially.
  const random = new Random(7);
  const alphabet = "aZq09'`&& .-_/\t,";
  for (let n = 0; n < 3000; n++) {
    let sample = '';
    for (let length = random.int(12); length > 0; length--) sample += alphabet[random.int(alphabet.length)];
    samples.push(sample);
  }
  for (const sample of samples) {
    assert.deepEqual([...textTokens(sample), 'ete'], textTokens(`${sample} été`), JSON.stringify(sample));
  }
});

test('sortedDistinct gives the distinct tokens in code-unit order, like a Set then sort()', () => {
  const cases = [
    [],
    ['acme'],
    ['b', 'a'],
    ['a', 'b'],
    ['a', 'a'],
    ['Zeta', 'alpha'],
    ['é', 'e'],
    ['𝔸', 'ｚ'],
    ['c', 'a', 'b', 'a'],
    ['x', 'x', 'x'],
  ];
  for (const tokens of cases) {
    assert.deepEqual(sortedDistinct(tokens), [...new Set(tokens)].sort(), JSON.stringify(tokens));
  }
  const random = new Random(7);
  const alphabet = ['a', 'b', 'ab', 'B', 'ä', '1', ''];
  for (let round = 0; round < 500; round++) {
    const tokens = Array.from({ length: random.int(4) }, () => alphabet[random.int(alphabet.length)]);
    assert.deepEqual(sortedDistinct(tokens), [...new Set(tokens)].sort(), JSON.stringify(tokens));
  }
});

test('foldText reads Greek and Cyrillic look-alikes inside a Latin word as Latin letters', () => {
  // Cyrillic о in "Tоm", Greek Α in "SΑS", Cyrillic Н starting "Нana".
  assert.equal(foldText('T\u043em S\u0391S \u041dana'), 'tom sas hana');
  // Greek lunate sigma for the c of "Acme" (NFKD folds it to ς before the table is read).
  assert.equal(foldText('A\u03f2me'), 'acme');
  // A word in one script is kept: Greek and Cyrillic names are not rewritten.
  assert.equal(foldText('Σοφία Иван'), 'σοφια иван');
});

test('textTokens drops invisible characters and reads every apostrophe as one', () => {
  assert.deepEqual(textTokens('Fek\u200bozepi\u00a0Capital\ufeff'), ['fekozepi', 'capital']);
  for (const apostrophe of ["'", '’', '`', '´', 'ʼ'])
    assert.deepEqual(textTokens(`Zoë O${apostrophe}Brien`), ['zoe', 'obrien'], apostrophe);
});

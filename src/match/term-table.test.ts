import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TermTable } from './term-table.ts';

test('a term table finds every term with its count, and nothing else', () => {
  const entries: [string, number][] = [
    ['acme', 3],
    ['globex', 1],
    ['zürich', 7],
    ['日本', 2],
    ['a', 9],
    // Longer than the buffer `get` starts with.
    ['l'.repeat(200), 4],
  ];
  for (let i = 0; i < 5000; i++) entries.push([`t${i.toString(36)}x`, i]);
  const table = TermTable.build(entries);
  assert.equal(table.size, entries.length);
  for (const [term, count] of entries) assert.equal(table.get(term), count, term);
  for (const absent of ['', 'acm', 'acmee', 'zurich', 'globeX', 't0', '日', 'l'.repeat(199)])
    assert.equal(table.get(absent), undefined);
  // The same lookups by code units (the buffer may be longer than the term).
  const codes = new Uint16Array(300);
  for (const [term, count] of [...entries.slice(0, 6), ['acmee', undefined] as const]) {
    for (let j = 0; j < term.length; j++) codes[j] = term.charCodeAt(j);
    assert.equal(table.getCodes(codes, term.length), count, term);
  }
  // Terms are stored by first letter and length: a bucket holds exactly those.
  const [start, end] = table.bucket('t'.charCodeAt(0), 3);
  assert.ok(end > start);
  for (let i = start; i < end; i++) {
    assert.equal(table.term(i).length, 3);
    assert.equal(table.term(i)[0], 't');
    assert.equal(table.count(i), table.get(table.term(i)));
  }
  assert.deepEqual(table.bucket('q'.charCodeAt(0), 4), [0, 0]);
});

test('an empty table and a table rebuilt from its shared data answer the same', () => {
  // A term stated twice keeps its first count.
  const repeated = TermTable.build([
    ['oxford', 3],
    ['oxford', 9],
  ]);
  assert.equal(repeated.size, 1);
  assert.equal(repeated.get('oxford'), 3);
  const empty = TermTable.build([]);
  assert.equal(empty.size, 0);
  assert.equal(empty.get('x'), undefined);
  const table = TermTable.build([
    ['oxford', 3],
    ['oxfords', 1],
  ]);
  const again = new TermTable(structuredClone(table.data));
  assert.equal(again.get('oxford'), 3);
  assert.equal(again.get('oxfords'), 1);
  // The buffers are shared, not copied.
  assert.ok(again.data.chars.buffer instanceof SharedArrayBuffer);
});

test("a lookup that a slot's tag turns away is no term: every one-edit variant of 20,000 terms answers as a Map does", () => {
  // Slots hold a tag of the term's hash beside its index; a table of many terms fills the
  // slots well, so variants meet many other terms' slots on their way to an empty one.
  const words = new Map<string, number>();
  let seed = 7;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  while (words.size < 20_000) {
    let word = '';
    const length = 4 + Math.floor(random() * 6);
    for (let i = 0; i < length; i++) word += 'abcdefghij'[Math.floor(random() * 10)];
    words.set(word, words.size + 1);
  }
  const table = TermTable.build(words);
  let found = 0;
  let absent = 0;
  for (const word of [...words.keys()].slice(0, 2000)) {
    for (let i = 0; i < word.length; i++) {
      for (const letter of 'abcdefghijk') {
        const variant = word.slice(0, i) + letter + word.slice(i + 1);
        const expected = words.get(variant);
        assert.equal(table.get(variant), expected, variant);
        if (expected === undefined) absent++;
        else found++;
      }
    }
  }
  // Both kinds of answer were asked for many times.
  assert.ok(found > 1000 && absent > 1000, `${found} found, ${absent} absent`);
});

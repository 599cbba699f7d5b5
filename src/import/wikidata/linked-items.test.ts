import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ItemSet, LinkedItems, placeholder } from './linked-items.ts';

test('ItemSet holds numbers up to Wikidata’s range, growing as needed', () => {
  const set = new ItemSet();
  for (const n of [1, 5, 5, 140_000_000, 524_288]) set.add(n);
  assert.equal(set.size, 4);
  for (const n of [1, 5, 140_000_000, 524_288]) assert.equal(set.has(n), true);
  for (const n of [2, 6, 139_999_999, 300_000_000]) assert.equal(set.has(n), false);
});

test('placeholders resolve by kind: imported entities by id, others by label, unknown labels drop', () => {
  const linked = new LinkedItems();
  linked.learn(95, 'Google', 'Organization');
  linked.learn(42, 'Douglas "DNA" Adams', 'Person');
  linked.learn(30, 'United States of America', undefined);
  linked.learn(7, undefined, 'Organization');
  const json = JSON.stringify({
    employer: placeholder(95, 'o'),
    ceo: placeholder(42, 'o'),
    other: placeholder(30, 'o'),
    nameless: placeholder(7, 'o'),
    missing: placeholder(8, 'o'),
    country: placeholder(30, 'p'),
    city: placeholder(8, 'p'),
    industries: [placeholder(30, 'l'), placeholder(8, 'l')],
    note: 'text with {"$wd":"Q95","k":"o"} inside a string stays',
  });
  assert.deepEqual(JSON.parse(linked.substitute(json)), {
    employer: { name: 'Google', id: 'Q95', type: 'Organization' },
    ceo: { name: 'Douglas "DNA" Adams', id: 'Q42', type: 'Person' },
    other: { name: 'United States of America', wikidataId: 'Q30' },
    nameless: { id: 'Q7', type: 'Organization' },
    missing: { wikidataId: 'Q8' },
    country: { name: 'United States of America' },
    city: null,
    industries: ['United States of America', null],
    note: 'text with {"$wd":"Q95","k":"o"} inside a string stays',
  });
  assert.equal(linked.substitute('{"id":"Q1"}'), '{"id":"Q1"}');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClassListError, EntitySelector, parseClassList, shippedOrganizationClasses } from './selection.ts';

test('the shipped organization classes include the usual ones, once each, and not humans', () => {
  const classes = shippedOrganizationClasses();
  for (const n of [43229, 4830453, 783794, 891723, 3918, 163740, 327333])
    assert.ok(classes.includes(n), `Q${n}`);
  assert.equal(new Set(classes).size, classes.length);
  assert.equal(classes.includes(5), false);
});

test('class lists: JSON like the shipped file, a JSON array, or text with comments', () => {
  assert.deepEqual(parseClassList('{"classes":[{"id":"Q3918","label":"university"}]}', 'f'), [3918]);
  assert.deepEqual(parseClassList('["Q3918", {"id":"Q43229"}]', 'f'), [3918, 43229]);
  assert.deepEqual(
    parseClassList('# universities\nQ3918 university\n\nQ189004, college\n', 'f'),
    [3918, 189004],
  );
  assert.throws(
    () => parseClassList('Q3918\nbusiness\n', 'list.txt'),
    /list\.txt: item 2 is not a Wikidata item id/,
  );
  assert.throws(() => parseClassList('{"classes": 3}', 'f'), ClassListError);
  assert.throws(() => parseClassList('{oops', 'f'), /invalid JSON/);
  assert.throws(() => parseClassList('# nothing\n', 'f'), /empty/);
});

test('a human is a Person whatever else it is; an instance of an organization class an Organization', () => {
  const selector = new EntitySelector([4830453, 3918]);
  assert.equal(selector.typeOf([15632617, 5]), 'Person');
  assert.equal(selector.typeOf([891723, 4830453]), 'Organization');
  assert.equal(selector.typeOf([891723]), undefined);
  assert.equal(selector.typeOf([]), undefined);
});

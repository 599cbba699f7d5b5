import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADA } from '../../test/export-fixtures.ts';
import { InvalidParameterError } from '../errors.ts';
import { compileEntityPath } from './entity-path.ts';

function values(path: string, root: unknown = ADA): unknown[] {
  return compileEntityPath(path, 'filter').values(root);
}

function locations(path: string, root: unknown = ADA): (string | number)[][] {
  const out: (string | number)[][] = [];
  compileEntityPath(path, 'filter').visit(root, (location) => out.push([...location]));
  return out;
}

describe('dot paths', () => {
  test('a top-level field, a nested field, an absent field', () => {
    assert.deepEqual(values('name'), ['Ada Lovelace']);
    assert.deepEqual(values('location.city.name'), ['London']);
    assert.deepEqual(values('nbEmployees'), []);
    assert.deepEqual(values('location.nothing.name'), []);
  });

  test('a name applied to a list applies to each element, in order, skipping elements without it', () => {
    assert.deepEqual(values('employments.title'), ['Programmer', 'Correspondent']);
    assert.deepEqual(locations('employments.title'), [
      ['employments', 0, 'title'],
      ['employments', 1, 'title'],
    ]);
    assert.deepEqual(values('employments.employer.name'), [
      'Analytical Engine Co',
      'Royal Society',
      'Babbage Lab',
    ]);
  });

  test('a list field selects the whole list as one value', () => {
    assert.deepEqual(values('allNames'), [ADA.allNames]);
  });

  test('index, negative index, slices and [*]', () => {
    assert.deepEqual(values('allNames[0]'), ['Ada Lovelace']);
    assert.deepEqual(values('allNames[-1]'), ['A. A. L.']);
    assert.deepEqual(values('allNames[:2]'), ['Ada Lovelace', 'Augusta Ada King']);
    assert.deepEqual(values('allNames[1:3]'), ['Augusta Ada King', 'Countess of Lovelace']);
    assert.deepEqual(values('allNames[-2:]'), ['Countess of Lovelace', 'A. A. L.']);
    assert.deepEqual(values('allNames[10]'), []);
    assert.deepEqual(values('allNames[*]'), ADA.allNames);
    assert.deepEqual(values('employments[1].employer.name'), ['Royal Society']);
    assert.deepEqual(locations('employments[:2].title'), [
      ['employments', 0, 'title'],
      ['employments', 1, 'title'],
    ]);
  });

  test('a bracket step on something that is not a list selects nothing', () => {
    assert.deepEqual(values('name[0]'), []);
  });

  test('surrounding white space is ignored', () => {
    assert.deepEqual(values('  name '), ['Ada Lovelace']);
  });
});

describe('JSONPath (RFC 9535)', () => {
  test('$ is the entity; indices, filters, descendants, slices', () => {
    assert.deepEqual(values('$.locations[0].city.name'), ['London']);
    assert.deepEqual(values('$.employments[?(@.isCurrent)].title'), ['Programmer']);
    assert.deepEqual(values('$.employments[?@.isCurrent == false].employer.name'), ['Babbage Lab']);
    assert.deepEqual(values('$.allNames[:3]'), ['Ada Lovelace', 'Augusta Ada King', 'Countess of Lovelace']);
    assert.ok(values('$..name').includes('Royal Society'));
    assert.deepEqual(locations('$'), [[]]);
  });

  test('locations are the normalized paths of the nodes', () => {
    assert.deepEqual(locations('$.employments[?@.title]'), [
      ['employments', 0],
      ['employments', 1],
    ]);
  });
});

describe('invalid paths are a 400 naming the parameter and quoting the path', () => {
  for (const [path, reason] of [
    ['$.allNames[', /unclosed|bracket/i],
    ['$.a[?foo(@)]', /function/i],
    ['a..b', /empty name/],
    ['.a', /empty name/],
    ['allNames[x]', /not an index/],
    ['allNames[0', /unbalanced/],
    ['first name', /not a field name/],
    ['', /empty/],
  ] as const) {
    test(JSON.stringify(path), () => {
      assert.throws(
        () => compileEntityPath(path, 'filterExclude'),
        (error: unknown) =>
          error instanceof InvalidParameterError &&
          error.parameter === 'filterExclude' &&
          error.status === 400 &&
          error.message.includes(`'${path.trim()}'`) &&
          reason.test(error.message),
      );
    });
  }
});

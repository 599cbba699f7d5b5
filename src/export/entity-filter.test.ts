import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADA } from '../../test/export-fixtures.ts';
import { InvalidParameterError } from '../errors.ts';
import { applyEntityFilter, parseEntityFilter } from './entity-filter.ts';
import type { ExportEntity } from './result-record.ts';

function filtered(entity: ExportEntity, filter?: string, filterExclude?: string): ExportEntity {
  const compiled = parseEntityFilter(filter, filterExclude);
  assert.ok(compiled, 'expected a compiled filter');
  return applyEntityFilter(entity, compiled);
}

describe('parseEntityFilter', () => {
  test('absent or empty filters compile to undefined (no filtering)', () => {
    assert.equal(parseEntityFilter(), undefined);
    assert.equal(parseEntityFilter('', ''), undefined);
    assert.equal(parseEntityFilter(' ; ;', undefined), undefined);
  });

  test('an invalid path is a 400 naming the parameter and quoting the path', () => {
    assert.throws(
      () => parseEntityFilter('name;$.locations[', undefined),
      (error: unknown) =>
        error instanceof InvalidParameterError &&
        error.parameter === 'filter' &&
        error.message.includes("'$.locations['"),
    );
    assert.throws(
      () => parseEntityFilter('name', 'location..city'),
      (error: unknown) =>
        error instanceof InvalidParameterError &&
        error.parameter === 'filterExclude' &&
        error.message.includes("'location..city'"),
    );
  });

  test('; inside a JSONPath string literal does not split the list', () => {
    const compiled = parseEntityFilter("$.employments[?@.title == 'a;b'];name");
    assert.equal(compiled?.keep?.length, 2);
  });
});

describe('filter (keep)', () => {
  test('dot paths keep the structure, and id and type are always kept', () => {
    assert.deepEqual(filtered(ADA, 'name;location.city.name'), {
      id: 'PER-ada',
      type: 'Person',
      name: 'Ada Lovelace',
      location: { city: { name: 'London' } },
    });
  });

  test('a dot path through a list keeps every element that has the field, in order', () => {
    assert.deepEqual(filtered(ADA, 'employments.title'), {
      id: 'PER-ada',
      type: 'Person',
      employments: [{ title: 'Programmer' }, { title: 'Correspondent' }],
    });
  });

  test('JSONPath: an index, a filter expression, a slice', () => {
    assert.deepEqual(filtered(ADA, '$.locations[1]'), {
      id: 'PER-ada',
      type: 'Person',
      locations: [{ city: { name: 'Ockham' }, country: { name: 'United Kingdom' } }],
    });
    assert.deepEqual(filtered(ADA, '$.employments[?@.isCurrent == true].employer.name'), {
      id: 'PER-ada',
      type: 'Person',
      employments: [{ employer: { name: 'Analytical Engine Co' } }],
    });
    // RFC 9535 §2.3.5.2.2: a bare `@.isCurrent` tests existence, so `isCurrent: false` matches too.
    assert.deepEqual(filtered(ADA, '$.employments[?(@.isCurrent)].employer.name').employments, [
      { employer: { name: 'Analytical Engine Co' } },
      { employer: { name: 'Babbage Lab' } },
    ]);
    assert.deepEqual(filtered(ADA, '$.allNames[:2]'), {
      id: 'PER-ada',
      type: 'Person',
      allNames: ['Ada Lovelace', 'Augusta Ada King'],
    });
  });

  test('$..name keeps every name at any depth, each in its place', () => {
    const result = filtered(ADA, '$..name');
    assert.equal(result.name, 'Ada Lovelace');
    assert.deepEqual(result.location, { city: { name: 'London' }, country: { name: 'United Kingdom' } });
    assert.deepEqual(result.employments, [
      { employer: { name: 'Analytical Engine Co' } },
      { employer: { name: 'Royal Society' } },
      { employer: { name: 'Babbage Lab' } },
    ]);
    assert.equal(result.allNames, undefined);
    assert.equal(result.phoneNumbers, undefined);
  });

  test('array elements keep their relative order whatever the order of the paths', () => {
    const result = filtered(ADA, '$.allNames[3];$.allNames[0];allNames[2]');
    assert.deepEqual(result.allNames, ['Ada Lovelace', 'Countess of Lovelace', 'A. A. L.']);
  });

  test('overlapping paths: a whole element and a field of others', () => {
    const result = filtered(ADA, 'employments.title;$.employments[2]');
    assert.deepEqual(result.employments, [
      { title: 'Programmer' },
      { title: 'Correspondent' },
      { employer: { name: 'Babbage Lab' }, isCurrent: false },
    ]);
  });

  test('object keys keep the entity order, not the path order', () => {
    assert.deepEqual(Object.keys(filtered(ADA, 'importance;name;allNames')), [
      'id',
      'type',
      'name',
      'allNames',
      'importance',
    ]);
  });

  test('paths that select nothing leave only id and type', () => {
    assert.deepEqual(filtered(ADA, 'nothing.here;$.nope'), { id: 'PER-ada', type: 'Person' });
  });

  test('$ keeps everything', () => {
    assert.deepEqual(filtered(ADA, '$'), ADA);
  });

  test('the input entity is not modified', () => {
    const before = JSON.stringify(ADA);
    filtered(ADA, 'name', 'name');
    assert.equal(JSON.stringify(ADA), before);
  });
});

describe('filterExclude (remove)', () => {
  test('removes what the paths select and keeps the rest', () => {
    const result = filtered(ADA, undefined, 'allNames;location.city;employments.title');
    assert.equal(result.allNames, undefined);
    assert.deepEqual(result.location, { country: { name: 'United Kingdom' } });
    assert.deepEqual(result.employments, [
      { employer: { name: 'Analytical Engine Co', id: 'ORG-ae' }, isCurrent: true },
      { employer: { name: 'Royal Society' } },
      { employer: { name: 'Babbage Lab' }, isCurrent: false },
    ]);
    assert.equal(result.name, 'Ada Lovelace');
    assert.deepEqual(result.phoneNumbers, ADA.phoneNumbers);
  });

  test('JSONPath filter expressions remove matching list elements', () => {
    const result = filtered(ADA, undefined, '$.employments[?@.isCurrent == true]');
    assert.deepEqual(
      (result.employments as { title?: string }[]).map((e) => e.title),
      ['Correspondent', undefined],
    );
  });

  test('an object or list emptied by the removal is removed too', () => {
    const result = filtered(
      ADA,
      undefined,
      'phoneNumbers.string;phoneNumbers.digits;location.city;location.country',
    );
    assert.equal(Object.hasOwn(result, 'phoneNumbers'), false);
    assert.equal(Object.hasOwn(result, 'location'), false);
  });

  test('id and type cannot be removed', () => {
    assert.deepEqual(filtered({ id: 'X', type: 'Organization', name: 'n' }, undefined, 'id;type;name'), {
      id: 'X',
      type: 'Organization',
    });
    assert.deepEqual(filtered(ADA, undefined, '$'), { id: 'PER-ada', type: 'Person' });
    assert.deepEqual(filtered(ADA, undefined, '$.*'), { id: 'PER-ada', type: 'Person' });
  });
});

describe('filter then filterExclude', () => {
  test('both given: keep first, then remove from what was kept', () => {
    assert.deepEqual(filtered(ADA, 'name;location;allNames[:2]', 'location.country;$.allNames[0]'), {
      id: 'PER-ada',
      type: 'Person',
      name: 'Ada Lovelace',
      allNames: ['Augusta Ada King'],
      location: { city: { name: 'London' } },
    });
  });

  test('one compiled filter applies to many entities', () => {
    const compiled = parseEntityFilter('name')!;
    assert.deepEqual(applyEntityFilter({ id: '1', type: 'Person', name: 'a', x: 1 }, compiled), {
      id: '1',
      type: 'Person',
      name: 'a',
    });
    assert.deepEqual(applyEntityFilter({ id: '2', type: 'Organization', y: 2 }, compiled), {
      id: '2',
      type: 'Organization',
    });
  });
});

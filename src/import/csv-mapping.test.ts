import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cleanEntity } from '../kg/index.ts';
import { columnPaths, parseColumnMapping, parseCsvRecord, rowToRecord } from './csv-mapping.ts';

function row(headers: string[], cells: string[], spec = '', type?: string) {
  return rowToRecord(headers, columnPaths(headers, parseColumnMapping(spec)), cells, type);
}

describe('parseCsvRecord', () => {
  test('splits RFC 4180 cells: quotes, escaped quotes, commas and newlines inside quotes, empty cells', () => {
    assert.deepEqual(parseCsvRecord('a,"b,c","say ""hi""",,"x\ny"'), ['a', 'b,c', 'say "hi"', '', 'x\ny']);
    assert.deepEqual(parseCsvRecord(''), ['']);
    assert.deepEqual(parseCsvRecord('a,'), ['a', '']);
  });

  test('rejects malformed quoting', () => {
    assert.throws(() => parseCsvRecord('"open'), /unterminated quoted field/);
    assert.throws(() => parseCsvRecord('"a"b,c'), /unexpected character after a closing quote/);
  });
});

describe('column mapping', () => {
  test('parses Header=path pairs, - to ignore; refuses malformed pairs and bare object lists', () => {
    const mapping = parseColumnMapping('Company=name, City = location.city.name,Notes=-');
    assert.deepEqual(mapping.get('Company'), ['name']);
    assert.deepEqual(mapping.get('City'), ['location', 'city', 'name']);
    assert.equal(mapping.get('Notes'), null);
    assert.throws(() => parseColumnMapping('Company'), /"Company" is not Header=path/);
    assert.throws(() => parseColumnMapping('X=a..b'), /not a valid field path/);
    assert.throws(() => parseColumnMapping('Jobs=employments'), /employments\.title/);
  });

  test('maps cells into a record; headers that are field names map to themselves', () => {
    const record = row(
      ['id', 'Company', 'Website', 'City', 'nbEmployees', 'Notes', 'crm_segment'],
      ['ORG-1', 'Acme GmbH', 'acme.example', 'Berlin', '120', 'ignored', 'B2B'],
      'Company=name,Website=homepageUri,City=location.city.name,Notes=-',
      'Organization',
    );
    assert.deepEqual(record, {
      id: 'ORG-1',
      name: 'Acme GmbH',
      homepageUri: 'acme.example',
      location: { city: { name: 'Berlin' } },
      nbEmployees: 120,
      crm_segment: 'B2B',
      type: 'Organization',
    });
  });

  test('splits multi-value cells on ";" and zips lists of objects by position', () => {
    const record = row(
      [
        'id',
        'type',
        'allUris',
        'phoneNumbers',
        'employments.employer.name',
        'employments.title',
        'employments.isCurrent',
      ],
      ['P-1', 'Person', 'a.example; b.example', '+33 1 23 45 67 89', 'Acme;Globex', 'CTO;Engineer', 'yes;no'],
    );
    assert.deepEqual(cleanEntity(record), {
      id: 'P-1',
      type: 'Person',
      allUris: ['a.example', 'b.example'],
      phoneNumbers: [{ string: '+33 1 23 45 67 89' }],
      employments: [
        { employer: { name: 'Acme' }, title: 'CTO', isCurrent: true },
        { employer: { name: 'Globex' }, title: 'Engineer', isCurrent: false },
      ],
    });
  });

  test('empty cells state nothing; the row type wins over --type; bad cells name their column', () => {
    assert.deepEqual(row(['id', 'type', 'name'], ['X', 'Person', ''], '', 'Organization'), {
      id: 'X',
      type: 'Person',
    });
    assert.throws(
      () => row(['id', 'Staff'], ['X', 'many'], 'Staff=nbEmployees'),
      /column Staff: "many" is not a number/,
    );
    assert.throws(() => row(['id', 'employments.isCurrent'], ['X', 'maybe']), /not a boolean/);
    assert.throws(() => row(['id'], ['X', 'extra']), /2 cells but the header has 1 columns/);
  });
});

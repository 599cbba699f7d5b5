import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ACME, ADA, resultRecord } from '../../test/export-fixtures.ts';
import { cellValue } from './cell-value.ts';
import { createExportPlan } from './export-plan.ts';
import { exportedResponse, exportRows, prepareRecord } from './export-rows.ts';

describe('cellValue', () => {
  test('nothing, one string, one number', () => {
    assert.equal(cellValue([], ';'), '');
    assert.equal(cellValue([null], ';'), '');
    assert.equal(cellValue(['x'], ';'), 'x');
    assert.equal(cellValue([0.87], ';'), 0.87);
    assert.equal(cellValue([0], ';'), 0);
  });

  test('lists are flattened and joined with the separator, empty values skipped', () => {
    assert.equal(cellValue([['a', 'b'], 'c', [['d']], '', null], ' | '), 'a | b | c | d');
    assert.equal(cellValue([[1, 2]], ';'), '1;2');
    assert.equal(cellValue([true, false], ','), 'true,false');
  });

  test('objects render as their label, otherwise as compact JSON', () => {
    assert.equal(cellValue([{ name: 'Acme', id: 'O1' }], ';'), 'Acme');
    assert.equal(cellValue([[{ contactString: 'a@b.c' }, { contactString: 'd@e.f' }]], ';'), 'a@b.c;d@e.f');
    assert.equal(cellValue([{ string: '+1 555', digits: '+1555' }], ';'), '+1 555');
    assert.equal(cellValue([{ url: 'https://i/1.png', width: 3 }], ';'), 'https://i/1.png');
    assert.equal(cellValue([{ address: '1 Main St', city: { name: 'X' } }], ';'), '1 Main St');
    assert.equal(
      cellValue([{ city: { name: 'Zürich' }, region: {}, country: { name: 'Switzerland' } }], ';'),
      'Zürich, Switzerland',
    );
    assert.equal(cellValue([{ normalizedValue: 'female' }], ';'), 'female');
    assert.equal(cellValue([{ str: 'd1815-12-10', precision: 3 }], ';'), '1815-12-10');
    assert.equal(cellValue([{ a: 1, b: [2] }], ';'), '{"a":1,"b":[2]}');
    assert.equal(cellValue([Number.NaN], ';'), 'NaN');
  });
});

describe('exportRows', () => {
  const query = { type: 'Person', name: ['Ada'], email: ['ada@example.org'], customId: 'row-7' };

  test('one row per matched entity, in response order; score from the data item', () => {
    const plan = createExportPlan({ format: 'csv', exportspec: 'id;name;score;esscore' });
    const record = resultRecord(0, query, [
      { entity: ADA, score: 0.97, esscore: 31 },
      { entity: ACME, score: 0.41, esscore: 2.5 },
    ]);
    assert.deepEqual(exportRows(record, plan), [
      ['PER-ada', 'Ada Lovelace', 0.97, 31, 'row-7'],
      ['ORG-acme', 'Acme, "the" Company', 0.41, 2.5, 'row-7'],
    ]);
  });

  test('a record without a match gives one row with empty entity and score cells', () => {
    const plan = createExportPlan({ format: 'csv' });
    const [row, ...rest] = exportRows(resultRecord(3, query), plan);
    assert.equal(rest.length, 0);
    assert.deepEqual(Object.fromEntries(plan.headers.map((h, i) => [h, row[i]])), {
      id: '',
      name: '',
      type: '',
      score: '',
      'query.type': 'Person',
      'query.name': 'Ada',
      'query.url': '',
      'query.email': 'ada@example.org',
      'query.phone': '',
      'query.location': '',
      'query.employer': '',
      'query.title': '',
      'query.school': '',
      'query.description': '',
      'query.ip': '',
      'query.id': '',
      customId: 'row-7',
    });
  });

  test('a data item whose entity is null counts as no match', () => {
    const plan = createExportPlan({ format: 'csv', exportspec: 'id;score' });
    const record = resultRecord(0, query);
    record.response.data.push({ score: 0, esscore: 0, entity: null, errors: ['not found'] });
    assert.deepEqual(exportRows(record, plan), [['', '', 'row-7']]);
  });

  test('exportquery prefixes query fields and customId on every row', () => {
    const plan = createExportPlan({ format: 'csv', exportquery: true, exportspec: 'name' });
    const rows = exportRows(resultRecord(0, query, [{ entity: ADA }, { entity: ACME }]), plan);
    assert.equal(plan.headers.at(-1), 'name');
    for (const row of rows) {
      assert.equal(row[plan.headers.indexOf('query.name')], 'Ada');
      assert.equal(row[plan.headers.indexOf('customId')], 'row-7');
    }
    assert.deepEqual(
      rows.map((row) => row.at(-1)),
      ['Ada Lovelace', 'Acme, "the" Company'],
    );
  });

  test('exportseparator joins list values; list limits through slices', () => {
    const plan = createExportPlan({
      format: 'csv',
      exportseparator: ' | ',
      exportspec:
        'allNames;allNames[:2],Two;employments.employer.name;$.employments[?@.isCurrent == true].title',
    });
    assert.deepEqual(exportRows(resultRecord(0, query, [{ entity: ADA }]), plan)[0], [
      'Ada Lovelace | Augusta Ada King | Countess of Lovelace | A. A. L.',
      'Ada Lovelace | Augusta Ada King',
      'Analytical Engine Co | Royal Society | Babbage Lab',
      'Programmer',
      'row-7',
    ]);
  });

  test('filters apply to the entity before the columns read it', () => {
    const plan = createExportPlan({
      format: 'csv',
      exportspec: 'id;name;homepageUri',
      filterExclude: 'homepageUri',
    });
    assert.deepEqual(exportRows(resultRecord(0, query, [{ entity: ADA }]), plan), [
      ['PER-ada', 'Ada Lovelace', '', 'row-7'],
    ]);
  });

  test('onlyMatches drops records without a match', () => {
    const plan = createExportPlan({ format: 'csv', onlyMatches: true });
    assert.deepEqual(exportRows(resultRecord(0, query), plan), []);
    assert.equal(exportRows(resultRecord(0, query, [{ entity: ACME }]), plan).length, 1);
  });
});

describe('exportedResponse', () => {
  test('without a filter the response is exported as it is', () => {
    const plan = createExportPlan();
    const record = resultRecord(0, {}, [{ entity: ADA }]);
    assert.equal(exportedResponse(prepareRecord(record, plan)!, plan), record.response);
  });

  test('with a filter every entity is filtered and the rest of the response kept', () => {
    const plan = createExportPlan({ filter: 'name' });
    const record = resultRecord(0, { type: 'Person' }, [{ entity: ADA, score: 0.8 }, { entity: ACME }]);
    const response = exportedResponse(prepareRecord(record, plan)!, plan);
    assert.deepEqual(
      response.data.map((item) => item.entity),
      [
        { id: 'PER-ada', type: 'Person', name: 'Ada Lovelace' },
        { id: 'ORG-acme', type: 'Organization', name: 'Acme, "the" Company' },
      ],
    );
    assert.equal(response.data[0].score, 0.8);
    assert.equal(response.kgversion, 'test-1');
    assert.equal(record.response.data[0].entity, ADA, 'the stored record is not modified');
  });
});

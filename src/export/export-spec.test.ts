import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidParameterError } from '../errors.ts';
import { createExportPlan } from './export-plan.ts';
import { exportColumns, parseExportSpec } from './export-spec.ts';

/** The query columns in the order docs/api.md#export-columns promises (written out, not derived). */
const QUERY_HEADERS = [
  ...['type', 'name', 'url', 'email', 'phone', 'location', 'employer', 'title', 'school'],
  ...['description', 'ip', 'id'],
].map((field) => `query.${field}`);
QUERY_HEADERS.push('customId');

function describeColumns(spec: string | undefined, exportQuery = false) {
  return exportColumns(spec, exportQuery).map((column) => [column.header, column.source]);
}

describe('parseExportSpec', () => {
  test('absent, empty or blank specs have no columns', () => {
    assert.equal(parseExportSpec(), undefined);
    assert.equal(parseExportSpec(''), undefined);
    assert.equal(parseExportSpec(' ; '), undefined);
  });

  test('simple field names; the header defaults to the path', () => {
    const columns = parseExportSpec('id;name;location.city.name')!;
    assert.deepEqual(
      columns.map((c) => [c.path, c.header, c.source]),
      [
        ['id', 'id', 'entity'],
        ['name', 'name', 'entity'],
        ['location.city.name', 'location.city.name', 'entity'],
      ],
    );
  });

  test('path,Header with white space trimmed; trailing and doubled ; ignored', () => {
    const columns = parseExportSpec(' name , Company name ;; homepageUri,Website;')!;
    assert.deepEqual(
      columns.map((c) => [c.path, c.header]),
      [
        ['name', 'Company name'],
        ['homepageUri', 'Website'],
      ],
    );
  });

  test('JSONPath columns keep their commas and semicolons inside brackets and quotes', () => {
    const columns = parseExportSpec("$.allNames[0,1],First two;$.employments[?@.title == 'a;b,c'].title,T")!;
    assert.deepEqual(
      columns.map((c) => [c.path, c.header]),
      [
        ['$.allNames[0,1]', 'First two'],
        ["$.employments[?@.title == 'a;b,c'].title", 'T'],
      ],
    );
  });

  test('reserved paths: score/esscore from the match, query.* and customId from the query', () => {
    const columns = parseExportSpec('score;esscore;query.name;customId;$.score')!;
    assert.deepEqual(
      columns.map((c) => c.source),
      ['match', 'match', 'query', 'query', 'entity'],
    );
    const row = {
      query: { name: ['Q'], customId: 'c-1' },
      item: { score: 0.5, esscore: 7, entity: null },
      entity: { score: 'own' },
    };
    assert.deepEqual(
      columns.map((c) => c.select(row)),
      [[0.5], [7], [['Q']], ['c-1'], ['own']],
    );
  });

  for (const [spec, fragment] of [
    ['name;$.a[', "'$.a['"],
    ['name,Header,extra', "'name,Header,extra'"],
    ['name,N;allNames,N', "duplicate column header 'N'"],
    [',Header', 'no path'],
    ['first name', "'first name'"],
  ] as const) {
    test(`invalid: ${JSON.stringify(spec)} is a 400 on exportspec`, () => {
      assert.throws(
        () => parseExportSpec(spec),
        (error: unknown) =>
          error instanceof InvalidParameterError &&
          error.parameter === 'exportspec' &&
          error.message.includes(fragment),
      );
    });
  }
});

describe('exportColumns', () => {
  test('default: id, name, type, score and the query fields (customId included)', () => {
    assert.deepEqual(
      exportColumns(undefined, false).map((c) => c.header),
      ['id', 'name', 'type', 'score', ...QUERY_HEADERS],
    );
  });

  test('a spec without customId gets a customId column at the end', () => {
    assert.deepEqual(describeColumns('name,Name'), [
      ['Name', 'entity'],
      ['customId', 'query'],
    ]);
    assert.deepEqual(
      exportColumns('customId;name', false).map((c) => c.header),
      ['customId', 'name'],
    );
    assert.deepEqual(
      exportColumns('query.customId,Ref;name', false).map((c) => c.header),
      ['Ref', 'name'],
    );
  });

  test('exportquery prefixes the query fields and customId, then the spec (or the default entity columns)', () => {
    assert.deepEqual(
      exportColumns('name;homepageUri', true).map((c) => c.header),
      [...QUERY_HEADERS, 'name', 'homepageUri'],
    );
    assert.deepEqual(
      exportColumns(undefined, true).map((c) => c.header),
      [...QUERY_HEADERS, 'id', 'name', 'type', 'score'],
    );
  });

  test('exportquery does not repeat a query column the spec also has', () => {
    assert.deepEqual(
      exportColumns('query.name;customId;name', true).map((c) => c.header),
      [...QUERY_HEADERS, 'name'],
    );
  });
});

describe('createExportPlan', () => {
  test('defaults: jsonl, separator ;, no filter, all records', () => {
    const plan = createExportPlan();
    assert.equal(plan.format, 'jsonl');
    assert.equal(plan.separator, ';');
    assert.equal(plan.filter, undefined);
    assert.equal(plan.onlyMatches, false);
    assert.deepEqual(plan.headers, ['id', 'name', 'type', 'score', ...QUERY_HEADERS]);
  });

  test('string flags from a query string', () => {
    const plan = createExportPlan({
      format: 'CSV',
      exportquery: 'true',
      onlyMatches: 'false',
      exportseparator: '|',
    });
    assert.equal(plan.format, 'csv');
    assert.equal(plan.onlyMatches, false);
    assert.equal(plan.separator, '|');
    assert.equal(plan.headers[0], 'query.type');
  });

  test('the key identifies the settings', () => {
    assert.equal(
      createExportPlan({ format: 'csv', exportspec: 'name' }).key,
      createExportPlan({ format: 'csv', exportspec: 'name' }).key,
    );
    assert.notEqual(
      createExportPlan({ format: 'csv', exportspec: 'name' }).key,
      createExportPlan({ format: 'xls', exportspec: 'name' }).key,
    );
    assert.notEqual(
      createExportPlan({ filter: 'name' }).key,
      createExportPlan({ filterExclude: 'name' }).key,
    );
  });

  for (const [options, parameter] of [
    [{ format: 'pdf' }, 'format'],
    [{ exportquery: 'yes' }, 'exportquery'],
    [{ onlyMatches: '1' }, 'onlyMatches'],
    [{ filter: '$[' }, 'filter'],
    [{ filterExclude: 'a..b' }, 'filterExclude'],
    [{ exportspec: 'a;;b,' + 'x,y' }, 'exportspec'],
  ] as const) {
    test(`400 on ${parameter}: ${JSON.stringify(options)}`, () => {
      assert.throws(
        () => createExportPlan(options),
        (error: unknown) => error instanceof InvalidParameterError && error.parameter === parameter,
      );
    });
  }

  test('xls holds at most 256 columns; xlsx more', () => {
    const spec = Array.from({ length: 256 }, (_, i) => `f${i}`).join(';');
    assert.throws(
      () => createExportPlan({ format: 'xls', exportspec: spec }),
      (error: unknown) =>
        error instanceof InvalidParameterError &&
        error.parameter === 'exportspec' &&
        /257 columns.*256/.test(error.message),
    );
    assert.equal(createExportPlan({ format: 'xlsx', exportspec: spec }).columns.length, 257);
  });
});

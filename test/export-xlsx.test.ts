import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SPREADSHEET_CELL_CHARS } from '../src/export/index.ts';
import { generatedRecords, resultRecord } from './export-fixtures.ts';
import {
  assertSheetsEqualCsv,
  csvRows,
  exportBuffer,
  readWithExcelJs,
  readWithSheetJs,
} from './export-sheets.ts';

const SPEC =
  'id;name;type;score;esscore;allNames;allNames[:2],First names;homepageUri;location;nbEmployees;importance;' +
  'description;employments.employer.name,Employers;$.employments[?@.isCurrent == true].title,Title;query.name;query.url';
const RECORDS = generatedRecords(1500, 7);

describe('xlsx read back with real readers equals the CSV, cell by cell', () => {
  test('exceljs', async () => {
    const options = { format: 'xlsx', exportspec: SPEC, exportseparator: ' | ' };
    const file = await exportBuffer(RECORDS, options);
    const { names, sheets } = await readWithExcelJs(file);
    assert.deepEqual(names, ['Sheet1']);
    assertSheetsEqualCsv(sheets, await csvRows(RECORDS, options));
  });

  test('SheetJS', async () => {
    const options = { format: 'xlsx', exportquery: 'true' };
    const file = await exportBuffer(RECORDS, options);
    assertSheetsEqualCsv(readWithSheetJs(file).sheets, await csvRows(RECORDS, options));
  });

  test('numbers stay numeric cells', async () => {
    const file = await exportBuffer(RECORDS.slice(0, 20), {
      format: 'xlsx',
      exportspec: 'score;nbEmployees',
    });
    const { sheets } = await readWithExcelJs(file);
    const scores = sheets[0].slice(1).map((row) => row[0] ?? '');
    assert.ok(scores.some((score) => typeof score === 'number' && score > 0));
    assert.ok(scores.every((score) => typeof score === 'number' || score === ''));
  });

  test('control characters (_xHHHH_), literal _x0041_, and padding survive', async () => {
    const records = generatedRecords(200, 3, { controls: true });
    const options = { format: 'xlsx', exportspec: 'id;name;allNames' };
    const file = await exportBuffer(records, options);
    const csv = await csvRows(records, options);
    assert.ok(
      csv.some((row) => row[1].includes('\u0001')),
      'fixture has control characters',
    );
    assert.ok(
      csv.some((row) => row[1].includes('_x0041_')),
      'fixture has a literal escape-like text',
    );
    assertSheetsEqualCsv(readWithSheetJs(file).sheets, csv);
  });

  test('more rows than a sheet holds continue on further sheets with the same header', async () => {
    const options = { format: 'xlsx', exportspec: 'id;name;score' };
    const file = await exportBuffer(RECORDS.slice(0, 100), options, { sheetRows: 40 });
    const { names, sheets } = await readWithExcelJs(file);
    assert.deepEqual(names, ['Sheet1', 'Sheet2', 'Sheet3']);
    const csv = await csvRows(RECORDS.slice(0, 100), options);
    assert.deepEqual(assertSheetsEqualCsv(sheets, csv), [40, 40, csv.length - 1 - 80]);
  });

  test('an export without records is a valid workbook with the header', async () => {
    const file = await exportBuffer([], { format: 'xlsx', exportspec: 'id;name' });
    assert.deepEqual((await readWithExcelJs(file)).sheets, [[['id', 'name', 'customId']]]);
  });

  test('a text longer than a cell holds is cut to 32,767 characters', async () => {
    const long = `${'x'.repeat(SPREADSHEET_CELL_CHARS - 1)}😀tail`;
    const record = resultRecord(0, {}, [{ entity: { id: 'L', type: 'Person', name: long } }]);
    const { sheets } = readWithSheetJs(await exportBuffer([record], { format: 'xlsx', exportspec: 'name' }));
    assert.equal(sheets[0][1][0], 'x'.repeat(SPREADSHEET_CELL_CHARS - 1), 'the surrogate pair is not split');
  });
});

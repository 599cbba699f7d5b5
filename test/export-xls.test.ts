import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ResultRecord } from '../src/export/index.ts';
import { SPREADSHEET_CELL_CHARS, XLS_SHEET_ROWS } from '../src/export/index.ts';
import { generatedRecords, resultRecord } from './export-fixtures.ts';
import { readBiffRecords, readCompoundFile, readSst } from './export-readers.ts';
import { assertSheetsEqualCsv, csvRows, exportBuffer, readWithSheetJs } from './export-sheets.ts';

const SPEC =
  'id;name;type;score;esscore;allNames;allNames[:2],First names;homepageUri;location;nbEmployees;importance;' +
  'description;employments.employer.name,Employers;query.name;query.url';

const RT = {
  BOF: 0x0809,
  EOF: 0x000a,
  BOUNDSHEET8: 0x0085,
  SST: 0x00fc,
  EXTSST: 0x00ff,
  DIMENSIONS: 0x0200,
  LABELSST: 0x00fd,
  NUMBER: 0x0203,
};

/** Index of the record containing stream `position` (records are sorted by offset). */
function recordAt(records: readonly { offset: number }[], position: number): number {
  let low = 0;
  let high = records.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (records[middle].offset <= position) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Checks the BIFF8 structure strictly and returns the decoded cells of each sheet. */
function inspectWorkbook(file: Buffer) {
  const compound = readCompoundFile(file);
  const stream = compound.streams.get('Workbook');
  assert.ok(stream, 'Workbook stream');
  const records = readBiffRecords(stream);
  assert.equal(records[0].type, RT.BOF);
  assert.equal(records[0].data.readUInt16LE(0), 0x0600, 'BIFF8');
  assert.equal(records[0].data.readUInt16LE(2), 0x0005, 'workbook globals');
  const globalsEnd = records.findIndex((r) => r.type === RT.EOF);
  const globals = records.slice(0, globalsEnd + 1);
  const sstIndex = globals.findIndex((r) => r.type === RT.SST);
  const sst = readSst(records, sstIndex);
  // EXTSST: each bucket points at the stream position of every dsst-th string.
  const extsst = globals.find((r) => r.type === RT.EXTSST)!.data;
  const dsst = extsst.readUInt16LE(0);
  assert.ok(dsst >= 8);
  const buckets = (extsst.length - 2) / 8;
  assert.equal(buckets, Math.ceil(sst.strings.length / dsst));
  for (let b = 0; b < buckets; b++) {
    const position = extsst.readUInt32LE(2 + b * 8);
    assert.equal(position, sst.starts[b * dsst], `EXTSST bucket ${b}`);
    const record = records[recordAt(records, position)];
    assert.equal(
      extsst.readUInt16LE(6 + b * 8),
      position - record.offset,
      `EXTSST bucket ${b} offset in record`,
    );
  }
  const sheets: { name: string; cells: Map<string, string | number>; rows: number; references: number }[] =
    [];
  for (const bound of globals.filter((r) => r.type === RT.BOUNDSHEET8)) {
    const position = bound.data.readUInt32LE(0);
    const name = bound.data.toString('latin1', 8, 8 + bound.data[6]);
    const start = recordAt(records, position);
    assert.equal(records[start].offset, position, `${name}: BOUNDSHEET points at a record start`);
    assert.ok(start > globalsEnd, `${name}: BOUNDSHEET points at a record after the globals`);
    assert.equal(records[start].type, RT.BOF);
    assert.equal(records[start].data.readUInt16LE(2), 0x0010, `${name}: worksheet BOF`);
    const cells = new Map<string, string | number>();
    let references = 0;
    let dimensions: Buffer | undefined;
    let maxRow = -1;
    let i = start + 1;
    for (; records[i].type !== RT.EOF; i++) {
      const { type, data } = records[i];
      assert.notEqual(type, RT.BOF, `${name}: nested BOF`);
      if (type === RT.DIMENSIONS) dimensions = data;
      if (type === RT.LABELSST || type === RT.NUMBER) {
        const row = data.readUInt16LE(0);
        maxRow = Math.max(maxRow, row);
        const key = `${row},${data.readUInt16LE(2)}`;
        assert.ok(!cells.has(key), `${name}: cell ${key} written twice`);
        if (type === RT.NUMBER) cells.set(key, data.readDoubleLE(6));
        else {
          const index = data.readUInt32LE(6);
          assert.ok(index < sst.strings.length, 'SST index in range');
          cells.set(key, sst.strings[index]);
          references++;
        }
      }
    }
    assert.ok(dimensions, `${name}: DIMENSIONS`);
    assert.equal(dimensions.readUInt32LE(4), maxRow + 1, `${name}: DIMENSIONS last row + 1`);
    sheets.push({ name, cells, rows: maxRow + 1, references });
  }
  assert.equal(
    sst.total,
    sheets.reduce((sum, sheet) => sum + sheet.references, 0),
    'SST total counts every LABELSST',
  );
  return { compound, sheets, sst };
}

describe('xls (BIFF8) read back with SheetJS equals the CSV, cell by cell', () => {
  test('varied records: unicode, quotes, newlines, control characters, numbers, several and no matches', async () => {
    const records = generatedRecords(1500, 11, { controls: true });
    const options = { format: 'xls', exportspec: SPEC, exportseparator: ' | ' };
    const file = await exportBuffer(records, options);
    const { names, sheets } = readWithSheetJs(file);
    assert.deepEqual(names, ['Sheet1']);
    assertSheetsEqualCsv(sheets, await csvRows(records, options));
  });

  test('the default columns with exportquery', async () => {
    const records = generatedRecords(300, 5);
    const options = { format: 'xls', exportquery: true };
    assertSheetsEqualCsv(
      readWithSheetJs(await exportBuffer(records, options)).sheets,
      await csvRows(records, options),
    );
  });

  test('the structure is valid BIFF8 in a valid compound file', async () => {
    const records = generatedRecords(400, 13);
    const file = await exportBuffer(records, { format: 'xls', exportspec: 'id;name;score' });
    const { compound, sheets } = inspectWorkbook(file);
    assert.equal(compound.usesMiniStream, false);
    assert.equal(sheets.length, 1);
    assert.deepEqual([sheets[0].cells.get('0,0'), sheets[0].cells.get('0,3')], ['id', 'customId']);
  });

  test('a tiny export lives in the mini stream and still reads back', async () => {
    const records = [
      resultRecord(0, { customId: 'x' }, [{ entity: { id: 'E', type: 'Person', name: 'N' } }]),
    ];
    const file = await exportBuffer(records, { format: 'xls', exportspec: 'id;name' });
    const { compound } = inspectWorkbook(file);
    assert.equal(compound.usesMiniStream, true);
    assert.deepEqual(readWithSheetJs(file).sheets, [
      [
        ['id', 'name', 'customId'],
        ['E', 'N', 'x'],
      ],
    ]);
  });

  test('long texts continue across CONTINUE records, Latin-1 and UTF-16 alike', async () => {
    const texts = [
      'a'.repeat(8300),
      `${'é'.repeat(9000)}!`,
      `${'東'.repeat(5000)}😀${'z'.repeat(3000)}`,
      `${'b'.repeat(8213)}ж`, // the header fits, the first UTF-16 unit lands at the record's end
      'short',
    ];
    const records = texts.map((name, i) =>
      resultRecord(i, {}, [{ entity: { id: `E${i}`, type: 'Person', name } }]),
    );
    const options = { format: 'xls', exportspec: 'name' };
    const file = await exportBuffer(records, options);
    const { sst } = inspectWorkbook(file);
    for (const text of texts) assert.ok(sst.strings.includes(text), `SST holds the ${text.length}-char text`);
    assertSheetsEqualCsv(readWithSheetJs(file).sheets, await csvRows(records, options));
  });

  test('a text longer than a cell holds is cut to 32,767 characters', async () => {
    const record = resultRecord(0, {}, [{ entity: { id: 'L', type: 'Person', name: 'y'.repeat(40_000) } }]);
    const { sheets } = readWithSheetJs(await exportBuffer([record], { format: 'xls', exportspec: 'name' }));
    assert.equal(sheets[0][1][0], 'y'.repeat(SPREADSHEET_CELL_CHARS));
  });

  test(`more than ${XLS_SHEET_ROWS} rows continue on a second sheet with the same header`, async () => {
    const count = XLS_SHEET_ROWS + 5;
    function* many(): Generator<ResultRecord> {
      for (let i = 0; i < count; i++) {
        yield resultRecord(i, { customId: `c${i}` }, [
          { entity: { id: `E${i}`, type: 'Person' }, score: i / 1000 },
        ]);
      }
    }
    const file = await exportBuffer([...many()], { format: 'xls', exportspec: 'id;score' });
    const { names, sheets } = readWithSheetJs(file);
    assert.deepEqual(names, ['Sheet1', 'Sheet2']);
    assert.equal(sheets[0].length, XLS_SHEET_ROWS + 1);
    assert.deepEqual(sheets[1], [
      ['id', 'score', 'customId'],
      ...Array.from({ length: 5 }, (_, k) => {
        const i = XLS_SHEET_ROWS + k;
        return [`E${i}`, i / 1000, `c${i}`];
      }),
    ]);
    assert.deepEqual(sheets[0][XLS_SHEET_ROWS], [
      `E${XLS_SHEET_ROWS - 1}`,
      (XLS_SHEET_ROWS - 1) / 1000,
      `c${XLS_SHEET_ROWS - 1}`,
    ]);
    const structure = inspectWorkbook(file);
    assert.deepEqual(
      structure.sheets.map((sheet) => [sheet.name, sheet.rows]),
      [
        ['Sheet1', XLS_SHEET_ROWS + 1],
        ['Sheet2', 6],
      ],
    );
  });

  test('sheetRows splits smaller sheets the same way', async () => {
    const records = generatedRecords(120, 17);
    const options = { format: 'xls', exportspec: 'id;name' };
    const file = await exportBuffer(records, options, { sheetRows: 50 });
    const { names, sheets } = readWithSheetJs(file);
    assert.equal(names.length, 3);
    const csv = await csvRows(records, options);
    assert.deepEqual(assertSheetsEqualCsv(sheets, csv), [50, 50, csv.length - 101]);
  });
});

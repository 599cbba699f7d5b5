/**
 * Helpers of the spreadsheet round-trip tests: export the same records as CSV and as a
 * spreadsheet, read the spreadsheet back with a real reader, compare cell by cell.
 */
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import XLSX from 'xlsx';
import type { ExportOptions, ResultRecord, WriteExportOptions } from '../src/export/index.ts';
import { createExportPlan, writeExport } from '../src/export/index.ts';
import { Collector } from './export-fixtures.ts';

/** A sheet as rows of cells: strings, numbers, or '' for an empty cell. */
export type Sheet = (string | number)[][];

export async function exportBuffer(
  records: readonly ResultRecord[],
  options: ExportOptions,
  writeOptions: WriteExportOptions = {},
): Promise<Buffer> {
  const output = new Collector();
  await writeExport(records, output, createExportPlan(options), writeOptions);
  return output.buffer();
}

export async function csvRows(records: readonly ResultRecord[], options: ExportOptions): Promise<string[][]> {
  return parse(await exportBuffer(records, { ...options, format: 'csv' })) as string[][];
}

/** Reads every sheet with SheetJS (`XLSX.read`), raw values, empty cells as ''. */
export function readWithSheetJs(file: Buffer): { names: string[]; sheets: Sheet[] } {
  const workbook = XLSX.read(file, { type: 'buffer', raw: true });
  return {
    names: workbook.SheetNames,
    sheets: workbook.SheetNames.map((name) =>
      XLSX.utils.sheet_to_json<(string | number)[]>(workbook.Sheets[name], {
        header: 1,
        raw: true,
        defval: '',
      }),
    ),
  };
}

/** Reads every sheet with exceljs, empty cells as ''. */
export async function readWithExcelJs(file: Buffer): Promise<{ names: string[]; sheets: Sheet[] }> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(file as unknown as ArrayBuffer);
  const names: string[] = [];
  const sheets: Sheet[] = [];
  workbook.eachSheet((worksheet) => {
    names.push(worksheet.name);
    const rows: Sheet = [];
    worksheet.eachRow({ includeEmpty: true }, (row, rowNumber) => {
      const cells: (string | number)[] = [];
      row.eachCell({ includeEmpty: true }, (cell, column) => {
        const value = cell.value;
        cells[column - 1] = value === null || value === undefined ? '' : (value as string | number);
      });
      rows[rowNumber - 1] = Array.from(cells, (cell) => cell ?? '');
    });
    sheets.push(rows);
  });
  return { names, sheets };
}

/**
 * The text a CSV cell stands for: CSV neutralises a formula with a leading quote (docs/csv.md),
 * spreadsheet text cells need not.
 */
export function csvCellText(cell: string): string {
  return /^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell;
}

/**
 * Asserts that `sheets` hold exactly the CSV: every sheet starts with the CSV header, the data
 * rows of all sheets in order are the CSV's data rows, and each cell's text (a number as
 * JavaScript writes it) equals the CSV cell. Returns the number of data rows per sheet.
 */
export function assertSheetsEqualCsv(sheets: readonly Sheet[], csv: readonly string[][]): number[] {
  const [header, ...data] = csv.map((row) => row.map(csvCellText));
  const perSheet: number[] = [];
  const seen: string[][] = [];
  for (const [s, sheet] of sheets.entries()) {
    assert.deepEqual(pad(sheet[0], header.length), header, `sheet ${s + 1} header`);
    perSheet.push(sheet.length - 1);
    for (const row of sheet.slice(1)) seen.push(pad(row, header.length));
  }
  assert.equal(seen.length, data.length, 'row count');
  for (let r = 0; r < data.length; r++) {
    for (let c = 0; c < header.length; c++) {
      if (seen[r][c] !== data[r][c]) {
        assert.fail(
          `row ${r + 1}, column ${header[c]}: sheet ${JSON.stringify(seen[r][c])} ≠ csv ${JSON.stringify(data[r][c])}`,
        );
      }
    }
  }
  return perSheet;
}

function pad(row: readonly (string | number)[] | undefined, width: number): string[] {
  return Array.from({ length: width }, (_, c) => {
    const cell = row?.[c];
    return cell === undefined ? '' : String(cell);
  });
}

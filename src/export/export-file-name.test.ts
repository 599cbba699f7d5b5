import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { contentDisposition, encodeRfc8187, sanitizeExportFileName } from './export-file-name.ts';
import { EXPORT_FORMATS, parseExportFormat } from './export-format.ts';

describe('sanitizeExportFileName', () => {
  for (const [input, format, expected] of [
    ['results', 'csv', 'results.csv'],
    ['results.csv', 'csv', 'results.csv'],
    ['Results.CSV', 'csv', 'Results.csv'],
    ['results.csv', 'xlsx', 'results.csv.xlsx'],
    ['../../etc/passwd', 'csv', 'passwd.csv'],
    ['C:\\Users\\me\\report.xls', 'xls', 'report.xls'],
    ['dir/', 'json', 'export.json'],
    ['..', 'jsonl', 'export.jsonl'],
    [undefined, 'xlsx', 'export.xlsx'],
    ['   ', 'csv', 'export.csv'],
    ['a"b*c:d<e>f?g|h', 'csv', 'abcdefgh.csv'],
    ['tab\there\r\nnew\u0000line\u007f', 'csv', 'tab here newline.csv'],
    ['rtl\u202etxt.exe', 'csv', 'rtltxt.exe.csv'],
    ['  .hidden name.  ', 'csv', 'hidden name.csv'],
    ['CON', 'csv', '_CON.csv'],
    ['nul.txt', 'csv', '_nul.txt.csv'],
    ['Ünïcödé 東京 report', 'xlsx', 'Ünïcödé 東京 report.xlsx'],
  ] as const) {
    test(`${JSON.stringify(input)} as ${format} → ${expected}`, () => {
      assert.equal(sanitizeExportFileName(input, format), expected);
    });
  }

  test('long names are cut, keeping the extension and whole surrogate pairs', () => {
    const name = sanitizeExportFileName(`${'a'.repeat(115)}😀😀😀`, 'csv');
    assert.ok(name.length <= 120, `${name.length}`);
    assert.ok(name.endsWith('.csv'));
    assert.equal(name.isWellFormed(), true);
  });
});

describe('contentDisposition', () => {
  test('plain ASCII names: filename only', () => {
    assert.equal(contentDisposition('results.csv'), 'attachment; filename="results.csv"');
  });

  test('non-ASCII names: an ASCII fallback and RFC 8187 filename*', () => {
    assert.equal(
      contentDisposition('Zürich 東京.xlsx'),
      `attachment; filename="Z_rich __.xlsx"; filename*=UTF-8''Z%C3%BCrich%20%E6%9D%B1%E4%BA%AC.xlsx`,
    );
  });

  test('RFC 8187 encodes everything that is not an attr-char', () => {
    assert.equal(encodeRfc8187("a'b(c)*d!e~f"), 'a%27b%28c%29%2Ad!e~f');
  });
});

describe('formats', () => {
  test('content types and extensions', () => {
    assert.equal(EXPORT_FORMATS.jsonl.contentType, 'application/json-lines');
    assert.equal(EXPORT_FORMATS.xls.contentType, 'application/ms-excel');
    assert.equal(EXPORT_FORMATS.xlsx.extension, 'xlsx');
    assert.equal(parseExportFormat(undefined), 'jsonl');
    assert.equal(parseExportFormat(' XLS '), 'xls');
    assert.throws(() => parseExportFormat('pdf'), /'pdf' is not one of jsonl, json, csv, xls, xlsx/);
  });
});

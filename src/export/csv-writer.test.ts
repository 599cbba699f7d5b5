import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { csvText, neutralizeFormula } from './csv-writer.ts';

const ROWS: (string | number)[][] = [
  ['id', 'name', 'score'],
  ['ORG-1', 'Acme, Inc.', 0.97],
  ['ORG-"2"', 'Say "hi"', 1],
  ['ORG-3', 'two\nlines', -0.5],
  ['ORG-4', 'cr\rlf\r\n', 1e21],
  ['', ' spaced ', 0],
  ['Zürich', '日本語 ✓', 12345678901234],
];

test('csv text is RFC 4180: quoted only when needed, quotes doubled, CRLF after every record', () => {
  const text = csvText(ROWS);
  assert.ok(text.endsWith('\r\n'));
  assert.ok(text.startsWith('id,name,score\r\nORG-1,"Acme, Inc.",0.97\r\n"ORG-""2""","Say ""hi""",1\r\n'));
  // Read back cell by cell.
  const back = parse(text) as string[][];
  assert.deepEqual(
    back,
    ROWS.map((row) => row.map(String)),
  );
});

test('csv text is what csv-stringify writes, except that a lone LF is quoted too', () => {
  const settings = { record_delimiter: '\r\n', eof: true };
  const withoutLoneLf = ROWS.filter((row) => !row.some((cell) => /(^|[^\r])\n/.test(String(cell))));
  assert.equal(csvText(withoutLoneLf), stringify(withoutLoneLf, settings));
  // csv-stringify leaves `two\nlines` bare when records end in CRLF; readers then split the record.
  assert.equal(stringify([['two\nlines']], settings), 'two\nlines\r\n');
  assert.equal(csvText([['two\nlines']]), '"two\nlines"\r\n');
  assert.deepEqual(parse(csvText([['two\nlines', 'x']])), [['two\nlines', 'x']]);
  assert.equal(csvText([]), '');
});

test('text a spreadsheet would run as a formula is neutralised with a leading quote', () => {
  const hostile = [
    "=cmd|' /C calc'!A0",
    '=HYPERLINK("http://x","y")',
    '+SUM(1,2)',
    '-2+3',
    '@SUM(A1)',
    '\t=1+1',
    '\r=1+1',
  ];
  const back = parse(csvText([hostile]), { relax_quotes: true }) as string[][];
  assert.deepEqual(
    back[0],
    hostile.map((cell) => `'${cell}`),
  );
  // Plain numbers, as text or as numbers, and text with a formula sign later on are left alone.
  assert.equal(csvText([['-3.5', '+1e5', -2, '.5', 'a=b', 'x+1', '']]), '-3.5,+1e5,-2,.5,a=b,x+1,\r\n');
  assert.equal(neutralizeFormula('+1 415 555 0100'), "'+1 415 555 0100");
  assert.equal(neutralizeFormula('Acme'), 'Acme');
});

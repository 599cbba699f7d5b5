/**
 * Streaming xlsx (Office Open XML SpreadsheetML, ECMA-376) writer: each sheet is one deflated
 * ZIP entry written row by row, strings inline (`t="inlineStr"`, no shared-string table to
 * hold in memory), so memory is bounded whatever the number of rows.
 *
 * Why not exceljs's `stream.xlsx.WorkbookWriter`: measured on this platform (Node 24, exceljs
 * 4.4 over archiver 5), its sheet data is not consumed by the ZIP stream until the workbook
 * is committed — 1,000,000 rows held ~1 GB of RSS and the output stayed near-empty until the
 * end — which breaks the "never hold the whole file in memory" requirement.
 *
 * A sheet holds at most 1,048,575 data rows (+ the header); larger exports continue on further
 * sheets (`Sheet2`, ...) with the same header.
 */
import type { CellValue } from './cell-value.ts';
import type { ExportRow } from './export-rows.ts';
import type { OutputSink } from './output-sink.ts';
import type { RowWriter } from './row-writer.ts';
import { spreadsheetText } from './row-writer.ts';
import type { ZipEntryWriter } from './zip-writer.ts';
import { ZipWriter } from './zip-writer.ts';

/** Data rows per sheet: Excel's 1,048,576 rows minus the header. */
export const XLSX_SHEET_ROWS = 1_048_575;
/** Start a new sheet before its XML part nears the 4 GiB ZIP entry limit. */
const SHEET_PART_BYTES = 0xe000_0000;
const CHUNK_CHARS = 64 * 1024;

const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

export interface XlsxOptions {
  /** Data rows per sheet before continuing on the next one; default and maximum `XLSX_SHEET_ROWS`. */
  sheetRows?: number;
  /** Passed to the ZIP writer (tests lower it to exercise Zip64 on a small workbook). */
  zip64Threshold?: number;
}

export function createXlsxWriter(
  sink: OutputSink,
  headers: readonly string[],
  options: XlsxOptions = {},
): RowWriter {
  const sheetRows = Math.min(options.sheetRows ?? XLSX_SHEET_ROWS, XLSX_SHEET_ROWS);
  return new XlsxWriter(new ZipWriter(sink, { zip64Threshold: options.zip64Threshold }), headers, sheetRows);
}

class XlsxWriter implements RowWriter {
  readonly #zip: ZipWriter;
  readonly #headers: readonly string[];
  readonly #sheetRows: number;
  readonly #columnRefs: string[];
  #sheets = 0;
  #sheet: ZipEntryWriter | undefined;
  #rowNumber = 0;
  #chunk = '';

  constructor(zip: ZipWriter, headers: readonly string[], sheetRows: number) {
    this.#zip = zip;
    this.#headers = headers;
    this.#sheetRows = sheetRows;
    this.#columnRefs = headers.map((_, i) => columnName(i));
  }

  async writeRow(row: ExportRow): Promise<void> {
    if (
      this.#sheet === undefined ||
      this.#rowNumber > this.#sheetRows ||
      this.#sheet.size + this.#chunk.length * 3 > SHEET_PART_BYTES
    ) {
      await this.#startSheet();
    }
    this.#appendRow(row);
    if (this.#chunk.length >= CHUNK_CHARS) await this.#flushChunk();
  }

  async finish(): Promise<void> {
    if (this.#sheet === undefined) await this.#startSheet();
    await this.#endSheet();
    const sheetNumbers = Array.from({ length: this.#sheets }, (_, i) => i + 1);
    await this.#zip.addEntry('xl/workbook.xml', workbookXml(sheetNumbers));
    await this.#zip.addEntry('xl/_rels/workbook.xml.rels', workbookRelsXml(sheetNumbers));
    await this.#zip.addEntry('xl/styles.xml', STYLES_XML);
    await this.#zip.addEntry('_rels/.rels', ROOT_RELS_XML);
    await this.#zip.addEntry('[Content_Types].xml', contentTypesXml(sheetNumbers));
    await this.#zip.finish();
  }

  async dispose(): Promise<void> {}

  async #startSheet(): Promise<void> {
    if (this.#sheet !== undefined) await this.#endSheet();
    this.#sheets++;
    this.#sheet = this.#zip.openEntry(`xl/worksheets/sheet${this.#sheets}.xml`);
    this.#chunk = `${XML_DECL}<worksheet xmlns="${MAIN_NS}"><sheetData>`;
    this.#rowNumber = 0;
    this.#appendRow(this.#headers);
  }

  async #endSheet(): Promise<void> {
    this.#chunk += '</sheetData></worksheet>';
    await this.#flushChunk();
    await this.#sheet!.close();
  }

  #appendRow(row: readonly CellValue[]): void {
    const r = ++this.#rowNumber;
    let xml = `<row r="${r}">`;
    for (let c = 0; c < row.length; c++) {
      const value = row[c];
      if (typeof value === 'number') {
        xml += `<c r="${this.#columnRefs[c]}${r}"><v>${value}</v></c>`;
      } else if (value !== '') {
        const text = spreadsheetText(value);
        const space = needsPreserve(text) ? ' xml:space="preserve"' : '';
        xml += `<c r="${this.#columnRefs[c]}${r}" t="inlineStr"><is><t${space}>${escapeXmlText(text)}</t></is></c>`;
      }
    }
    this.#chunk += `${xml}</row>`;
  }

  async #flushChunk(): Promise<void> {
    const chunk = this.#chunk;
    this.#chunk = '';
    await this.#sheet!.write(chunk);
  }
}

/** `A`, `B`, ..., `Z`, `AA`, ... for a 0-based column index. */
export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function needsPreserve(text: string): boolean {
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  return first <= 32 || last <= 32 || text.includes('\n');
}

// XML 1.0 forbids most C0 controls and U+FFFE/U+FFFF; SpreadsheetML writes them as _xHHHH_
// (ECMA-376 Part 1, §22.9.2.19 ST_Xstring), and a literal "_xHHHH_" must then escape its "_".
// CR is written as a character reference: XML parsers turn a literal CR LF into LF (XML 1.0 §2.11).
const XML_SPECIAL_SOURCE =
  '[&<>\\r\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\ufffe\\uffff]|_(?=x[0-9a-fA-F]{4}_)';
const HAS_XML_SPECIAL = new RegExp(XML_SPECIAL_SOURCE);
const XML_SPECIAL = new RegExp(XML_SPECIAL_SOURCE, 'g');

/** Escapes text content for SpreadsheetML. */
export function escapeXmlText(text: string): string {
  return HAS_XML_SPECIAL.test(text) ? text.replace(XML_SPECIAL, xmlEscape) : text;
}

function xmlEscape(char: string): string {
  switch (char) {
    case '&':
      return '&amp;';
    case '<':
      return '&lt;';
    case '>':
      return '&gt;';
    case '\r':
      return '&#13;';
    default:
      return `_x${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`;
  }
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

function workbookXml(sheets: readonly number[]): string {
  const entries = sheets
    .map((n) => `<sheet name="${escapeAttribute(`Sheet${n}`)}" sheetId="${n}" r:id="rId${n}"/>`)
    .join('');
  return `${XML_DECL}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets>${entries}</sheets></workbook>`;
}

function workbookRelsXml(sheets: readonly number[]): string {
  const worksheet = `${REL_NS}/worksheet`;
  const entries = sheets
    .map((n) => `<Relationship Id="rId${n}" Type="${worksheet}" Target="worksheets/sheet${n}.xml"/>`)
    .join('');
  const styles = `<Relationship Id="rId${sheets.length + 1}" Type="${REL_NS}/styles" Target="styles.xml"/>`;
  return `${XML_DECL}<Relationships xmlns="${PKG_REL_NS}">${entries}${styles}</Relationships>`;
}

function contentTypesXml(sheets: readonly number[]): string {
  const ct = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
  const sheetTypes = sheets
    .map((n) => `<Override PartName="/xl/worksheets/sheet${n}.xml" ContentType="${ct}.worksheet+xml"/>`)
    .join('');
  return (
    `${XML_DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    `<Override PartName="/xl/workbook.xml" ContentType="${ct}.sheet.main+xml"/>` +
    `<Override PartName="/xl/styles.xml" ContentType="${ct}.styles+xml"/>` +
    `${sheetTypes}</Types>`
  );
}

const ROOT_RELS_XML =
  `${XML_DECL}<Relationships xmlns="${PKG_REL_NS}">` +
  `<Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`;

// The smallest style sheet Excel accepts: one font, the two mandatory fills, one border, one format.
const STYLES_XML =
  `${XML_DECL}<styleSheet xmlns="${MAIN_NS}">` +
  '<fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '</styleSheet>';

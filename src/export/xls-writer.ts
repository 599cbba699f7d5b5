/**
 * Streaming legacy Excel writer: BIFF8 ([MS-XLS]) workbook stream in a compound file.
 *
 * SheetJS (`xlsx@0.18`) writes BIFF8 only from a whole in-memory workbook, and BIFF8's
 * `LABEL` record holds at most 255 characters, so we write the format ourselves:
 *
 * 1. While rows arrive, worksheet substreams (`BOF`, `DIMENSIONS`, `LABELSST`/`NUMBER` cells,
 *    `WINDOW2`, `EOF`) go to one temp file and the shared string table (`SST` + `CONTINUE`
 *    records) to another. Nothing grows in memory with the number of rows: strings are not
 *    deduplicated beyond a small cache of recent short strings.
 * 2. At the end the workbook globals are built in memory (their size depends only on the
 *    number of sheets), and the compound file is streamed: globals, the SST from its temp
 *    file, `EXTSST`, `EOF`, then the sheets from theirs.
 *
 * A sheet holds at most 65,535 data rows plus the header (BIFF8 has 65,536 rows); larger
 * exports continue on further sheets (`Sheet2`, ...) with the same header, so nothing is
 * dropped. Cells longer than 32,767 characters are cut to that (Excel's cell limit).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCompoundFile } from './compound-file.ts';
import type { ExportRow } from './export-rows.ts';
import type { OutputSink } from './output-sink.ts';
import type { RowWriter } from './row-writer.ts';
import { spreadsheetText } from './row-writer.ts';
import { SpillFile } from './spill-file.ts';

/** Data rows per sheet: BIFF8's 65,536 rows minus the header. */
export const XLS_SHEET_ROWS = 65_535;

/** Largest record body ([MS-XLS] §2.1.4); longer data continues in CONTINUE records. */
const MAX_RECORD_DATA = 8224;
/** Cell XF index used by every cell: the default cell format after the 15 style XFs. */
const CELL_XF = 15;
/** Strings up to this length are looked up in the recent-strings cache before adding to the SST. */
const CACHED_STRING_CHARS = 64;
const CACHE_ENTRIES = 4096;
/** Most EXTSST buckets kept; the bucket size doubles when exceeded (record size limit). */
const MAX_BUCKETS = 1000;

const RT = {
  BOF: 0x0809,
  EOF: 0x000a,
  INTERFACEHDR: 0x00e1,
  MMS: 0x00c1,
  INTERFACEEND: 0x00e2,
  WRITEACCESS: 0x005c,
  CODEPAGE: 0x0042,
  DSF: 0x0161,
  RRTABID: 0x013d,
  WINPROTECT: 0x0019,
  PROTECT: 0x0012,
  PASSWORD: 0x0013,
  PROT4REV: 0x01af,
  PROT4REVPASS: 0x01bc,
  WINDOW1: 0x003d,
  BACKUP: 0x0040,
  HIDEOBJ: 0x008d,
  DATE1904: 0x0022,
  CALCPRECISION: 0x000e,
  REFRESHALL: 0x01b7,
  BOOKBOOL: 0x00da,
  FONT: 0x0031,
  XF: 0x00e0,
  STYLE: 0x0293,
  USESELFS: 0x0160,
  BOUNDSHEET8: 0x0085,
  COUNTRY: 0x008c,
  SST: 0x00fc,
  CONTINUE: 0x003c,
  EXTSST: 0x00ff,
  DIMENSIONS: 0x0200,
  WINDOW2: 0x023e,
  LABELSST: 0x00fd,
  NUMBER: 0x0203,
} as const;

export interface XlsOptions {
  /** Directory for the two temp files; default the OS temp directory. */
  tempDir?: string;
  /** Data rows per sheet before continuing on the next one; default and maximum `XLS_SHEET_ROWS`. */
  sheetRows?: number;
}

export function createXlsWriter(
  sink: OutputSink,
  headers: readonly string[],
  options: XlsOptions = {},
): RowWriter {
  return new XlsWriter(sink, headers, options);
}

class XlsWriter implements RowWriter {
  readonly #sink: OutputSink;
  readonly #headers: readonly string[];
  readonly #sheetRows: number;
  readonly #tempRoot: string;
  #dir: string | undefined;
  #sheets: SpillFile | undefined;
  #sst: SstWriter | undefined;
  /** Offset of each sheet's BOF in the sheets file. */
  readonly #sheetOffsets: number[] = [];
  #dimensionsAt = 0;
  #row = 0;

  constructor(sink: OutputSink, headers: readonly string[], options: XlsOptions) {
    this.#sink = sink;
    this.#headers = headers;
    this.#sheetRows = Math.min(options.sheetRows ?? XLS_SHEET_ROWS, XLS_SHEET_ROWS);
    this.#tempRoot = options.tempDir ?? tmpdir();
  }

  async writeRow(row: ExportRow): Promise<void> {
    if (this.#sheets === undefined || this.#row > this.#sheetRows) await this.#startSheet();
    this.#cells(row);
    await this.#sheets!.flushIfFull();
    await this.#sst!.flushIfFull();
  }

  async finish(): Promise<void> {
    if (this.#sheets === undefined) await this.#startSheet();
    await this.#endSheet();
    const sheets = this.#sheets!;
    const sst = this.#sst!;
    const sstSize = await sst.finish();
    const sheetCount = this.#sheetOffsets.length;
    const prefixSize = globalsPrefix(sheetCount, []).length;
    const extsst = extSstRecord(sst, prefixSize);
    const sheetsStart = prefixSize + sstSize + extsst.length + 4;
    const prefix = globalsPrefix(
      sheetCount,
      this.#sheetOffsets.map((offset) => sheetsStart + offset),
    );
    await sheets.flush();
    const total = sheetsStart + sheets.position;
    await writeCompoundFile(this.#sink, 'Workbook', total, async () => {
      this.#sink.push(prefix);
      for await (const chunk of sst.file.chunks()) if (this.#sink.push(chunk)) await this.#sink.flush();
      this.#sink.push(extsst);
      this.#sink.push(record(RT.EOF, Buffer.alloc(0)));
      for await (const chunk of sheets.chunks()) if (this.#sink.push(chunk)) await this.#sink.flush();
    });
    await this.dispose();
  }

  async dispose(): Promise<void> {
    const dir = this.#dir;
    if (dir === undefined) return;
    this.#dir = undefined;
    await Promise.allSettled([this.#sheets?.close(), this.#sst?.file.close()]);
    await rm(dir, { recursive: true, force: true });
  }

  async #startSheet(): Promise<void> {
    if (this.#sheets === undefined) {
      this.#dir = await mkdtemp(join(this.#tempRoot, 'quarry-xls-'));
      this.#sheets = await SpillFile.create(join(this.#dir, 'sheets.bin'));
      this.#sst = new SstWriter(await SpillFile.create(join(this.#dir, 'sst.bin')));
    } else {
      await this.#endSheet();
    }
    const file = this.#sheets;
    this.#sheetOffsets.push(file.position);
    writeRecord(file, RT.BOF, bof(0x0010));
    // DIMENSIONS: first row, last row + 1 (patched when the sheet ends), first column, last column + 1.
    this.#dimensionsAt = file.position + 4;
    const dimensions = Buffer.alloc(14);
    dimensions.writeUInt16LE(this.#headers.length, 10);
    writeRecord(file, RT.DIMENSIONS, dimensions);
    this.#row = 0;
    this.#cells(this.#headers);
  }

  async #endSheet(): Promise<void> {
    const file = this.#sheets!;
    const first = this.#sheetOffsets.length === 1;
    const window2 = Buffer.alloc(18);
    // Grid, headers, zeros, outline symbols; the first sheet is also selected and active.
    window2.writeUInt16LE(first ? 0x06b6 : 0x00b6, 0);
    window2.writeUInt32LE(64, 6); // icvHdr: default grid colour
    writeRecord(file, RT.WINDOW2, window2);
    writeRecord(file, RT.EOF, Buffer.alloc(0));
    const rows = Buffer.alloc(4);
    rows.writeUInt32LE(this.#row, 0);
    await file.patch(this.#dimensionsAt + 4, rows);
  }

  #cells(row: readonly (string | number)[]): void {
    const file = this.#sheets!;
    const r = this.#row++;
    for (let c = 0; c < row.length; c++) {
      const value = row[c];
      if (typeof value === 'number') {
        file.u16(RT.NUMBER);
        file.u16(14);
        file.u16(r);
        file.u16(c);
        file.u16(CELL_XF);
        file.f64(value);
      } else if (value !== '') {
        const index = this.#sst!.add(spreadsheetText(value));
        file.u16(RT.LABELSST);
        file.u16(10);
        file.u16(r);
        file.u16(c);
        file.u16(CELL_XF);
        file.u32(index);
      }
    }
  }
}

/**
 * The shared string table, written as `SST` + `CONTINUE` records to a temp file. A string's
 * character data may continue in the next record, which then starts with the string's
 * option byte ([MS-XLS] §2.5.293 XLUnicodeRichExtendedString, §2.4.58 Continue).
 */
class SstWriter {
  readonly file: SpillFile;
  readonly #record = Buffer.alloc(MAX_RECORD_DATA);
  #used = 8; // the first record starts with cstTotal and cstUnique, patched at the end
  #type: number = RT.SST;
  #references = 0;
  #unique = 0;
  #cache = new Map<string, number>();
  /** EXTSST: every `bucketSize`-th string's file offset and offset within its record. */
  bucketSize = 8;
  buckets: { offset: number; inRecord: number }[] = [];

  constructor(file: SpillFile) {
    this.file = file;
  }

  /** Adds a non-empty string; returns its index in the table. */
  add(text: string): number {
    this.#references++;
    const cacheable = text.length <= CACHED_STRING_CHARS;
    if (cacheable) {
      const known = this.#cache.get(text);
      if (known !== undefined) return known;
    }
    const index = this.#unique++;
    if (cacheable) {
      if (this.#cache.size >= CACHE_ENTRIES) this.#cache.clear();
      this.#cache.set(text, index);
    }
    this.#append(text, index);
    return index;
  }

  #append(text: string, index: number): void {
    const wide = !isLatin1(text);
    const unit = wide ? 2 : 1;
    // The string header (character count, option byte) and its first character are never split.
    if (this.#used + 3 + unit > MAX_RECORD_DATA) this.#nextRecord();
    if (index % this.bucketSize === 0) {
      this.buckets.push({ offset: this.file.position + 4 + this.#used, inRecord: 4 + this.#used });
      if (this.buckets.length > MAX_BUCKETS) {
        this.buckets = this.buckets.filter((_, i) => i % 2 === 0);
        this.bucketSize *= 2;
      }
    }
    this.#used = this.#record.writeUInt16LE(text.length, this.#used);
    this.#record[this.#used++] = wide ? 1 : 0;
    let from = 0;
    for (;;) {
      const fit = Math.floor((MAX_RECORD_DATA - this.#used) / unit);
      const to = Math.min(text.length, from + fit);
      this.#used += this.#record.write(text.slice(from, to), this.#used, wide ? 'utf16le' : 'latin1');
      from = to;
      if (from === text.length) return;
      this.#nextRecord();
      this.#record[this.#used++] = wide ? 1 : 0;
    }
  }

  #nextRecord(): void {
    this.file.u16(this.#type);
    this.file.u16(this.#used);
    this.file.bytes(this.#record, 0, this.#used);
    this.#type = RT.CONTINUE;
    this.#used = 0;
  }

  async flushIfFull(): Promise<void> {
    await this.file.flushIfFull();
  }

  /** Writes the last record and the string counts; returns the table's size in bytes. */
  async finish(): Promise<number> {
    this.#nextRecord();
    const counts = Buffer.alloc(8);
    counts.writeUInt32LE(this.#references, 0);
    counts.writeUInt32LE(this.#unique, 4);
    await this.file.patch(4, counts);
    await this.file.flush();
    return this.file.position;
  }
}

function isLatin1(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return false;
  return true;
}

function record(type: number, data: Buffer): Buffer {
  const out = Buffer.alloc(4 + data.length);
  out.writeUInt16LE(type, 0);
  out.writeUInt16LE(data.length, 2);
  data.copy(out, 4);
  return out;
}

function writeRecord(file: SpillFile, type: number, data: Buffer): void {
  file.u16(type);
  file.u16(data.length);
  file.bytes(data);
}

function u16(value: number): Buffer {
  const out = Buffer.alloc(2);
  out.writeUInt16LE(value, 0);
  return out;
}

/** BOF for BIFF8 (`vers` 0x0600) of a workbook globals (0x0005) or worksheet (0x0010) substream. */
function bof(substream: number): Buffer {
  const out = Buffer.alloc(16);
  out.writeUInt16LE(0x0600, 0);
  out.writeUInt16LE(substream, 2);
  out.writeUInt16LE(0x0dbb, 4); // rupBuild
  out.writeUInt16LE(0x07cc, 6); // rupYear
  out.writeUInt32LE(0x000100c1, 8); // fWin, fRisc, fBeta off, ... (as Excel 97 writes)
  out.writeUInt32LE(0x00000106, 12); // verLowestBiff 6, verLastXLSaved
  return out;
}

function font(): Buffer {
  const name = 'Arial';
  const out = Buffer.alloc(16 + name.length);
  out.writeUInt16LE(200, 0); // height in twips: 10 pt
  out.writeUInt16LE(0, 2); // no italic/strikeout
  out.writeUInt16LE(0x7fff, 4); // automatic colour
  out.writeUInt16LE(400, 6); // normal weight
  out.writeUInt8(name.length, 14);
  out.writeUInt8(0, 15); // compressed (Latin-1) characters
  out.write(name, 16, 'latin1');
  return out;
}

function xf(style: boolean, usedAttributes: number): Buffer {
  const out = Buffer.alloc(20);
  out.writeUInt16LE(0, 0); // font 0
  out.writeUInt16LE(0, 2); // number format 0: General
  out.writeUInt16LE(style ? 0xfff5 : 0x0001, 4); // locked; style XFs have no parent (0xFFF)
  out.writeUInt8(0x20, 6); // bottom-aligned
  out.writeUInt8(usedAttributes, 9);
  out.writeUInt16LE(0x20c0, 18); // default pattern colours
  return out;
}

function boundSheet(position: number, name: string): Buffer {
  const out = Buffer.alloc(8 + name.length);
  out.writeUInt32LE(position, 0);
  out.writeUInt8(0, 4); // visible
  out.writeUInt8(0, 5); // worksheet
  out.writeUInt8(name.length, 6);
  out.writeUInt8(0, 7); // compressed characters
  out.write(name, 8, 'latin1');
  return out;
}

/**
 * The workbook globals up to (not including) the SST. Its size depends only on the number of
 * sheets; `positions` (stream offsets of each sheet's BOF) may be empty to measure it.
 */
function globalsPrefix(sheetCount: number, positions: readonly number[]): Buffer {
  const parts: Buffer[] = [];
  const add = (type: number, data: Buffer = Buffer.alloc(0)) => parts.push(record(type, data));
  add(RT.BOF, bof(0x0005));
  add(RT.INTERFACEHDR, u16(0x04b0));
  add(RT.MMS, u16(0));
  add(RT.INTERFACEEND);
  const writeAccess = Buffer.alloc(112, 0x20);
  writeAccess.writeUInt16LE(6, 0);
  writeAccess.writeUInt8(0, 2);
  writeAccess.write('Quarry', 3, 'latin1');
  add(RT.WRITEACCESS, writeAccess);
  add(RT.CODEPAGE, u16(1200)); // UTF-16
  add(RT.DSF, u16(0));
  // RRTABID lists sheet ids; it is optional and must fit in one record.
  if (sheetCount * 2 <= MAX_RECORD_DATA) {
    const tabs = Buffer.alloc(sheetCount * 2);
    for (let i = 0; i < sheetCount; i++) tabs.writeUInt16LE(i + 1, i * 2);
    add(RT.RRTABID, tabs);
  }
  add(RT.WINPROTECT, u16(0));
  add(RT.PROTECT, u16(0));
  add(RT.PASSWORD, u16(0));
  add(RT.PROT4REV, u16(0));
  add(RT.PROT4REVPASS, u16(0));
  const window1 = Buffer.alloc(18);
  window1.writeUInt16LE(0x7260, 4); // width
  window1.writeUInt16LE(0x44c0, 6); // height
  window1.writeUInt16LE(0x0038, 8); // horizontal + vertical scroll bars, sheet tabs
  window1.writeUInt16LE(1, 14); // one selected tab
  window1.writeUInt16LE(500, 16); // tab bar width ratio
  add(RT.WINDOW1, window1);
  add(RT.BACKUP, u16(0));
  add(RT.HIDEOBJ, u16(0));
  add(RT.DATE1904, u16(0));
  add(RT.CALCPRECISION, u16(1));
  add(RT.REFRESHALL, u16(0));
  add(RT.BOOKBOOL, u16(0));
  // Excel expects at least five FONT records (index 4 is never used).
  for (let i = 0; i < 5; i++) add(RT.FONT, font());
  // 15 style XFs (the first is Normal) then the one cell XF every cell uses.
  add(RT.XF, xf(true, 0));
  for (let i = 1; i < 15; i++) add(RT.XF, xf(true, 0xf4));
  add(RT.XF, xf(false, 0));
  const style = Buffer.alloc(4);
  style.writeUInt16LE(0x8000, 0); // built-in style for XF 0
  style.writeUInt8(0, 2); // Normal
  style.writeUInt8(0xff, 3);
  add(RT.STYLE, style);
  add(RT.USESELFS, u16(0));
  for (let i = 0; i < sheetCount; i++) add(RT.BOUNDSHEET8, boundSheet(positions[i] ?? 0, `Sheet${i + 1}`));
  const country = Buffer.alloc(4);
  country.writeUInt16LE(1, 0);
  country.writeUInt16LE(1, 2);
  add(RT.COUNTRY, country);
  return Buffer.concat(parts);
}

/** EXTSST: where every `bucketSize`-th string of the SST starts, in stream positions. */
function extSstRecord(sst: SstWriter, sstStart: number): Buffer {
  const data = Buffer.alloc(2 + 8 * sst.buckets.length);
  data.writeUInt16LE(sst.bucketSize, 0);
  sst.buckets.forEach((bucket, i) => {
    data.writeUInt32LE(sstStart + bucket.offset, 2 + i * 8);
    data.writeUInt16LE(bucket.inRecord, 6 + i * 8);
  });
  return record(RT.EXTSST, data);
}

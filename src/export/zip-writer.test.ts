import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { after, test } from 'node:test';
import ExcelJS from 'exceljs';
import { OutputSink } from './output-sink.ts';
import { createXlsxWriter } from './xlsx-writer.ts';
import { ZipWriter, type ZipWriterOptions } from './zip-writer.ts';

// The Zip64 records are exercised on small archives by lowering the threshold at which the writer
// switches to them (the format allows Zip64 fields for any size), then the archive is read back
// by real readers: Info-ZIP's `unzip -t` (CRCs, sizes, offsets), `unzip -p`, and for a workbook
// exceljs (JSZip).

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-zip-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ZIP64_END_RECORD = Buffer.from([0x50, 0x4b, 0x06, 0x06]);
const ZIP64_END_LOCATOR = Buffer.from([0x50, 0x4b, 0x06, 0x07]);
const WIDE_DESCRIPTOR_LENGTH = 24;

async function writeZip(
  name: string,
  entries: readonly [string, string | Buffer][],
  options: ZipWriterOptions,
): Promise<string> {
  const file = path.join(dir, name);
  const output = createWriteStream(file);
  const zip = new ZipWriter(new OutputSink(output), { modified: new Date(2026, 0, 2, 3, 4, 6), ...options });
  for (const [entryName, content] of entries) {
    const entry = zip.openEntry(entryName);
    await entry.write(content);
    await entry.close();
  }
  await zip.finish();
  output.end();
  await finished(output);
  return file;
}

function unzip(args: string[]): { status: number | null; stdout: Buffer; stderr: string } {
  const run = spawnSync('unzip', args, { maxBuffer: 64 * 1024 * 1024 });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    assert.fail('unzip is not installed (apt-get install -y unzip; .ci/run installs it)');
  }
  return { status: run.status, stdout: run.stdout, stderr: run.stderr.toString() };
}

interface CentralRecord {
  readonly name: string;
  readonly versionNeeded: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly offset: number;
  readonly extra: Buffer;
}

/** The central directory as the end record points to it (the non-Zip64 case only). */
function centralDirectory(zip: Buffer): { count: number; records: CentralRecord[] } {
  const end = zip.length - 22;
  assert.equal(zip.readUInt32LE(end), 0x06054b50);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const records: CentralRecord[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    records.push({
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
      versionNeeded: zip.readUInt16LE(at + 6),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      offset: zip.readUInt32LE(at + 42),
      extra: zip.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength),
    });
    at += 46 + nameLength + extraLength;
  }
  return { count, records };
}

test('below the threshold the archive has no Zip64 record, and unzip reads it', async () => {
  const file = await writeZip(
    'plain.zip',
    [
      ['a.txt', 'hello '.repeat(1000)],
      ['b/c.xml', '<x/>'],
    ],
    {},
  );
  const zip = readFileSync(file);
  const { count, records } = centralDirectory(zip);
  assert.equal(count, 2);
  for (const record of records) {
    assert.equal(record.versionNeeded, 20);
    assert.equal(record.extra.length, 0);
  }
  assert.equal(zip.indexOf(ZIP64_END_RECORD), -1);
  assert.equal(zip.indexOf(ZIP64_END_LOCATOR), -1);
  const tested = unzip(['-t', file]);
  assert.equal(tested.status, 0, tested.stderr);
  assert.equal(unzip(['-p', file, 'a.txt']).stdout.toString(), 'hello '.repeat(1000));
});

test('past the threshold: Zip64 sizes, offsets and end records, read back by unzip', async () => {
  const threshold = 4096;
  const big = randomBytes(20_000); // incompressible: both sizes pass the threshold
  const entries: [string, string | Buffer][] = [
    ['first.txt', 'small, at offset 0'],
    ['big.bin', big],
    ['after-big.txt', 'small, but it starts past the threshold'],
    ['dir/last.xml', '<last/>'],
  ];
  // ASCII names, as xlsx parts have: Info-ZIP 6.0 decodes a non-ASCII name in the central
  // directory differently from the local header's once the entry has an extra field, and warns.
  const file = await writeZip('zip64.zip', entries, { zip64Threshold: threshold });
  const zip = readFileSync(file);

  // The end records: the Zip64 record and its locator, the classic record marked as Zip64.
  const end = zip.length - 22;
  assert.equal(zip.readUInt16LE(end + 10), 0xffff);
  assert.equal(zip.readUInt32LE(end + 12), 0xffff_ffff);
  assert.equal(zip.readUInt32LE(end + 16), 0xffff_ffff);
  const locator = end - 20;
  assert.equal(zip.readUInt32LE(locator), 0x07064b50);
  const record = Number(zip.readBigUInt64LE(locator + 8));
  assert.equal(zip.readUInt32LE(record), 0x06064b50);
  assert.equal(Number(zip.readBigUInt64LE(record + 32)), entries.length);
  const start = Number(zip.readBigUInt64LE(record + 48));
  assert.equal(zip.readUInt32LE(start), 0x02014b50);

  // The big entry's data descriptor carries 8-byte sizes.
  const bigName = zip.indexOf('big.bin');
  const descriptor = zip.indexOf(Buffer.from([0x50, 0x4b, 0x07, 0x08]), bigName);
  const next = zip.indexOf('after-big.txt') - 30;
  assert.equal(next - descriptor, WIDE_DESCRIPTOR_LENGTH);
  assert.equal(Number(zip.readBigUInt64LE(descriptor + 16)), big.length);

  // Info-ZIP checks every CRC, size and offset, and extracts the same bytes.
  const tested = unzip(['-t', file]);
  assert.equal(tested.status, 0, tested.stderr);
  assert.match(tested.stdout.toString(), /No errors detected/);
  for (const [name, content] of entries) {
    const expected = typeof content === 'string' ? Buffer.from(content) : content;
    assert.deepEqual(unzip(['-p', file, name]).stdout, expected, name);
  }
  const listing = unzip(['-Z', '-v', file]).stdout.toString();
  assert.match(listing, /Zip64|ZIP64|64-bit/);
});

// SheetJS 0.18 (the `xlsx` package) reads no Zip64 archive ("Unsupported ZIP file"); Excel,
// LibreOffice and JSZip do.
test('an xlsx whose Zip64 records are in use reads back in exceljs', async () => {
  const file = path.join(dir, 'zip64.xlsx');
  const output = createWriteStream(file);
  const writer = createXlsxWriter(new OutputSink(output), ['id', 'name', 'score'], {
    zip64Threshold: 1024,
  });
  const rows = Array.from({ length: 2000 }, (_, i) => [
    `id-${i}`,
    `Name ${i} ${'x'.repeat(i % 40)}`,
    i / 2000,
  ]);
  for (const row of rows) await writer.writeRow(row);
  await writer.finish();
  output.end();
  await finished(output);
  const workbook = readFileSync(file);
  assert.notEqual(workbook.indexOf(ZIP64_END_RECORD), -1, 'the workbook uses the Zip64 end record');

  const excel = new ExcelJS.Workbook();
  await excel.xlsx.load(workbook as unknown as ArrayBuffer);
  const sheet = excel.worksheets[0];
  assert.equal(sheet.rowCount, rows.length + 1);
  assert.deepEqual((sheet.getRow(1).values as unknown[]).slice(1), ['id', 'name', 'score']);
  assert.deepEqual((sheet.getRow(1501).values as unknown[]).slice(1), rows[1499]);
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import XLSX from 'xlsx';
import { Collector } from '../../test/export-fixtures.ts';
import { readCompoundFile } from '../../test/export-readers.ts';
import { writeCompoundFile } from './compound-file.ts';
import { OutputSink } from './output-sink.ts';

async function container(content: Buffer, pieces = 7): Promise<Buffer> {
  const output = new Collector();
  const sink = new OutputSink(output);
  await writeCompoundFile(sink, 'Workbook', content.length, async () => {
    // Written in uneven pieces, as the xls writer streams its temp files.
    const step = Math.ceil(content.length / pieces) || 1;
    for (let at = 0; at < content.length; at += step) {
      if (sink.push(content.subarray(at, at + step))) await sink.flush();
    }
  });
  await sink.end();
  return output.buffer();
}

describe('compound file', () => {
  for (const [label, size, expectMini, expectDifat] of [
    ['empty stream', 0, true, 0],
    ['small stream in the mini stream', 1000, true, 0],
    ['just under the cutoff', 4095, true, 0],
    ['at the cutoff: regular sectors', 4096, false, 0],
    ['not a whole number of sectors', 100_001, false, 0],
    ['past 109 FAT sectors: DIFAT needed', 8_000_000, false, 1],
  ] as const) {
    test(`${label} (${size} bytes)`, async () => {
      const content = randomBytes(size);
      const file = await container(content);
      const parsed = readCompoundFile(file);
      assert.equal(parsed.usesMiniStream, expectMini);
      assert.equal(parsed.difatSectors, expectDifat);
      assert.deepEqual([...parsed.streams.keys()], ['Workbook']);
      assert.ok(parsed.streams.get('Workbook')!.equals(content), 'stream content round-trips');
      // A second, independent reader finds the same stream.
      const cfb = XLSX.CFB.read(file, { type: 'buffer' });
      const entry = XLSX.CFB.find(cfb, 'Workbook');
      assert.ok(entry, 'SheetJS finds the stream');
      assert.ok(
        Buffer.from((entry.content ?? []) as Uint8Array).equals(content),
        'SheetJS reads the same bytes',
      );
    });
  }

  test('a writer that writes the wrong number of bytes is an error', async () => {
    const sink = new OutputSink(new Collector());
    await assert.rejects(
      writeCompoundFile(sink, 'Workbook', 5000, async () => {
        sink.push(Buffer.alloc(4999));
      }),
      /expected 5000 bytes, got 4999/,
    );
  });
});

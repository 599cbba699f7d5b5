import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../../test/support/temp-dir.ts';
import { SpillFile } from './spill-file.ts';

test('text gathered before encoding keeps its place among binary writes, positions and patches', async () => {
  const dir = tempDir();
  try {
    const file = await SpillFile.create(path.join(dir.path, 'spill'));
    const expected: Buffer[] = [];
    file.text('héllo ');
    expected.push(Buffer.from('héllo ', 'utf8'));
    assert.equal(file.position, Buffer.byteLength('héllo '));
    file.u16(0x0102);
    expected.push(Buffer.from([0x02, 0x01]));
    const at = file.position;
    file.text('😀 ');
    expected.push(Buffer.from('😀 ', 'utf8'));
    // Past the buffer's flush size, in small texts: flushed in between, order kept.
    for (let i = 0; i < 20_000; i++) {
      const line = `row ${i},東京\r\n`;
      file.text(line);
      expected.push(Buffer.from(line, 'utf8'));
      if (file.full) await file.flushIfFull();
    }
    file.u8(7);
    expected.push(Buffer.from([7]));
    await file.patch(at, Buffer.from('😃', 'utf8'));
    const chunks: Buffer[] = [];
    for await (const chunk of file.chunks()) chunks.push(chunk);
    await file.close();
    const want = Buffer.concat(expected);
    Buffer.from('😃', 'utf8').copy(want, at);
    assert.equal(file.position, want.length);
    assert.ok(Buffer.concat(chunks).equals(want));
    assert.ok((await readFile(file.path)).equals(want));
  } finally {
    dir.remove();
  }
});

/**
 * Strict readers for what the xls writer produces, used by tests to check structure that a
 * lenient reader (SheetJS) would forgive: the compound file ([MS-CFB] v3) and BIFF8 records.
 */
import assert from 'node:assert/strict';

const ENDOFCHAIN = 0xffff_fffe;
const FREESECT = 0xffff_ffff;
const FATSECT = 0xffff_fffd;
const DIFSECT = 0xffff_fffc;

export interface CompoundFile {
  /** Streams by directory entry name. */
  readonly streams: Map<string, Buffer>;
  readonly fatSectors: number;
  readonly difatSectors: number;
  readonly usesMiniStream: boolean;
}

/** Parses a version-3 compound file, asserting every structural rule it relies on. */
export function readCompoundFile(file: Buffer): CompoundFile {
  assert.equal(file.subarray(0, 8).toString('hex'), 'd0cf11e0a1b11ae1', 'signature');
  assert.equal(file.readUInt16LE(26), 3, 'major version');
  assert.equal(file.readUInt16LE(28), 0xfffe, 'byte order');
  assert.equal(file.readUInt16LE(30), 9, 'sector shift');
  assert.equal(file.readUInt16LE(32), 6, 'mini sector shift');
  assert.equal(file.readUInt32LE(56), 4096, 'mini stream cutoff');
  assert.equal((file.length - 512) % 512, 0, 'whole sectors');
  const sectorCount = (file.length - 512) / 512;
  const sector = (n: number) => {
    assert.ok(n < sectorCount, `sector ${n} out of range`);
    return file.subarray(512 + n * 512, 1024 + n * 512);
  };
  const fatSectors = file.readUInt32LE(44);
  const difatSectors = file.readUInt32LE(72);
  const fatIds: number[] = [];
  for (let i = 0; i < 109 && fatIds.length < fatSectors; i++) fatIds.push(file.readUInt32LE(76 + i * 4));
  const difatIds: number[] = [];
  let difat = file.readUInt32LE(68);
  for (let d = 0; d < difatSectors; d++) {
    difatIds.push(difat);
    const data = sector(difat);
    for (let i = 0; i < 127 && fatIds.length < fatSectors; i++) fatIds.push(data.readUInt32LE(i * 4));
    difat = data.readUInt32LE(508);
  }
  assert.equal(difatSectors === 0 ? file.readUInt32LE(68) : difat, ENDOFCHAIN, 'DIFAT chain end');
  assert.equal(fatIds.length, fatSectors, 'FAT sector list');
  const fat: number[] = [];
  for (const id of fatIds) {
    const data = sector(id);
    for (let i = 0; i < 128; i++) fat.push(data.readUInt32LE(i * 4));
  }
  assert.ok(fat.length >= sectorCount, 'FAT covers every sector');
  for (const id of fatIds) assert.equal(fat[id], FATSECT, `FAT sector ${id} marked FATSECT`);
  for (const id of difatIds) assert.equal(fat[id], DIFSECT, `DIFAT sector ${id} marked DIFSECT`);
  for (let s = sectorCount; s < fat.length; s++)
    assert.equal(fat[s], FREESECT, `sector ${s} beyond the file is free`);

  const owner = new Map<number, string>();
  const chain = (start: number, label: string): number[] => {
    const out: number[] = [];
    for (let s = start; s !== ENDOFCHAIN; s = fat[s]) {
      assert.ok(s < sectorCount, `${label}: sector ${s} out of range`);
      assert.ok(!owner.has(s), `${label}: sector ${s} already used by ${owner.get(s)}`);
      owner.set(s, label);
      out.push(s);
    }
    return out;
  };
  const read = (start: number, size: number, label: string) => {
    const sectors = chain(start, label);
    assert.equal(sectors.length, Math.ceil(size / 512), `${label}: chain length`);
    return Buffer.concat(sectors.map(sector)).subarray(0, size);
  };

  const directory = Buffer.concat(chain(file.readUInt32LE(48), 'directory').map(sector));
  const entries: {
    name: string;
    type: number;
    left: number;
    right: number;
    child: number;
    start: number;
    size: number;
  }[] = [];
  for (let offset = 0; offset < directory.length; offset += 128) {
    const nameLength = directory.readUInt16LE(offset + 64);
    entries.push({
      name: directory.toString('utf16le', offset, offset + Math.max(nameLength - 2, 0)),
      type: directory[offset + 66],
      left: directory.readUInt32LE(offset + 68),
      right: directory.readUInt32LE(offset + 72),
      child: directory.readUInt32LE(offset + 76),
      start: directory.readUInt32LE(offset + 116),
      size: directory.readUInt32LE(offset + 120),
    });
  }
  const root = entries[0];
  assert.equal(root.name, 'Root Entry');
  assert.equal(root.type, 5);
  const miniStream = root.start === ENDOFCHAIN ? Buffer.alloc(0) : read(root.start, root.size, 'mini stream');
  const miniFatStart = file.readUInt32LE(60);
  const miniFat: number[] = [];
  if (miniFatStart !== ENDOFCHAIN) {
    for (const s of chain(miniFatStart, 'mini FAT')) {
      const data = sector(s);
      for (let i = 0; i < 128; i++) miniFat.push(data.readUInt32LE(i * 4));
    }
  }
  const streams = new Map<string, Buffer>();
  let usesMiniStream = false;
  // Walk the root's children (a red-black tree; siblings left/right).
  const visit = (id: number) => {
    if (id === FREESECT) return;
    const entry = entries[id];
    visit(entry.left);
    visit(entry.right);
    assert.equal(entry.type, 2, `${entry.name} is a stream`);
    if (entry.size < 4096) {
      usesMiniStream = true;
      const parts: Buffer[] = [];
      for (let m = entry.start, n = 0; m !== ENDOFCHAIN; m = miniFat[m], n++) {
        assert.ok(n < 64, 'mini chain too long');
        parts.push(miniStream.subarray(m * 64, m * 64 + 64));
      }
      assert.equal(parts.length, Math.ceil(entry.size / 64), `${entry.name}: mini chain length`);
      streams.set(entry.name, Buffer.concat(parts).subarray(0, entry.size));
    } else {
      streams.set(entry.name, read(entry.start, entry.size, entry.name));
    }
  };
  visit(root.child);
  for (let s = 0; s < sectorCount; s++) {
    if (fat[s] === FATSECT || fat[s] === DIFSECT) continue;
    assert.ok(owner.has(s), `sector ${s} is allocated but belongs to no chain`);
  }
  return { streams, fatSectors, difatSectors, usesMiniStream };
}

export interface BiffRecord {
  readonly type: number;
  readonly offset: number;
  readonly data: Buffer;
}

/** Splits a BIFF8 stream into records, asserting the record size limit. */
export function readBiffRecords(stream: Buffer): BiffRecord[] {
  const records: BiffRecord[] = [];
  let offset = 0;
  while (offset < stream.length) {
    assert.ok(offset + 4 <= stream.length, 'truncated record header');
    const type = stream.readUInt16LE(offset);
    const length = stream.readUInt16LE(offset + 2);
    assert.ok(length <= 8224, `record 0x${type.toString(16)} at ${offset} has ${length} bytes`);
    assert.ok(offset + 4 + length <= stream.length, 'truncated record');
    records.push({ type, offset, data: stream.subarray(offset + 4, offset + 4 + length) });
    offset += 4 + length;
  }
  return records;
}

/**
 * Decodes the SST (with its CONTINUE records) that starts at `records[index]`; returns the
 * strings and the stream offset where each starts.
 */
export function readSst(
  records: readonly BiffRecord[],
  index: number,
): { strings: string[]; starts: number[]; total: number } {
  assert.equal(records[index].type, 0x00fc, 'SST');
  const pieces = [records[index]];
  for (let i = index + 1; records[i].type === 0x003c; i++) pieces.push(records[i]);
  const total = records[index].data.readUInt32LE(0);
  const unique = records[index].data.readUInt32LE(4);
  const strings: string[] = [];
  const starts: number[] = [];
  let piece = 0;
  let at = 8;
  const next = () => {
    piece++;
    at = 0;
  };
  while (strings.length < unique) {
    if (at >= pieces[piece].data.length) next();
    const data = () => pieces[piece].data;
    starts.push(pieces[piece].offset + 4 + at);
    assert.ok(at + 3 <= data().length, 'string header split across records');
    const length = data().readUInt16LE(at);
    let wide = data()[at + 2] === 1;
    assert.equal(data()[at + 2] & 0xfe, 0, 'no rich text or phonetic data');
    at += 3;
    let text = '';
    while (text.length < length) {
      if (at >= data().length) {
        next();
        wide = data()[at] === 1;
        at++;
      }
      const unit = wide ? 2 : 1;
      const count = Math.min(length - text.length, Math.floor((data().length - at) / unit));
      assert.ok(count > 0, 'no progress decoding a string');
      text += data().toString(wide ? 'utf16le' : 'latin1', at, at + count * unit);
      at += count * unit;
    }
    strings.push(text);
  }
  assert.equal(piece, pieces.length - 1, 'SST pieces all consumed');
  assert.equal(at, pieces[piece].data.length, 'SST fully consumed');
  return { strings, starts, total };
}

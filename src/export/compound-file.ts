/**
 * Writes a Compound File Binary container ([MS-CFB] version 3, 512-byte sectors) holding one
 * stream, streamed: the caller writes the stream's bytes (whose size it knows in advance) and
 * the allocation tables follow them, so the stream is never held in memory.
 *
 * Layouts (sector numbers):
 * - stream of 4,096 bytes or more: `0..n-1` the stream, `n` the directory, then the FAT
 *   sectors, then the DIFAT sectors (needed past 109 FAT sectors, ~6.8 MiB of stream);
 * - smaller streams live in the mini stream (§2.1, cutoff 4,096): `0` FAT, `1` directory,
 *   `2` mini FAT, `3..` the mini stream (64-byte mini sectors).
 */
import type { OutputSink } from './output-sink.ts';

const SECTOR = 512;
const MINI_SECTOR = 64;
const MINI_CUTOFF = 4096;
const IDS_PER_SECTOR = SECTOR / 4;
const HEADER_DIFAT = 109;
const DIFAT_PER_SECTOR = IDS_PER_SECTOR - 1;

const DIFSECT = 0xffff_fffc;
const FATSECT = 0xffff_fffd;
const ENDOFCHAIN = 0xffff_fffe;
const FREESECT = 0xffff_ffff;
const NOSTREAM = 0xffff_ffff;

/** Largest stream this writer accepts (v3 sizes are 32-bit; readers treat them as signed). */
export const COMPOUND_STREAM_LIMIT = 0x7fff_ffff;

/**
 * Writes a compound file with the single stream `name` of `size` bytes. `writeContent` must
 * push exactly `size` bytes to `sink`; the container is flushed but the sink is not ended.
 */
export async function writeCompoundFile(
  sink: OutputSink,
  name: string,
  size: number,
  writeContent: () => Promise<void>,
): Promise<void> {
  if (size > COMPOUND_STREAM_LIMIT) throw new Error(`Compound file stream of ${size} bytes exceeds 2 GiB`);
  if (size < MINI_CUTOFF) await writeSmall(sink, name, size, writeContent);
  else await writeLarge(sink, name, size, writeContent);
  await sink.flush();
}

async function writeLarge(sink: OutputSink, name: string, size: number, writeContent: () => Promise<void>) {
  const streamSectors = Math.ceil(size / SECTOR);
  // The FAT must map every sector, its own and the DIFAT's included: iterate to the fixed point.
  let fatSectors = 0;
  let difatSectors = 0;
  for (;;) {
    const total = streamSectors + 1 + fatSectors + difatSectors;
    const needFat = Math.ceil(total / IDS_PER_SECTOR);
    const needDifat = needFat > HEADER_DIFAT ? Math.ceil((needFat - HEADER_DIFAT) / DIFAT_PER_SECTOR) : 0;
    if (needFat === fatSectors && needDifat === difatSectors) break;
    fatSectors = needFat;
    difatSectors = needDifat;
  }
  const directorySector = streamSectors;
  const firstFat = directorySector + 1;
  const firstDifat = firstFat + fatSectors;

  sink.push(
    header({
      fatSectors,
      directorySector,
      miniFatSector: ENDOFCHAIN,
      miniFatSectors: 0,
      difatSector: difatSectors > 0 ? firstDifat : ENDOFCHAIN,
      difatSectors,
      fatSectorIds: range(firstFat, Math.min(fatSectors, HEADER_DIFAT)),
    }),
  );
  const before = sink.bytes + sink.pendingLength;
  await writeContent();
  const written = sink.bytes + sink.pendingLength - before;
  if (written !== size) throw new Error(`Compound file stream: expected ${size} bytes, got ${written}`);
  pad(sink, size);

  sink.push(directory(name, { start: 0, size }, { start: ENDOFCHAIN, size: 0 }));

  // FAT: the stream's chain, the directory's one-sector chain, then FAT and DIFAT marks.
  const total = streamSectors + 1 + fatSectors + difatSectors;
  const fat = Buffer.alloc(SECTOR);
  for (let s = 0; s < fatSectors; s++) {
    for (let i = 0; i < IDS_PER_SECTOR; i++) {
      const sector = s * IDS_PER_SECTOR + i;
      let value = FREESECT;
      if (sector < streamSectors - 1) value = sector + 1;
      else if (sector === streamSectors - 1 || sector === directorySector) value = ENDOFCHAIN;
      else if (sector < firstDifat) value = FATSECT;
      else if (sector < total) value = DIFSECT;
      fat.writeUInt32LE(value, i * 4);
    }
    if (sink.push(Buffer.from(fat))) await sink.flush();
  }
  for (let d = 0; d < difatSectors; d++) {
    const difat = Buffer.alloc(SECTOR, 0xff);
    for (let i = 0; i < DIFAT_PER_SECTOR; i++) {
      const index = HEADER_DIFAT + d * DIFAT_PER_SECTOR + i;
      if (index < fatSectors) difat.writeUInt32LE(firstFat + index, i * 4);
    }
    difat.writeUInt32LE(d === difatSectors - 1 ? ENDOFCHAIN : firstDifat + d + 1, SECTOR - 4);
    sink.push(difat);
  }
}

async function writeSmall(sink: OutputSink, name: string, size: number, writeContent: () => Promise<void>) {
  const miniSectors = Math.ceil(size / MINI_SECTOR);
  const miniStreamBytes = miniSectors * MINI_SECTOR;
  const containerSectors = Math.ceil(miniStreamBytes / SECTOR);
  sink.push(
    header({
      fatSectors: 1,
      directorySector: 1,
      miniFatSector: 2,
      miniFatSectors: 1,
      difatSector: ENDOFCHAIN,
      difatSectors: 0,
      fatSectorIds: [0],
    }),
  );
  const fat = Buffer.alloc(SECTOR, 0xff);
  fat.writeUInt32LE(FATSECT, 0);
  fat.writeUInt32LE(ENDOFCHAIN, 4); // directory
  fat.writeUInt32LE(ENDOFCHAIN, 8); // mini FAT
  for (let s = 0; s < containerSectors; s++) {
    fat.writeUInt32LE(s === containerSectors - 1 ? ENDOFCHAIN : 3 + s + 1, (3 + s) * 4);
  }
  sink.push(fat);
  const empty = miniSectors === 0;
  sink.push(
    directory(
      name,
      { start: empty ? ENDOFCHAIN : 0, size },
      { start: empty ? ENDOFCHAIN : 3, size: miniStreamBytes },
    ),
  );
  const miniFat = Buffer.alloc(SECTOR, 0xff);
  for (let m = 0; m < miniSectors; m++)
    miniFat.writeUInt32LE(m === miniSectors - 1 ? ENDOFCHAIN : m + 1, m * 4);
  sink.push(miniFat);
  const before = sink.bytes + sink.pendingLength;
  await writeContent();
  const written = sink.bytes + sink.pendingLength - before;
  if (written !== size) throw new Error(`Compound file stream: expected ${size} bytes, got ${written}`);
  pad(sink, size);
}

function pad(sink: OutputSink, size: number): void {
  const rest = size % SECTOR;
  if (rest !== 0) sink.push(Buffer.alloc(SECTOR - rest));
}

interface HeaderFields {
  fatSectors: number;
  directorySector: number;
  miniFatSector: number;
  miniFatSectors: number;
  difatSector: number;
  difatSectors: number;
  fatSectorIds: readonly number[];
}

/** The 512-byte header ([MS-CFB] §2.2). */
function header(fields: HeaderFields): Buffer {
  const out = Buffer.alloc(SECTOR);
  Buffer.from('d0cf11e0a1b11ae1', 'hex').copy(out, 0);
  out.writeUInt16LE(0x003e, 24); // minor version
  out.writeUInt16LE(0x0003, 26); // major version 3: 512-byte sectors
  out.writeUInt16LE(0xfffe, 28); // byte order: little-endian
  out.writeUInt16LE(9, 30); // sector shift: 2^9
  out.writeUInt16LE(6, 32); // mini sector shift: 2^6
  out.writeUInt32LE(0, 40); // directory sectors: must be 0 in version 3
  out.writeUInt32LE(fields.fatSectors, 44);
  out.writeUInt32LE(fields.directorySector, 48);
  out.writeUInt32LE(MINI_CUTOFF, 56);
  out.writeUInt32LE(fields.miniFatSector, 60);
  out.writeUInt32LE(fields.miniFatSectors, 64);
  out.writeUInt32LE(fields.difatSector, 68);
  out.writeUInt32LE(fields.difatSectors, 72);
  for (let i = 0; i < HEADER_DIFAT; i++) out.writeUInt32LE(fields.fatSectorIds[i] ?? FREESECT, 76 + i * 4);
  return out;
}

/** One directory sector: the root storage, the stream as its only child, two unused entries. */
function directory(
  name: string,
  stream: { start: number; size: number },
  root: { start: number; size: number },
) {
  const out = Buffer.alloc(SECTOR);
  entry(out, 0, { name: 'Root Entry', type: 5, child: 1, ...root });
  entry(out, 1, { name, type: 2, child: NOSTREAM, ...stream });
  for (const index of [2, 3]) {
    const base = index * 128;
    out.writeUInt32LE(NOSTREAM, base + 68);
    out.writeUInt32LE(NOSTREAM, base + 72);
    out.writeUInt32LE(NOSTREAM, base + 76);
  }
  return out;
}

/** A directory entry ([MS-CFB] §2.6.1), black, without siblings. */
function entry(
  out: Buffer,
  index: number,
  fields: { name: string; type: number; child: number; start: number; size: number },
): void {
  const base = index * 128;
  if (fields.name.length > 31) throw new Error(`Compound file entry name too long: ${fields.name}`);
  out.write(fields.name, base, 'utf16le');
  out.writeUInt16LE((fields.name.length + 1) * 2, base + 64);
  out.writeUInt8(fields.type, base + 66);
  out.writeUInt8(1, base + 67); // black
  out.writeUInt32LE(NOSTREAM, base + 68); // left sibling
  out.writeUInt32LE(NOSTREAM, base + 72); // right sibling
  out.writeUInt32LE(fields.child, base + 76);
  out.writeUInt32LE(fields.start, base + 116);
  out.writeUInt32LE(fields.size, base + 120);
}

function range(start: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start + i);
}

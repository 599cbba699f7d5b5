/**
 * A minimal streaming ZIP writer (APPNOTE.TXT 6.3): deflated entries written one after the
 * other with data descriptors (general purpose bit 3), so nothing is buffered beyond the
 * compressor's window, then the central directory. Enough for Office Open XML packages.
 *
 * Zip64 (APPNOTE 4.3.9, 4.3.14–15, 4.5.3) where a value does not fit 32 bits, and only there, so
 * an archive under 4 GiB is byte for byte what it was before Zip64: an entry whose sizes reach
 * the limit gets a data descriptor with 8-byte sizes and a Zip64 extra field in the central
 * directory, as does an entry that starts past 4 GiB (its offset); a central directory past the
 * limit, or more than 65,534 entries, adds the Zip64 end of central directory record and its
 * locator. The local headers never carry the Zip64 field: sizes are not known when they are
 * written, and readers take sizes from the central directory (Go's archive/zip does the same).
 */
import { once } from 'node:events';
import { constants, crc32, createDeflateRaw } from 'node:zlib';
import type { OutputSink } from './output-sink.ts';

/** Largest size or offset a ZIP (non-Zip64) field can hold; the value itself marks Zip64. */
export const ZIP_LIMIT = 0xffff_ffff;
/** Entries a non-Zip64 end record can count; the value itself marks Zip64. */
const ZIP_ENTRY_LIMIT = 0xffff;

export interface ZipWriterOptions {
  /** zlib compression level (1 = fastest, the default: export speed matters more than size). */
  readonly level?: number;
  /** Modification time of every entry (default: now). */
  readonly modified?: Date;
  /**
   * Sizes and offsets at or above this are written in Zip64 form (default `ZIP_LIMIT`, where the
   * format requires it). Tests lower it to exercise the Zip64 records without writing 4 GiB.
   */
  readonly zip64Threshold?: number;
}

interface CentralEntry {
  readonly name: Buffer;
  readonly offset: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
}

const FLAGS = 0x0008 | 0x0800; // sizes in a data descriptor; UTF-8 names
const DEFLATE = 8;
const VERSION = 20;
/** Version needed to extract an entry or archive that uses Zip64. */
const VERSION_ZIP64 = 45;
const ZIP64_EXTRA_ID = 0x0001;

export class ZipWriter {
  readonly #sink: OutputSink;
  readonly #entries: CentralEntry[] = [];
  readonly #time: number;
  readonly #date: number;
  readonly #level: number;
  readonly #zip64At: number;
  #open = false;

  constructor(sink: OutputSink, options: ZipWriterOptions = {}) {
    this.#sink = sink;
    this.#level = options.level ?? 1;
    this.#zip64At = Math.min(options.zip64Threshold ?? ZIP_LIMIT, ZIP_LIMIT);
    const modified = options.modified ?? new Date();
    this.#time = (modified.getHours() << 11) | (modified.getMinutes() << 5) | (modified.getSeconds() >> 1);
    this.#date =
      ((Math.max(modified.getFullYear(), 1980) - 1980) << 9) |
      ((modified.getMonth() + 1) << 5) |
      modified.getDate();
  }

  /** Starts an entry; write its content through the returned writer, then `close()` it. */
  openEntry(name: string): ZipEntryWriter {
    if (this.#open) throw new Error('ZipWriter: the previous entry is still open');
    this.#open = true;
    const nameBytes = Buffer.from(name, 'utf8');
    const offset = this.#sink.bytes + this.#sink.pendingLength;
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(VERSION, 4);
    header.writeUInt16LE(FLAGS, 6);
    header.writeUInt16LE(DEFLATE, 8);
    header.writeUInt16LE(this.#time, 10);
    header.writeUInt16LE(this.#date, 12);
    // crc and sizes (14..25) stay 0: they follow in the data descriptor.
    header.writeUInt16LE(nameBytes.length, 26);
    this.#sink.push(header);
    this.#sink.push(nameBytes);
    return new ZipEntryWriter(this.#sink, this.#level, (crc, compressedSize, size) => {
      this.#sink.push(this.#dataDescriptor(crc, compressedSize, size));
      this.#entries.push({ name: nameBytes, offset, crc, compressedSize, size });
      this.#open = false;
    });
  }

  /** Writes a whole small entry. */
  async addEntry(name: string, content: string): Promise<void> {
    const entry = this.openEntry(name);
    await entry.write(content);
    await entry.close();
  }

  /** Writes the central directory. The sink is flushed but not ended. */
  async finish(): Promise<void> {
    if (this.#open) throw new Error('ZipWriter: an entry is still open');
    const start = this.#sink.bytes + this.#sink.pendingLength;
    let size = 0;
    for (const entry of this.#entries) {
      const header = this.#centralHeader(entry);
      this.#sink.push(header);
      size += header.length;
    }
    const count = this.#entries.length;
    const zip64 = count >= ZIP_ENTRY_LIMIT || size >= this.#zip64At || start >= this.#zip64At;
    if (zip64) {
      const recordOffset = start + size;
      this.#sink.push(zip64EndRecord(count, size, start));
      this.#sink.push(zip64EndLocator(recordOffset));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(zip64 ? ZIP_ENTRY_LIMIT : count, 8);
    end.writeUInt16LE(zip64 ? ZIP_ENTRY_LIMIT : count, 10);
    end.writeUInt32LE(zip64 ? ZIP_LIMIT : size, 12);
    end.writeUInt32LE(zip64 ? ZIP_LIMIT : start, 16);
    this.#sink.push(end);
    await this.#sink.flush();
  }

  /** The data descriptor: 8-byte sizes once either size reaches the Zip64 threshold. */
  #dataDescriptor(crc: number, compressedSize: number, size: number): Buffer {
    const wide = compressedSize >= this.#zip64At || size >= this.#zip64At;
    const descriptor = Buffer.alloc(wide ? 24 : 16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc, 4);
    if (wide) {
      descriptor.writeBigUInt64LE(BigInt(compressedSize), 8);
      descriptor.writeBigUInt64LE(BigInt(size), 16);
    } else {
      descriptor.writeUInt32LE(compressedSize, 8);
      descriptor.writeUInt32LE(size, 12);
    }
    return descriptor;
  }

  /**
   * An entry's central directory header and name. A size or offset at or above the threshold is
   * written as 0xFFFFFFFF, its value going to the Zip64 extra field, in the order APPNOTE 4.5.3
   * fixes (uncompressed size, compressed size, offset), which holds only the fields so marked.
   */
  #centralHeader(entry: CentralEntry): Buffer {
    const wide = [entry.size, entry.compressedSize, entry.offset].filter((value) => value >= this.#zip64At);
    const extraLength = wide.length === 0 ? 0 : 4 + 8 * wide.length;
    const version = wide.length === 0 ? VERSION : VERSION_ZIP64;
    const header = Buffer.alloc(46 + entry.name.length + extraLength);
    const field = (value: number) => (value >= this.#zip64At ? ZIP_LIMIT : value);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(version, 4);
    header.writeUInt16LE(version, 6);
    header.writeUInt16LE(FLAGS, 8);
    header.writeUInt16LE(DEFLATE, 10);
    header.writeUInt16LE(this.#time, 12);
    header.writeUInt16LE(this.#date, 14);
    header.writeUInt32LE(entry.crc, 16);
    header.writeUInt32LE(field(entry.compressedSize), 20);
    header.writeUInt32LE(field(entry.size), 24);
    header.writeUInt16LE(entry.name.length, 28);
    header.writeUInt16LE(extraLength, 30);
    header.writeUInt32LE(field(entry.offset), 42);
    entry.name.copy(header, 46);
    if (extraLength > 0) {
      let at = 46 + entry.name.length;
      header.writeUInt16LE(ZIP64_EXTRA_ID, at);
      header.writeUInt16LE(8 * wide.length, at + 2);
      at += 4;
      for (const value of wide) {
        header.writeBigUInt64LE(BigInt(value), at);
        at += 8;
      }
    }
    return header;
  }
}

/** The Zip64 end of central directory record (APPNOTE 4.3.14), version 1, no extensible data. */
function zip64EndRecord(count: number, size: number, start: number): Buffer {
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4); // size of the record after this field
  record.writeUInt16LE(VERSION_ZIP64, 12);
  record.writeUInt16LE(VERSION_ZIP64, 14);
  // number of this disk (16) and of the disk where the central directory starts (20): 0.
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(size), 40);
  record.writeBigUInt64LE(BigInt(start), 48);
  return record;
}

/** The Zip64 end of central directory locator (APPNOTE 4.3.15). */
function zip64EndLocator(recordOffset: number): Buffer {
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  // disk holding the Zip64 end record (4): 0.
  locator.writeBigUInt64LE(BigInt(recordOffset), 8);
  locator.writeUInt32LE(1, 16); // total number of disks
  return locator;
}

/** The content of one ZIP entry, deflated as it is written. */
export class ZipEntryWriter {
  readonly #sink: OutputSink;
  readonly #deflate;
  readonly #done: Promise<void>;
  readonly #onClose: (crc: number, compressedSize: number, size: number) => void;
  #crc = 0;
  #size = 0;
  #compressedSize = 0;

  constructor(
    sink: OutputSink,
    level: number,
    onClose: (crc: number, compressedSize: number, size: number) => void,
  ) {
    this.#sink = sink;
    this.#onClose = onClose;
    this.#deflate = createDeflateRaw({ level, strategy: constants.Z_DEFAULT_STRATEGY });
    this.#deflate.on('data', (chunk: Buffer) => {
      this.#compressedSize += chunk.length;
      this.#sink.push(chunk);
    });
    this.#done = once(this.#deflate, 'end').then(() => undefined);
    // `once` rejects #done on 'error'; keep that rejection from being reported as unhandled
    // before close() awaits it.
    this.#done.catch(() => {});
  }

  /** Uncompressed bytes written so far. */
  get size(): number {
    return this.#size;
  }

  async write(content: string | Buffer): Promise<void> {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    this.#crc = crc32(data, this.#crc);
    this.#size += data.length;
    if (!this.#deflate.write(data)) await once(this.#deflate, 'drain');
    if (this.#sink.pendingLength >= 64 * 1024) await this.#sink.flush();
  }

  async close(): Promise<void> {
    this.#deflate.end();
    await this.#done;
    this.#onClose(this.#crc >>> 0, this.#compressedSize, this.#size);
    await this.#sink.flush();
  }
}

/**
 * A minimal streaming ZIP writer (APPNOTE.TXT 6.3): deflated entries written one after the
 * other with data descriptors (general purpose bit 3), so nothing is buffered beyond the
 * compressor's window, then the central directory. Enough for Office Open XML packages.
 *
 * No Zip64: an entry or the whole archive must stay below 4 GiB (callers split large sheets).
 */
import { once } from 'node:events';
import { constants, crc32, createDeflateRaw } from 'node:zlib';
import type { OutputSink } from './output-sink.ts';

/** Largest size or offset a ZIP (non-Zip64) field can hold. */
export const ZIP_LIMIT = 0xffff_ffff;

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

export class ZipWriter {
  readonly #sink: OutputSink;
  readonly #entries: CentralEntry[] = [];
  readonly #time: number;
  readonly #date: number;
  readonly #level: number;
  #open = false;

  /** `level`: zlib compression level (1 = fastest, the default: export speed matters more than size). */
  constructor(sink: OutputSink, options: { level?: number; modified?: Date } = {}) {
    this.#sink = sink;
    this.#level = options.level ?? 1;
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
      if (compressedSize > ZIP_LIMIT || size > ZIP_LIMIT || offset > ZIP_LIMIT) {
        throw new Error(`ZIP entry ${name} exceeds 4 GiB (Zip64 is not supported)`);
      }
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(compressedSize, 8);
      descriptor.writeUInt32LE(size, 12);
      this.#sink.push(descriptor);
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
      const header = Buffer.alloc(46);
      header.writeUInt32LE(0x02014b50, 0);
      header.writeUInt16LE(VERSION, 4);
      header.writeUInt16LE(VERSION, 6);
      header.writeUInt16LE(FLAGS, 8);
      header.writeUInt16LE(DEFLATE, 10);
      header.writeUInt16LE(this.#time, 12);
      header.writeUInt16LE(this.#date, 14);
      header.writeUInt32LE(entry.crc, 16);
      header.writeUInt32LE(entry.compressedSize, 20);
      header.writeUInt32LE(entry.size, 24);
      header.writeUInt16LE(entry.name.length, 28);
      header.writeUInt32LE(entry.offset, 42);
      this.#sink.push(header);
      this.#sink.push(entry.name);
      size += header.length + entry.name.length;
    }
    if (start > ZIP_LIMIT) throw new Error('ZIP archive exceeds 4 GiB (Zip64 is not supported)');
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.#entries.length, 8);
    end.writeUInt16LE(this.#entries.length, 10);
    end.writeUInt32LE(size, 12);
    end.writeUInt32LE(start, 16);
    this.#sink.push(end);
    await this.#sink.flush();
  }
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

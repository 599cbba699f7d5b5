/**
 * An append-only binary temp file with a growable in-memory write buffer, for output that must
 * be produced before the bytes that precede it are known (xls sheets, coverage rows).
 * Little-endian writers; the buffer is flushed when `flushIfFull` finds it past 64 KiB.
 */
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open, rename } from 'node:fs/promises';

const FLUSH_BYTES = 64 * 1024;

export class SpillFile {
  readonly path: string;
  readonly #handle: FileHandle;
  #buffer = Buffer.allocUnsafe(4 * FLUSH_BYTES);
  #used = 0;
  #flushed = 0;

  private constructor(path: string, handle: FileHandle) {
    this.path = path;
    this.#handle = handle;
  }

  /** Creates (truncates) the file at `path`. */
  static async create(path: string): Promise<SpillFile> {
    return new SpillFile(path, await open(path, 'w+'));
  }

  /** Bytes written so far (flushed or not): the file offset of the next byte. */
  get position(): number {
    return this.#flushed + this.#used;
  }

  u8(value: number): void {
    this.#ensure(1);
    this.#buffer[this.#used++] = value;
  }

  u16(value: number): void {
    this.#ensure(2);
    this.#used = this.#buffer.writeUInt16LE(value, this.#used);
  }

  u32(value: number): void {
    this.#ensure(4);
    this.#used = this.#buffer.writeUInt32LE(value, this.#used);
  }

  f64(value: number): void {
    this.#ensure(8);
    this.#used = this.#buffer.writeDoubleLE(value, this.#used);
  }

  bytes(data: Buffer, start = 0, end = data.length): void {
    this.#ensure(end - start);
    this.#used += data.copy(this.#buffer, this.#used, start, end);
  }

  text(value: string): void {
    // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, 4): room without
    // `Buffer.byteLength`, a second pass over the text that took ~3% of a CSV export thread.
    this.#ensure(value.length * 3);
    this.#used += this.#buffer.write(value, this.#used, 'utf8');
  }

  /** True when the buffer holds 64 KiB or more: time to `flush`. */
  get full(): boolean {
    return this.#used >= FLUSH_BYTES;
  }

  /** Flushes when the buffer holds 64 KiB or more; await it between records. */
  async flushIfFull(): Promise<void> {
    if (this.full) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#used === 0) return;
    await this.#handle.write(this.#buffer, 0, this.#used, this.#flushed);
    this.#flushed += this.#used;
    this.#used = 0;
  }

  /** Overwrites bytes already written at `position` (e.g. a length known only later). */
  async patch(position: number, data: Buffer): Promise<void> {
    if (position >= this.#flushed) {
      data.copy(this.#buffer, position - this.#flushed);
      return;
    }
    await this.flush();
    await this.#handle.write(data, 0, data.length, position);
  }

  /** Flushes and reads the whole file back in chunks. */
  async *chunks(): AsyncGenerator<Buffer> {
    await this.flush();
    for await (const chunk of createReadStream(this.path, { highWaterMark: FLUSH_BYTES }))
      yield chunk as Buffer;
  }

  async close(): Promise<void> {
    await this.#handle.close();
  }

  /** Flushes, closes and renames the file to `target` (on the same file system). */
  async moveTo(target: string): Promise<void> {
    await this.flush();
    await this.close();
    await rename(this.path, target);
  }

  #ensure(bytes: number): void {
    if (this.#used + bytes <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#used + bytes));
    this.#buffer.copy(grown, 0, 0, this.#used);
    this.#buffer = grown;
  }
}

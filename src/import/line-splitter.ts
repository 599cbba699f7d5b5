/**
 * Splits a byte stream into UTF-8 text lines with a cap on line length, without ever holding an
 * over-long line: once a line passes the cap its bytes are counted and dropped until the next
 * newline, and it is reported as rejected. `\n` and `\r\n` end lines; a UTF-8 byte order mark
 * at the start of the stream is removed; a last line without a newline counts.
 *
 * In `csv` mode a newline inside a double-quoted field (RFC 4180) does not end the record: the
 * splitter yields whole records, numbered by the physical line they start on.
 */

/** Default cap on one line: 1 MiB (`--max-line-bytes`). */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

/** One line: its 1-based number and either its text or why it cannot be read. */
export type SplitLine =
  | { readonly line: number; readonly text: string; readonly error?: undefined }
  | { readonly line: number; readonly error: string; readonly text?: undefined };

const NEWLINE = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

export interface LineSplitterOptions {
  /** Longest accepted line (record) in bytes, terminator excluded; default 1 MiB. */
  readonly maxLineBytes?: number;
  /** Newlines inside double quotes do not end a record (CSV). */
  readonly csv?: boolean;
}

export class LineSplitter {
  readonly #maxBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Bytes of the current over-long line seen so far, or -1 when not skipping. */
  #skipped = -1;
  /** Physical lines seen before the current line (record). */
  #physical = 0;
  /** Newlines inside quotes in the current record (csv mode). */
  #innerNewlines = 0;
  readonly #csv: boolean;
  #inQuotes = false;

  constructor(options: LineSplitterOptions = {}) {
    const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`);
    }
    this.#maxBytes = maxLineBytes;
    this.#csv = options.csv ?? false;
  }

  /** Physical lines read so far. */
  get lines(): number {
    return this.#physical;
  }

  /** Feeds a chunk; pushes the lines it completes onto `out`. */
  push(chunk: Uint8Array, out: SplitLine[]): void {
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    while (start < buffer.length) {
      const end = this.#csv ? this.#recordEnd(buffer, start) : buffer.indexOf(NEWLINE, start);
      if (end === -1) {
        this.#hold(buffer, start, buffer.length);
        return;
      }
      this.#complete(buffer, start, end, out);
      start = end + 1;
    }
  }

  /** Ends the stream: emits a last line that had no newline. */
  end(out: SplitLine[]): void {
    if (this.#skipped >= 0 || this.#pendingBytes > 0) this.#complete(Buffer.alloc(0), 0, 0, out);
  }

  /** Index of the newline ending the current CSV record in `buffer`, or -1. */
  #recordEnd(buffer: Buffer, start: number): number {
    let inQuotes = this.#inQuotes;
    for (let i = start; i < buffer.length; i++) {
      const byte = buffer[i];
      if (byte === QUOTE) inQuotes = !inQuotes;
      else if (byte === NEWLINE) {
        if (!inQuotes) {
          this.#inQuotes = false;
          return i;
        }
        this.#innerNewlines++;
      }
    }
    this.#inQuotes = inQuotes;
    return -1;
  }

  #hold(buffer: Buffer, start: number, end: number): void {
    const length = end - start;
    if (this.#skipped >= 0) {
      this.#skipped += length;
    } else if (this.#pendingBytes + length > this.#maxBytes + 1) {
      // +1 leaves room for the '\r' of a CRLF line that is exactly at the cap.
      this.#skipped = this.#pendingBytes + length;
      this.#pending = [];
      this.#pendingBytes = 0;
    } else {
      // Copied: the stream may reuse the chunk's memory.
      this.#pending.push(Buffer.from(buffer.subarray(start, end)));
      this.#pendingBytes += length;
    }
  }

  #complete(buffer: Buffer, start: number, end: number, out: SplitLine[]): void {
    const line = this.#physical + 1;
    this.#physical += 1 + this.#innerNewlines;
    this.#innerNewlines = 0;
    if (this.#skipped >= 0) {
      const total = this.#skipped + (end - start);
      this.#skipped = -1;
      out.push({ line, error: tooLong(total, this.#maxBytes) });
      return;
    }
    let bytes: Buffer;
    let from = start;
    let to = end;
    if (this.#pendingBytes > 0) {
      bytes = Buffer.concat([...this.#pending, buffer.subarray(start, end)]);
      this.#pending = [];
      this.#pendingBytes = 0;
      from = 0;
      to = bytes.length;
    } else {
      bytes = buffer;
    }
    if (to > from && bytes[to - 1] === CR) to--;
    if (
      line === 1 &&
      to - from >= 3 &&
      bytes[from] === 0xef &&
      bytes[from + 1] === 0xbb &&
      bytes[from + 2] === 0xbf
    ) {
      from += 3;
    }
    if (to - from > this.#maxBytes) {
      out.push({ line, error: tooLong(to - from, this.#maxBytes) });
      return;
    }
    const text = bytes.toString('utf8', from, to);
    // U+FFFD in the text is either written as such or the decoder's replacement of bad bytes.
    if (text.includes('\ufffd') && !Buffer.from(text, 'utf8').equals(bytes.subarray(from, to))) {
      out.push({ line, error: 'line is not valid UTF-8' });
      return;
    }
    out.push({ line, text });
  }
}

function tooLong(bytes: number, max: number): string {
  return `line is ${bytes} bytes long, more than the ${max}-byte limit (--max-line-bytes); skipped`;
}

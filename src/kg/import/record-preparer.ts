/**
 * The CPU-bound half of an import. The main thread splits the input into lines (`LineBatcher`)
 * and hands jobs of lines to worker threads (or prepares them inline), where `JobPreparer` turns
 * them into records → validated, canonical single-source statements with their match index.
 * None of it touches the store; `ImportSession` merges the statements with what is stored.
 */
import { indexEntity } from '../../match/index.ts';
import type { SerializedEntityWrite } from '../../storage/index.ts';
import type { EntityType } from '../entity.ts';
import { canonicalizeInPlace, ledgerFor, sourceOf } from '../fact-ledger.ts';
import { cleanEntityTracked, EntityRejection } from '../validate-entity.ts';
import {
  type ColumnMapping,
  columnPaths,
  parseColumnMapping,
  parseCsvRecord,
  rowToRecord,
} from './csv-mapping.ts';
import { decodeLine, type LineSink, LineSplitter, NOT_UTF8 } from './line-splitter.ts';

/** Input formats: JSON Lines (one entity object per line) or CSV with a header row. */
export type ImportFormat = 'jsonl' | 'csv';

/** What the preparer needs to know (plain data: it crosses to the worker thread). */
export interface PrepareOptions {
  readonly format: ImportFormat;
  /** Source label (`--source`); default: the record's origins, else `import:<fileName>`. */
  readonly source?: string;
  /** Name of the input, for the default source (`import:<fileName>`). */
  readonly fileName: string;
  /** CSV: type of rows without a `type` cell. */
  readonly type?: EntityType;
  /** CSV: column mapping spec (`Header=path,…`), see csv-mapping.ts. */
  readonly map?: string;
  /** Longest accepted line (CSV: record) in bytes. */
  readonly maxLineBytes?: number;
}

/** A line rejected, with its 1-based number and the reason. */
export interface Rejection {
  readonly line: number;
  readonly reason: string;
}

/** A valid statement ready to be merged and stored, already serialised. */
export interface PreparedRecord {
  readonly line: number;
  readonly id: string;
  readonly type: EntityType;
  readonly source: string;
  /**
   * The entity as if it were new: `doc` is the statement in its canonical single-source form,
   * `ledger` its single-source ledger, and every field of `indexEntity(doc)` (profile, keys, …).
   * As strings from `prepareRecord`, as UTF-8 bytes from a `PreparedBlock`.
   */
  readonly json: SerializedEntityWrite['json'];
}

/**
 * Prepared records as a job's answer carries them across threads: one array per plain field, and
 * the serialised fields (`json`) as UTF-8 bytes back to back in one buffer, which is transferred
 * rather than copied. The main thread, the import's busiest, then neither deserialises the
 * records' JSON text (~1.3 KB per demo record) nor converts it to UTF-8 again when it binds it
 * to the store's statements, and its heap no longer holds a batch of it.
 */
export interface PreparedBlock {
  readonly line: number[];
  readonly id: string[];
  readonly type: EntityType[];
  readonly source: string[];
  /** The serialised fields, in the order each record's bytes are in. */
  readonly fields: string[];
  readonly bytes: Uint8Array;
  /** Per record, per field: where its bytes end (each starts where the one before ends); -1 for null. */
  readonly ends: Float64Array;
}

/** Writes records' serialised fields as UTF-8 into one growing buffer (see `PreparedBlock`). */
class BlockWriter {
  #bytes: Buffer;
  #at = 0;

  constructor(capacity: number) {
    this.#bytes = Buffer.allocUnsafeSlow(Math.max(capacity, 1024));
  }

  get at(): number {
    return this.#at;
  }

  text(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.#reserve(text.length * 3);
    this.#at += this.#bytes.write(text, this.#at);
  }

  raw(bytes: Uint8Array): void {
    this.#reserve(bytes.byteLength);
    this.#bytes.set(bytes, this.#at);
    this.#at += bytes.byteLength;
  }

  /** The bytes written (a view: the buffer is handed over whole). */
  finish(): Uint8Array {
    return new Uint8Array(this.#bytes.buffer, 0, this.#at);
  }

  #reserve(bytes: number): void {
    if (this.#bytes.length - this.#at >= bytes) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.#bytes.length * 2, this.#at + bytes));
    this.#bytes.copy(grown, 0, 0, this.#at);
    this.#bytes = grown;
  }
}

/**
 * The block of `records`. `raw` gives, for a record's `doc` string, the bytes it was decoded from
 * when it has them (a JSON line stored as it was read): copied as they are, not encoded again.
 */
export function toBlock(
  records: readonly PreparedRecord[],
  raw?: (record: PreparedRecord) => Uint8Array | undefined,
): PreparedBlock {
  // Every record carries the same fields: those of the match index plus doc and ledger.
  const fields = records.length > 0 ? Object.keys(records[0].json) : [];
  const writer = new BlockWriter(records.length * 1536);
  const ends = new Float64Array(records.length * fields.length);
  let next = 0;
  for (const record of records) {
    const rawDoc = raw?.(record);
    for (const field of fields) {
      const value = record.json[field];
      if (value === null) {
        ends[next++] = -1;
        continue;
      }
      if (field === 'doc' && rawDoc !== undefined) writer.raw(rawDoc);
      else if (typeof value === 'string') writer.text(value);
      else writer.raw(value);
      ends[next++] = writer.at;
    }
  }
  return {
    line: records.map((record) => record.line),
    id: records.map((record) => record.id),
    type: records.map((record) => record.type),
    source: records.map((record) => record.source),
    fields,
    bytes: writer.finish(),
    ends,
  };
}

/** The records of `block`, in order, their serialised fields as views of its bytes. */
export function fromBlock(block: PreparedBlock): PreparedRecord[] {
  const { fields, bytes, ends } = block;
  const records = new Array<PreparedRecord>(block.id.length);
  let next = 0;
  let from = 0;
  for (let i = 0; i < records.length; i++) {
    const json: Record<string, Uint8Array | null> = {};
    for (const field of fields) {
      const end = ends[next++];
      if (end < 0) {
        json[field] = null;
        continue;
      }
      json[field] = bytes.subarray(from, end);
      from = end;
    }
    records[i] = {
      line: block.line[i],
      id: block.id[i],
      type: block.type[i],
      source: block.source[i],
      json: json as PreparedRecord['json'],
    };
  }
  return records;
}

/** What one job of lines produced, rejections in line order. */
export interface PreparedChunk {
  readonly block: PreparedBlock;
  readonly rejects: Rejection[];
}

/**
 * A group of lines to prepare, as the main thread hands it to a worker: plain data, its bytes
 * transferred, not copied. The lines are UTF-8 bytes back to back (line ends, the CR before them
 * and a byte order mark removed), decoded by the worker.
 */
export interface PrepareJob {
  readonly bytes: Uint8Array;
  /** Per line: its 1-based number. */
  readonly lines: Float64Array;
  /** Per line: where its bytes end in `bytes` (each starts where the one before ends). */
  readonly ends: Float64Array;
  /** The lines that could not be read (over-long), by index, with why: they have no bytes. */
  readonly unreadable: readonly (readonly [index: number, reason: string])[];
  /** The CSV header cells (undefined for JSON Lines). */
  readonly header: readonly string[] | undefined;
}

/** The input as a whole cannot be imported (a `--map` naming a missing column): stops the import. */
export class ImportInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportInputError';
  }
}

const MAX_REASON_LENGTH = 300;

function shorten(reason: string): string {
  return reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH)}…` : reason;
}

/** Lines being packed into a job's buffer (see `PrepareJob`). */
class JobPacker {
  #bytes = Buffer.allocUnsafeSlow(1 << 16);
  #at = 0;
  #lines: number[] = [];
  #ends: number[] = [];
  #unreadable: [number, string][] = [];

  get size(): number {
    return this.#lines.length;
  }

  line(line: number, bytes: Buffer, from: number, to: number): void {
    const length = to - from;
    if (this.#bytes.length - this.#at < length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.#bytes.length * 2, this.#at + length));
      this.#bytes.copy(grown, 0, 0, this.#at);
      this.#bytes = grown;
    }
    bytes.copy(this.#bytes, this.#at, from, to);
    this.#at += length;
    this.#lines.push(line);
    this.#ends.push(this.#at);
  }

  unreadable(line: number, reason: string): void {
    this.#unreadable.push([this.#lines.length, reason]);
    this.#lines.push(line);
    this.#ends.push(this.#at);
  }

  /** The job of the first `count` lines; the packer keeps the rest. */
  take(count: number, header: readonly string[] | undefined): PrepareJob {
    const end = count < this.#lines.length ? this.#ends[count - 1] : this.#at;
    const job: PrepareJob = {
      bytes: new Uint8Array(this.#bytes.buffer, 0, end),
      lines: Float64Array.from(this.#lines.slice(0, count)),
      ends: Float64Array.from(this.#ends.slice(0, count)),
      unreadable: this.#unreadable.filter(([index]) => index < count),
      header,
    };
    // The job's buffer is handed over (transferred): the rest moves to a buffer of its own.
    const rest = Buffer.allocUnsafeSlow(Math.max(1 << 16, this.#at - end));
    this.#bytes.copy(rest, 0, end, this.#at);
    this.#bytes = rest;
    this.#at -= end;
    this.#lines = this.#lines.slice(count);
    this.#ends = this.#ends.slice(count).map((at) => at - end);
    this.#unreadable = this.#unreadable
      .filter(([index]) => index >= count)
      .map(([index, reason]) => [index - count, reason]);
    return job;
  }
}

/**
 * Main-thread side of the preparation: splits the bytes into lines (capped in length), takes
 * the CSV header row, and hands out jobs of lines in input order, as bytes (the workers decode
 * them).
 */
export class LineBatcher {
  readonly #splitter: LineSplitter;
  readonly #mapping: ColumnMapping;
  readonly #packer = new JobPacker();
  readonly #sink: LineSink;
  #header: string[] | undefined;

  /** Throws a RangeError when the options are unusable (a bad `map` spec). */
  constructor(options: PrepareOptions) {
    this.#splitter = new LineSplitter({ maxLineBytes: options.maxLineBytes, csv: options.format === 'csv' });
    this.#mapping = parseColumnMapping(options.map ?? '');
    const packer = this.#packer;
    this.#sink =
      options.format === 'csv'
        ? {
            line: (line, bytes, from, to) => {
              if (this.#header === undefined && this.#takeHeader(line, bytes, from, to)) return;
              packer.line(line, bytes, from, to);
            },
            unreadable: (line, reason) => packer.unreadable(line, reason),
          }
        : packer;
  }

  /** Physical lines read so far. */
  get linesRead(): number {
    return this.#splitter.lines;
  }

  /** Feeds a chunk of input. Throws ImportInputError when the CSV header row is unusable. */
  push(chunk: Uint8Array): void {
    this.#splitter.pushTo(chunk, this.#sink);
  }

  /** Ends the input (a last line without newline). */
  end(): void {
    this.#splitter.endTo(this.#sink);
  }

  /** The next job of at most `max` lines, or undefined when none are waiting. */
  take(max: number): PrepareJob | undefined {
    if (this.#packer.size === 0) return undefined;
    return this.#packer.take(Math.min(max, this.#packer.size), this.#header);
  }

  /**
   * Takes the CSV header from the first line that has text; true when `line` was it. Lines before
   * it (blank or unreadable) are reported as usual; CSV rows come only after it.
   */
  #takeHeader(line: number, bytes: Buffer, from: number, to: number): boolean {
    const text = decodeLine(bytes, from, to);
    if (text === undefined || text.trim() === '') return false;
    let cells: string[];
    try {
      cells = parseCsvRecord(text);
    } catch (error) {
      throw new ImportInputError(
        `the CSV header row (line ${line}) is malformed: ${(error as Error).message}`,
      );
    }
    const header = cells.map((h) => h.trim());
    for (const column of this.#mapping.keys()) {
      if (!header.includes(column)) {
        throw new ImportInputError(
          `--map names a column "${column}" that the header row does not have (${header.join(', ')})`,
        );
      }
    }
    this.#header = header;
    return true;
  }
}

/** Worker side of the preparation: turns jobs of lines into prepared records. */
export class JobPreparer {
  readonly #options: PrepareOptions;
  readonly #mapping: ColumnMapping;
  #pathsFor: readonly string[] | undefined;
  #paths: (readonly string[] | null)[] = [];

  constructor(options: PrepareOptions) {
    this.#options = options;
    this.#mapping = parseColumnMapping(options.map ?? '');
  }

  prepare(job: PrepareJob): PreparedChunk {
    const prepared: PreparedRecord[] = [];
    const rejects: Rejection[] = [];
    // JSON lines stored as they were read: the bytes of their document.
    const rawDocs = new Map<PreparedRecord, Uint8Array>();
    const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
    let unreadable = 0;
    let from = 0;
    for (let i = 0; i < job.lines.length; i++) {
      const line = job.lines[i];
      const to = job.ends[i];
      const start = from;
      from = to;
      if (unreadable < job.unreadable.length && job.unreadable[unreadable][0] === i) {
        rejects.push({ line, reason: job.unreadable[unreadable++][1] });
        continue;
      }
      const text = decodeLine(bytes, start, to);
      if (text === undefined) {
        rejects.push({ line, reason: NOT_UTF8 });
        continue;
      }
      try {
        const record = this.#record(text, job.header);
        if (record === undefined) continue;
        const jsonl = this.#options.format === 'jsonl';
        const statement = prepareRecord(record, line, this.#options, jsonl ? text : undefined);
        prepared.push(statement);
        if (jsonl && statement.json.doc === text) rawDocs.set(statement, job.bytes.subarray(start, to));
      } catch (error) {
        if (!(error instanceof EntityRejection)) throw error;
        rejects.push({ line, reason: shorten(error.reason) });
      }
    }
    return { block: toBlock(prepared, (record) => rawDocs.get(record)), rejects };
  }

  /** The record of one line; `undefined` for blank lines. */
  #record(text: string, header: readonly string[] | undefined): unknown {
    if (text.trim() === '') return undefined;
    if (this.#options.format === 'jsonl') {
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new EntityRejection(`invalid JSON: ${(error as Error).message}`);
      }
    }
    if (header === undefined) throw new Error('a CSV row was prepared before its header');
    if (this.#pathsFor !== header) {
      this.#paths = columnPaths(header, this.#mapping);
      this.#pathsFor = header;
    }
    return rowToRecord(header, this.#paths, parseCsvRecord(text), this.#options.type);
  }
}

/**
 * Validates one record and prepares its statement. Throws EntityRejection (with the reason) when
 * the record is invalid. `text`, the record's own JSON, is stored as the document when
 * validation and the canonical form change nothing (it parses to the same entity).
 */
export function prepareRecord(
  record: unknown,
  line: number,
  options: PrepareOptions,
  text?: string,
): PreparedRecord {
  const { entity, changed } = cleanEntityTracked(record);
  const source = sourceOf(entity, { label: options.source, fileName: options.fileName });
  const canonicalChanged = canonicalizeInPlace(entity);
  const ledger = ledgerFor([{ source, statement: entity }], entity);
  const json: Record<string, string | null> = {
    doc: text !== undefined && !changed && !canonicalChanged ? text : JSON.stringify(entity),
    ledger: ledger === null ? null : JSON.stringify(ledger),
  };
  // Every field of the match index, so that fields the matcher adds flow through to the store.
  for (const [field, value] of Object.entries(indexEntity(entity))) json[field] = JSON.stringify(value);
  return { line, id: entity.id, type: entity.type, source, json: json as PreparedRecord['json'] };
}

/**
 * The CPU-bound half of an import. The main thread splits the input into lines (`LineBatcher`)
 * and hands jobs of lines to worker threads (or prepares them inline), where `JobPreparer` turns
 * them into records → validated, canonical single-source statements with their match index.
 * None of it touches the store; `ImportSession` merges the statements with what is stored.
 */
import { indexEntity } from '../match/index.ts';
import type { SerializedEntityWrite } from '../storage/index.ts';
import {
  canonicalizeInPlace,
  cleanEntityTracked,
  EntityRejection,
  type EntityType,
  ledgerFor,
  sourceOf,
} from '../kg/index.ts';
import {
  type ColumnMapping,
  columnPaths,
  parseColumnMapping,
  parseCsvRecord,
  rowToRecord,
} from './csv-mapping.ts';
import { LineSplitter, type SplitLine } from './line-splitter.ts';
import { mintEntityId } from './mint-id.ts';

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
  /** Records state their source's own lower-ranked values in `nonCanonicalFacts` (see `CleanOptions`). */
  readonly statedNonCanonicalFacts?: boolean;
}

/** A line rejected, with its 1-based number and the reason. */
export interface Rejection {
  readonly line: number;
  readonly reason: string;
}

/**
 * A valid statement ready to be merged and stored, already serialised (it crosses from the worker
 * thread as strings, which is cheap, and a new entity is written without further work).
 */
export interface PreparedRecord {
  readonly line: number;
  readonly id: string;
  readonly type: EntityType;
  readonly source: string;
  /**
   * The entity as if it were new: `doc` is the statement in its canonical single-source form,
   * `ledger` its single-source ledger, and every field of `indexEntity(doc)` (profile, keys, …).
   */
  readonly json: SerializedEntityWrite['json'];
}

/** What one job of lines produced, rejections in line order. */
export interface PreparedChunk {
  readonly prepared: PreparedRecord[];
  readonly rejects: Rejection[];
}

/**
 * Prepared records as a worker thread posts them: one array per field instead of one object per
 * record. Structured cloning reads and rebuilds arrays of strings far more cheaply than objects
 * (measured on demo records: 3.7–4.1 → 1.8–1.9 µs per record to deserialise on the main thread,
 * the import's busiest, and 2.2 → 1.6 µs to serialise).
 */
export interface PreparedColumns {
  readonly line: number[];
  readonly id: string[];
  readonly type: EntityType[];
  readonly source: string[];
  /** One array per field of `PreparedRecord.json`, parallel to the others. */
  readonly json: Record<string, (string | null)[]>;
}

/** The columns of `records` (see `PreparedColumns`). */
export function toColumns(records: readonly PreparedRecord[]): PreparedColumns {
  const json: Record<string, (string | null)[]> = {};
  // Every record carries the same fields: those of the match index plus doc and ledger.
  for (const field of records.length > 0 ? Object.keys(records[0].json) : []) {
    json[field] = records.map((record) => record.json[field]);
  }
  return {
    line: records.map((record) => record.line),
    id: records.map((record) => record.id),
    type: records.map((record) => record.type),
    source: records.map((record) => record.source),
    json,
  };
}

/** The records of `columns`, in order (the inverse of `toColumns`). */
export function fromColumns(columns: PreparedColumns): PreparedRecord[] {
  const fields = Object.keys(columns.json);
  return columns.id.map((id, i) => {
    const json: Record<string, string | null> = {};
    for (const field of fields) json[field] = columns.json[field][i];
    return {
      line: columns.line[i],
      id,
      type: columns.type[i],
      source: columns.source[i],
      json: json as PreparedRecord['json'],
    };
  });
}

/**
 * A group of lines to prepare, as the main thread hands it to a worker: plain data. `header`
 * holds the CSV header cells (undefined for JSON Lines).
 */
export interface PrepareJob {
  readonly lines: readonly SplitLine[];
  readonly header: readonly string[] | undefined;
}

/**
 * A job as it crosses to a worker thread: its lines as parallel arrays instead of one object per
 * line. Structured cloning copies strings and small integers far more cheaply than objects
 * (measured with `v8.serialize` on 2,000 demo lines: 0.34-0.39 → 0.20-0.23 µs per line to
 * serialise on the main thread, 0.67-0.87 → 0.31-0.32 µs to deserialise on the worker).
 */
export interface PostedJob {
  /** Each line's number. */
  readonly numbers: number[];
  /** Each line's text, or for the lines whose positions `unreadable` lists, why it cannot be read. */
  readonly texts: string[];
  readonly unreadable: number[];
  readonly header: readonly string[] | undefined;
}

/** `job` as posted to a worker (see `PostedJob`). */
export function toPostedJob(job: PrepareJob): PostedJob {
  const numbers: number[] = new Array(job.lines.length);
  const texts: string[] = new Array(job.lines.length);
  const unreadable: number[] = [];
  for (let i = 0; i < job.lines.length; i++) {
    const split = job.lines[i];
    numbers[i] = split.line;
    if (split.error === undefined) {
      texts[i] = split.text;
    } else {
      texts[i] = split.error;
      unreadable.push(i);
    }
  }
  return { numbers, texts, unreadable, header: job.header };
}

/** The job a worker received (the inverse of `toPostedJob`). */
export function fromPostedJob(posted: PostedJob): PrepareJob {
  const lines: SplitLine[] = posted.texts.map((text, i) => ({ line: posted.numbers[i], text }));
  for (const i of posted.unreadable) lines[i] = { line: posted.numbers[i], error: posted.texts[i] };
  return { lines, header: posted.header };
}

/**
 * The input as a whole cannot be imported (a `--map` naming a missing column): stops the import.
 * CLI only, not in the error registry: imports run from `quarry import`, which prints it and stops.
 */
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

/**
 * Main-thread side of the preparation: splits the bytes into lines (capped in length), takes
 * the CSV header row, and hands out jobs of lines in input order.
 */
export class LineBatcher {
  readonly #options: PrepareOptions;
  readonly #splitter: LineSplitter;
  readonly #mapping: ColumnMapping;
  #header: string[] | undefined;
  #lines: SplitLine[] = [];
  #ended = false;

  /** Throws a RangeError when the options are unusable (a bad `map` spec). */
  constructor(options: PrepareOptions) {
    this.#options = options;
    this.#splitter = new LineSplitter({ maxLineBytes: options.maxLineBytes, csv: options.format === 'csv' });
    this.#mapping = parseColumnMapping(options.map ?? '');
  }

  /** Physical lines read so far. */
  get linesRead(): number {
    return this.#splitter.lines;
  }

  /** Feeds a chunk of input. Throws ImportInputError when the CSV header row is unusable. */
  push(chunk: Uint8Array): void {
    this.#splitter.push(chunk, this.#lines);
    this.#takeHeader();
  }

  /** Ends the input (a last line without newline). */
  end(): void {
    this.#splitter.end(this.#lines);
    this.#takeHeader();
    this.#ended = true;
  }

  /** The next job of at most `max` lines, or undefined when none are waiting. */
  take(max: number): PrepareJob | undefined {
    if (this.#lines.length === 0) return undefined;
    // CSV rows wait for their header; without one, only blank or unreadable lines remain.
    if (this.#options.format === 'csv' && this.#header === undefined && !this.#ended) return undefined;
    let lines = this.#lines;
    if (lines.length <= max) {
      this.#lines = [];
    } else {
      lines = this.#lines.slice(0, max);
      this.#lines = this.#lines.slice(max);
    }
    return { lines, header: this.#header };
  }

  #takeHeader(): void {
    if (this.#options.format !== 'csv' || this.#header !== undefined) return;
    const index = this.#lines.findIndex((split) => split.text !== undefined && split.text.trim() !== '');
    if (index === -1) return;
    const first = this.#lines[index];
    let cells: string[];
    try {
      cells = parseCsvRecord(first.text!);
    } catch (error) {
      throw new ImportInputError(
        `the CSV header row (line ${first.line}) is malformed: ${(error as Error).message}`,
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
    // Lines before the header (blank or unreadable) are reported as usual; the header is not.
    this.#lines.splice(index, 1);
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
    for (const split of job.lines) {
      if (split.error !== undefined) {
        rejects.push({ line: split.line, reason: split.error });
        continue;
      }
      try {
        const record = this.#record(split.text, job.header);
        if (record === undefined) continue;
        prepared.push(
          prepareRecord(
            record,
            split.line,
            this.#options,
            this.#options.format === 'jsonl' ? split.text : undefined,
          ),
        );
      } catch (error) {
        if (!(error instanceof EntityRejection)) throw error;
        rejects.push({ line: split.line, reason: shorten(error.reason) });
      }
    }
    return { prepared, rejects };
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
  // A record without an id gets one derived from its type, name and address (mint-id.ts).
  if (record && typeof record === 'object' && !Array.isArray(record) && !('id' in record)) {
    const id = mintEntityId(record as Record<string, unknown>);
    if (id !== undefined) {
      record = { id, ...record };
      text = undefined;
    }
  }
  const { entity, changed } = cleanEntityTracked(
    record,
    options.statedNonCanonicalFacts === true ? { statedNonCanonicalFacts: true } : {},
  );
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

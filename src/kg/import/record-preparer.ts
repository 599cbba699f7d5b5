/**
 * The CPU-bound half of an import (runs in a worker thread or inline): bytes → lines or CSV
 * rows → records → validated, canonical single-source statements with their match index.
 * It never touches the store; `ImportSession` merges the statements with what is stored.
 */
import { indexEntity } from '../../match/index.ts';
import type { SerializedEntityWrite } from '../../storage/index.ts';
import type { EntityType } from '../entity.ts';
import { canonicalStatement, ledgerFor, sourceOf } from '../fact-ledger.ts';
import { EntityRejection, cleanEntity } from '../validate-entity.ts';
import { columnPaths, parseColumnMapping, parseCsvRecord, rowToRecord } from './csv-mapping.ts';
import { LineSplitter, type SplitLine } from './line-splitter.ts';

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

/** What one chunk of input produced. */
export interface PreparedChunk {
  readonly prepared: PreparedRecord[];
  readonly rejects: Rejection[];
  /** Physical lines read so far. */
  readonly lines: number;
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

export class RecordPreparer {
  readonly #options: PrepareOptions;
  readonly #splitter: LineSplitter;
  readonly #mapping;
  #headers: string[] | undefined;
  #paths: (readonly string[] | null)[] = [];
  #lines: SplitLine[] = [];

  /** Throws a RangeError when the options are unusable (a bad `map` spec). */
  constructor(options: PrepareOptions) {
    this.#options = options;
    this.#splitter = new LineSplitter({ maxLineBytes: options.maxLineBytes, csv: options.format === 'csv' });
    this.#mapping = parseColumnMapping(options.map ?? '');
  }

  /** Prepares the records a chunk of input completes. */
  push(chunk: Uint8Array): PreparedChunk {
    this.#splitter.push(chunk, this.#lines);
    return this.#drain();
  }

  /** Prepares the last record (one without a final newline). */
  end(): PreparedChunk {
    this.#splitter.end(this.#lines);
    return this.#drain();
  }

  #drain(): PreparedChunk {
    const prepared: PreparedRecord[] = [];
    const rejects: Rejection[] = [];
    for (const split of this.#lines) {
      if (split.error !== undefined) {
        rejects.push({ line: split.line, reason: split.error });
        continue;
      }
      try {
        const record = this.#record(split.text);
        if (record === undefined) continue;
        prepared.push(prepareRecord(record, split.line, this.#options));
      } catch (error) {
        if (!(error instanceof EntityRejection)) throw error;
        rejects.push({ line: split.line, reason: shorten(error.reason) });
      }
    }
    this.#lines = [];
    return { prepared, rejects, lines: this.#splitter.lines };
  }

  /** The record of one line; `undefined` for blank lines and the CSV header. */
  #record(text: string): unknown {
    if (this.#options.format === 'jsonl') {
      if (text.trim() === '') return undefined;
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new EntityRejection(`invalid JSON: ${(error as Error).message}`);
      }
    }
    if (text.trim() === '') return undefined;
    const cells = parseCsvRecord(text);
    if (this.#headers === undefined) {
      this.#headers = cells.map((h) => h.trim());
      for (const header of this.#mapping.keys()) {
        if (!this.#headers.includes(header)) {
          throw new ImportInputError(
            `--map names a column "${header}" that the header row does not have (${this.#headers.join(', ')})`,
          );
        }
      }
      this.#paths = columnPaths(this.#headers, this.#mapping);
      return undefined;
    }
    return rowToRecord(this.#headers, this.#paths, cells, this.#options.type);
  }
}

/**
 * Validates one record and prepares its statement. Throws EntityRejection (with the reason) when
 * the record is invalid.
 */
export function prepareRecord(record: unknown, line: number, options: PrepareOptions): PreparedRecord {
  const entity = cleanEntity(record);
  const source = sourceOf(entity, { label: options.source, fileName: options.fileName });
  const statement = canonicalStatement(entity);
  const ledger = ledgerFor([{ source, statement }], statement);
  const json: Record<string, string | null> = {
    doc: JSON.stringify(statement),
    ledger: ledger === null ? null : JSON.stringify(ledger),
  };
  // Every field of the match index, so that fields the matcher adds flow through to the store.
  for (const [field, value] of Object.entries(indexEntity(statement))) json[field] = JSON.stringify(value);
  return { line, id: statement.id, type: statement.type, source, json: json as PreparedRecord['json'] };
}

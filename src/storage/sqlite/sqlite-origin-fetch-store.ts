import type { DatabaseSync } from 'node:sqlite';
import type { OriginFetchRecord, OriginFetchStore } from '../ports.ts';
import type { Synchronous } from './asynchronous.ts';

interface OriginFetchRow {
  url: string;
  fetched_at: number;
  has_result: number;
  http_status: number | null;
  message: string;
}

/** URLs looked up per statement (well below SQLite's limit on bound parameters). */
const LOOKUP_CHUNK = 500;

/** The last fetch of each origin URL, in the embedded store. */
export class SqliteOriginFetchStore implements Synchronous<OriginFetchStore> {
  readonly #db: DatabaseSync;
  readonly #transaction: <T>(fn: () => T) => T;
  readonly #upsert;
  readonly #lookups = new Map<number, ReturnType<DatabaseSync['prepare']>>();

  constructor(db: DatabaseSync, transaction: <T>(fn: () => T) => T) {
    this.#db = db;
    this.#transaction = transaction;
    this.#upsert = db.prepare(
      `INSERT INTO origin_fetches (url, fetched_at, has_result, http_status, message) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (url) DO UPDATE SET fetched_at = excluded.fetched_at, has_result = excluded.has_result,
         http_status = excluded.http_status, message = excluded.message`,
    );
  }

  lastFetches(urls: readonly string[]): Map<string, OriginFetchRecord> {
    const out = new Map<string, OriginFetchRecord>();
    const distinct = [...new Set(urls)];
    for (let i = 0; i < distinct.length; i += LOOKUP_CHUNK) {
      const chunk = distinct.slice(i, i + LOOKUP_CHUNK);
      for (const row of this.#lookup(chunk.length).all(...chunk) as unknown as OriginFetchRow[]) {
        out.set(row.url, {
          url: row.url,
          fetchedAt: row.fetched_at,
          hasResult: row.has_result === 1,
          httpStatus: row.http_status,
          message: row.message,
        });
      }
    }
    return out;
  }

  record(fetches: readonly OriginFetchRecord[]): void {
    if (fetches.length === 0) return;
    this.#transaction(() => {
      for (const fetch of fetches) {
        this.#upsert.run(
          fetch.url,
          fetch.fetchedAt,
          fetch.hasResult ? 1 : 0,
          fetch.httpStatus,
          fetch.message,
        );
      }
    });
  }

  #lookup(n: number) {
    let statement = this.#lookups.get(n);
    if (!statement) {
      statement = this.#db.prepare(
        `SELECT url, fetched_at, has_result, http_status, message FROM origin_fetches
         WHERE url IN (${new Array(n).fill('?').join(', ')})`,
      );
      if (this.#lookups.size >= 32) this.#lookups.clear();
      this.#lookups.set(n, statement);
    }
    return statement;
  }
}

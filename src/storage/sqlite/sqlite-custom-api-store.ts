import type { DatabaseSync } from 'node:sqlite';
import type { CustomApiRecord, CustomApiStore, CustomApiWrite } from '../ports.ts';
import { COLUMNS, type CustomApiRow, toRecord } from '../custom-api-rows.ts';
import type { Synchronous } from './asynchronous.ts';

/** Custom API rule sets in the embedded store, one row per (token, api, urlPattern). */
export class SqliteCustomApiStore implements Synchronous<CustomApiStore> {
  readonly #db: DatabaseSync;
  readonly #transaction: <T>(fn: () => T) => T;
  readonly #upsert;
  readonly #insert;
  readonly #list;
  readonly #delete;
  readonly #deleteAll;
  /** `listByApi` statements by number of APIs (extraction asks with 1–3 on every request). */
  readonly #byApi = new Map<number, ReturnType<DatabaseSync['prepare']>>();

  constructor(db: DatabaseSync, transaction: <T>(fn: () => T) => T) {
    this.#db = db;
    this.#transaction = transaction;
    // One statement: the pair's existing row keeps its hash and creation time.
    this.#upsert = db.prepare(
      `INSERT INTO custom_apis (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (token_id, api, url_pattern)
       DO UPDATE SET ruleset = excluded.ruleset, updated_at = excluded.updated_at
       RETURNING ${COLUMNS}`,
    );
    this.#insert = db.prepare(
      `INSERT INTO custom_apis (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    );
    this.#list = db.prepare(`SELECT ${COLUMNS} FROM custom_apis WHERE token_id = ? ORDER BY seq`);
    this.#delete = db.prepare(
      `DELETE FROM custom_apis WHERE token_id = ? AND api = ? AND url_pattern = ? RETURNING ${COLUMNS}`,
    );
    this.#deleteAll = db.prepare('DELETE FROM custom_apis WHERE token_id = ?');
  }

  save(tokenId: string, input: CustomApiWrite): CustomApiRecord {
    const now = Date.now();
    const row = this.#upsert.get(
      input.hash,
      tokenId,
      input.api,
      input.urlPattern,
      JSON.stringify(input.ruleset),
      now,
      now,
    ) as unknown as CustomApiRow;
    return toRecord(row);
  }

  replaceAll(tokenId: string, inputs: readonly CustomApiWrite[]): CustomApiRecord[] {
    return this.#transaction(() => {
      const previous = new Map(
        this.list(tokenId).map((record) => [`${record.api}\n${record.urlPattern}`, record]),
      );
      this.#deleteAll.run(tokenId);
      const now = Date.now();
      return inputs.map((input) => {
        const kept = previous.get(`${input.api}\n${input.urlPattern}`);
        const row = this.#insert.get(
          kept?.hash ?? input.hash,
          tokenId,
          input.api,
          input.urlPattern,
          JSON.stringify(input.ruleset),
          kept?.createdAt ?? now,
          now,
        ) as unknown as CustomApiRow;
        return toRecord(row);
      });
    });
  }

  list(tokenId: string): CustomApiRecord[] {
    return (this.#list.all(tokenId) as unknown as CustomApiRow[]).map(toRecord);
  }

  listByApi(tokenId: string, apis: readonly string[]): CustomApiRecord[] {
    if (apis.length === 0) return [];
    let statement = this.#byApi.get(apis.length);
    if (!statement) {
      const placeholders = apis.map(() => '?').join(', ');
      statement = this.#db.prepare(
        `SELECT ${COLUMNS} FROM custom_apis WHERE token_id = ? AND api IN (${placeholders}) ORDER BY seq`,
      );
      if (apis.length <= 8) this.#byApi.set(apis.length, statement);
    }
    const rows = statement.all(tokenId, ...apis) as unknown as CustomApiRow[];
    return rows.map(toRecord);
  }

  delete(tokenId: string, api: string, urlPattern: string): CustomApiRecord | undefined {
    const row = this.#delete.get(tokenId, api, urlPattern) as unknown as CustomApiRow | undefined;
    return row ? toRecord(row) : undefined;
  }
}

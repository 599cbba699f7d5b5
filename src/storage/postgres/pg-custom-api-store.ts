import type { CustomApiRecord, CustomApiStore, CustomApiWrite } from '../ports.ts';
import { COLUMNS, type CustomApiRow, toRecord } from '../custom-api-rows.ts';
import type { PgExecutor } from './pg-executor.ts';

/** Custom API rule sets in PostgreSQL, one row per (token, api, urlPattern). */
export class PgCustomApiStore implements CustomApiStore {
  readonly #db: PgExecutor;

  constructor(db: PgExecutor) {
    this.#db = db;
  }

  async save(tokenId: string, input: CustomApiWrite): Promise<CustomApiRecord> {
    const now = Date.now();
    // One statement: the pair's existing row keeps its hash and creation time.
    const { rows } = await this.#db.query<CustomApiRow>(
      `INSERT INTO custom_apis (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (token_id, api, url_pattern)
       DO UPDATE SET ruleset = excluded.ruleset, updated_at = excluded.updated_at
       RETURNING ${COLUMNS}`,
      [input.hash, tokenId, input.api, input.urlPattern, JSON.stringify(input.ruleset), now, now],
    );
    return toRecord(rows[0]);
  }

  replaceAll(tokenId: string, inputs: readonly CustomApiWrite[]): Promise<CustomApiRecord[]> {
    return this.#db.atomically(async (db) => {
      // The token's rows are locked first: two replacements of one token's sets take turns.
      const { rows: before } = await db.query<CustomApiRow>(
        `SELECT ${COLUMNS} FROM custom_apis WHERE token_id = $1 ORDER BY seq FOR UPDATE`,
        [tokenId],
      );
      const previous = new Map(before.map((row) => [`${row.api}\n${row.url_pattern}`, row]));
      await db.query('DELETE FROM custom_apis WHERE token_id = $1', [tokenId]);
      const now = Date.now();
      const out: CustomApiRecord[] = [];
      for (const input of inputs) {
        const kept = previous.get(`${input.api}\n${input.urlPattern}`);
        const { rows } = await db.query<CustomApiRow>(
          `INSERT INTO custom_apis (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
          [
            kept?.hash ?? input.hash,
            tokenId,
            input.api,
            input.urlPattern,
            JSON.stringify(input.ruleset),
            kept?.created_at ?? now,
            now,
          ],
        );
        out.push(toRecord(rows[0]));
      }
      return out;
    });
  }

  async list(tokenId: string): Promise<CustomApiRecord[]> {
    const { rows } = await this.#db.query<CustomApiRow>(
      `SELECT ${COLUMNS} FROM custom_apis WHERE token_id = $1 ORDER BY seq`,
      [tokenId],
    );
    return rows.map(toRecord);
  }

  async listByApi(tokenId: string, apis: readonly string[]): Promise<CustomApiRecord[]> {
    if (apis.length === 0) return [];
    const { rows } = await this.#db.query<CustomApiRow>(
      `SELECT ${COLUMNS} FROM custom_apis WHERE token_id = $1 AND api = ANY($2::text[]) ORDER BY seq`,
      [tokenId, apis],
    );
    return rows.map(toRecord);
  }

  async delete(tokenId: string, api: string, urlPattern: string): Promise<CustomApiRecord | undefined> {
    const { rows } = await this.#db.query<CustomApiRow>(
      `DELETE FROM custom_apis WHERE token_id = $1 AND api = $2 AND url_pattern = $3 RETURNING ${COLUMNS}`,
      [tokenId, api, urlPattern],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }
}

import type { OriginFetchRecord, OriginFetchStore } from '../ports.ts';
import type { PgExecutor } from './pg-executor.ts';

interface OriginFetchRow {
  url: string;
  fetched_at: number;
  has_result: boolean;
  http_status: number | null;
  message: string;
}

/** The last fetch of each origin URL, in PostgreSQL. */
export class PgOriginFetchStore implements OriginFetchStore {
  readonly #db: PgExecutor;

  constructor(db: PgExecutor) {
    this.#db = db;
  }

  async lastFetches(urls: readonly string[]): Promise<Map<string, OriginFetchRecord>> {
    const out = new Map<string, OriginFetchRecord>();
    if (urls.length === 0) return out;
    const { rows } = await this.#db.query<OriginFetchRow>(
      'SELECT url, fetched_at, has_result, http_status, message FROM origin_fetches WHERE url = ANY($1::text[])',
      [[...new Set(urls)]],
    );
    for (const row of rows) {
      out.set(row.url, {
        url: row.url,
        fetchedAt: row.fetched_at,
        hasResult: row.has_result,
        httpStatus: row.http_status,
        message: row.message,
      });
    }
    return out;
  }

  async record(fetches: readonly OriginFetchRecord[]): Promise<void> {
    if (fetches.length === 0) return;
    // The last of several fetches of one URL in the batch wins, as it would one by one.
    const latest = new Map(fetches.map((fetch) => [fetch.url, fetch]));
    const list = [...latest.values()];
    await this.#db.query(
      `INSERT INTO origin_fetches (url, fetched_at, has_result, http_status, message)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::boolean[], $4::integer[], $5::text[])
       ON CONFLICT (url) DO UPDATE SET fetched_at = excluded.fetched_at, has_result = excluded.has_result,
         http_status = excluded.http_status, message = excluded.message`,
      [
        list.map((f) => f.url),
        list.map((f) => Math.round(f.fetchedAt)),
        list.map((f) => f.hasResult),
        list.map((f) => f.httpStatus),
        list.map((f) => f.message),
      ],
    );
  }
}

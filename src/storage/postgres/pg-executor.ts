/**
 * How the PostgreSQL adapters reach the database: `PgExecutor` runs a statement, or a group of
 * them atomically. Over the pool each atomic group takes a connection and a transaction of its
 * own; inside a transaction (a pinned connection) it joins that transaction.
 */
import pg from 'pg';
import type { SyncPostgres } from './sync-bridge.ts';

/** Rows of a statement and how many rows it changed. */
export interface PgResult<R> {
  readonly rows: R[];
  readonly rowCount: number;
}

export interface PgExecutor {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<PgResult<R>>;
  /** Runs `fn` atomically: in a transaction of its own, or joining the one this executor is in. */
  atomically<T>(fn: (executor: PgExecutor) => Promise<T>): Promise<T>;
}

/**
 * BIGINT columns (times in epoch ms, counters, refs) come back as numbers: every value we store
 * is far below 2^53. `pg` returns them as strings by default.
 */
const INT8_ARRAY_OID = 1016;

export const PG_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8) return (value: string) => Number(value);
    if (oid === INT8_ARRAY_OID) {
      const strings = pg.types.getTypeParser(INT8_ARRAY_OID as never, format) as (
        value: string,
      ) => (string | null)[];
      return (value: string) => strings(value).map((item) => (item === null ? null : Number(item)));
    }
    return pg.types.getTypeParser(oid as never, format);
  },
};

function result<R>(raw: pg.QueryResult): PgResult<R> {
  return { rows: raw.rows as R[], rowCount: raw.rowCount ?? 0 };
}

/** Statements of one pinned connection, inside its transaction. */
class ClientExecutor implements PgExecutor {
  readonly #client: pg.PoolClient;
  constructor(client: pg.PoolClient) {
    this.#client = client;
  }
  async query<R>(sql: string, params: readonly unknown[] = []): Promise<PgResult<R>> {
    return result<R>(await this.#client.query(sql, params as unknown[]));
  }
  atomically<T>(fn: (executor: PgExecutor) => Promise<T>): Promise<T> {
    return fn(this);
  }
}

/** Statements over the pool; `transaction` pins a connection for one transaction. */
export class PoolExecutor implements PgExecutor {
  readonly #pool: pg.Pool;
  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }
  async query<R>(sql: string, params: readonly unknown[] = []): Promise<PgResult<R>> {
    return result<R>(await this.#pool.query(sql, params as unknown[]));
  }
  atomically<T>(fn: (executor: PgExecutor) => Promise<T>): Promise<T> {
    return this.transaction(fn);
  }
  /** Runs `fn` in a transaction on one connection; commits when it resolves, else rolls back. */
  async transaction<T>(fn: (executor: PgExecutor) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const value = await fn(new ClientExecutor(client));
      await client.query('COMMIT');
      return value;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        // The connection is unusable: it is destroyed, not returned to the pool.
        broken = true;
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

/**
 * Statements over the blocking bridge, wrapped in promises: for a store opened `synchronous`,
 * whose transactions run on the connection the synchronous graph uses.
 */
export class BridgeExecutor implements PgExecutor {
  readonly #bridge: SyncPostgres;
  constructor(bridge: SyncPostgres) {
    this.#bridge = bridge;
  }
  async query<R>(sql: string, params: readonly unknown[] = []): Promise<PgResult<R>> {
    const { rows, rowCount } = this.#bridge.query(sql, params);
    return { rows: rows as R[], rowCount };
  }
  atomically<T>(fn: (executor: PgExecutor) => Promise<T>): Promise<T> {
    if (this.#bridge.inTransaction) return fn(this);
    return this.transaction(fn);
  }
  async transaction<T>(fn: (executor: PgExecutor) => Promise<T>): Promise<T> {
    if (this.#bridge.inTransaction) return fn(this);
    this.#bridge.begin();
    try {
      const value = await fn(this);
      this.#bridge.commit();
      return value;
    } catch (error) {
      this.#bridge.rollback();
      throw error;
    }
  }
}

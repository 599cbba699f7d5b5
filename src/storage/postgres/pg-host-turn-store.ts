/**
 * Turns of hosts in PostgreSQL, shared by every process of a deployment: taking a turn is one
 * `INSERT … ON CONFLICT DO UPDATE … WHERE` (the row lock orders concurrent takers; the one that
 * finds the host free wins, the others get how long to wait). Times are the database's clock,
 * so processes on machines whose clocks differ still space their requests.
 *
 * A turn is held by the process's claim owner number (`OWNER_LOCK_CLASS`, the session advisory
 * lock a store holds while open): a turn whose owner's lock is free belongs to a process that
 * is gone and is free at once; a hung one lapses after its `holdMs`.
 */
import type { HostTurn, HostTurnStore } from '../ports.ts';
import { OWNER_LOCK_CLASS } from './pg-crawl-job-store.ts';
import type { PgExecutor } from './pg-executor.ts';

const CLOCK = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;

/** The holder of `t`'s turn is gone: nobody holds its owner number's advisory lock. */
const HOLDER_GONE = `NOT EXISTS (
  SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.database = (
    SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.classid = ${OWNER_LOCK_CLASS} AND l.objid = t.owner AND l.objsubid = 2 AND l.granted)`;

export class PgHostTurnStore implements HostTurnStore {
  readonly #db: PgExecutor;
  readonly #owner: number;

  /** `owner`: the number whose session advisory lock this process holds. */
  constructor(db: PgExecutor, owner: number) {
    this.#db = db;
    this.#owner = owner;
  }

  async take(host: string, delayMs: number, holdMs: number): Promise<HostTurn> {
    // The row as it was before this statement (`before`) says how long to wait when not taken:
    // the delay when the host is held (its end is unknown; the turn after it begins a delay
    // after it), else until a delay after the last turn ended.
    const { rows } = await this.#db.query<{ token: number | null; wait: number | null }>(
      `WITH clock AS (SELECT ${CLOCK} AS now),
       before AS (SELECT held_until, last_end FROM host_turns WHERE host = $1),
       taken AS (
         INSERT INTO host_turns AS t (host, token, owner, held_until, last_end)
         SELECT $1, 1, $4, now + $3, 0 FROM clock
         ON CONFLICT (host) DO UPDATE SET token = t.token + 1, owner = $4,
           held_until = (SELECT now FROM clock) + $3
         WHERE t.last_end + $2 <= (SELECT now FROM clock)
           AND (t.held_until <= (SELECT now FROM clock) OR ${HOLDER_GONE})
         RETURNING t.token)
       SELECT (SELECT token FROM taken) AS token,
         (SELECT CASE WHEN held_until > clock.now THEN $2 ELSE last_end + $2 - clock.now END
          FROM before, clock) AS wait`,
      [host, Math.round(delayMs), Math.round(holdMs), this.#owner],
    );
    const row = rows[0];
    if (row.token !== null) return { granted: true, token: row.token };
    return { granted: false, waitMs: Math.max(0, row.wait ?? 0) };
  }

  async release(host: string, token: number): Promise<void> {
    await this.#db.query(
      `UPDATE host_turns SET held_until = 0, last_end = ${CLOCK} WHERE host = $1 AND token = $2`,
      [host, token],
    );
  }
}

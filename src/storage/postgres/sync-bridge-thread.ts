/** The helper thread of `SyncPostgres`: owns one `pg` connection, answers one query at a time. */
import { type MessagePort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { PG_TYPES } from './pg-executor.ts';

const { url, flag, port } = workerData as { url: string; flag: Int32Array; port: MessagePort };

// Named, so that a backend serving the matcher's reads is told from the pool's (pg_stat_activity).
const client = new pg.Client({ connectionString: url, types: PG_TYPES, application_name: 'quarry-bridge' });
// A connection lost between calls is reported at the next call, not as an uncaught error.
let lost: Error | undefined;
client.on('error', (error) => {
  lost = error;
});

/** Named statements at most per connection; any further text runs unnamed. */
const MAX_NAMED = 100;
const names = new Map<string, string>();

/**
 * A statement with parameters runs as a named prepared statement, one per text (every text we
 * send is a constant of the code): PostgreSQL parses it once per connection, and plans it
 * once when a generic plan costs no more than the custom ones. Measured in `bench/pg-match.ts`:
 * the backend's CPU per match 180 → 140 µs. Statements without parameters (BEGIN, COMMIT, a
 * snapshot's two statements in one string) stay on the simple protocol.
 */
function statement(text: string, values: unknown[] | undefined): pg.QueryConfig {
  if (!values || values.length === 0) return { text, values };
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `quarry_${names.size}`;
    names.set(text, name);
  }
  return { name, text, values };
}

function answer(reply: unknown): void {
  port.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

port.on(
  'message',
  async (message: { sql?: string; params?: unknown[]; connect?: true; end?: true; noReply?: true }) => {
    if (message.noReply) {
      // Nobody waits: a failure is the next call's (the connection runs statements in order).
      await client.query(message.sql!, message.params).catch((error: Error) => {
        lost ??= error;
      });
      return;
    }
    try {
      if (lost) throw lost;
      if (message.connect) {
        await client.connect();
        answer({ ok: true, result: { rows: [], rowCount: 0 } });
      } else if (message.end) {
        await client.end();
        answer({ ok: true, result: { rows: [], rowCount: 0 } });
        port.close();
      } else {
        const result = (await client.query(statement(message.sql!, message.params))) as
          | pg.QueryResult
          | pg.QueryResult[];
        const last = Array.isArray(result) ? result[result.length - 1] : result;
        answer({ ok: true, result: { rows: last.rows, rowCount: last.rowCount ?? 0 } });
      }
    } catch (error) {
      const e = error as Error & { code?: string };
      answer({ ok: false, error: e.message, code: e.code });
    }
  },
);

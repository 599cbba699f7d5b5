/** The helper thread of `SyncPostgres`: owns one `pg` connection, answers one query at a time. */
import { type MessagePort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { PG_TYPES } from './pg-executor.ts';

const { url, flag, port } = workerData as { url: string; flag: Int32Array; port: MessagePort };

const client = new pg.Client({ connectionString: url, types: PG_TYPES });
// A connection lost between calls is reported at the next call, not as an uncaught error.
let lost: Error | undefined;
client.on('error', (error) => {
  lost = error;
});

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
        const result = (await client.query(message.sql!, message.params)) as
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

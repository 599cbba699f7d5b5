/**
 * Worker thread of `SqliteEntityStore.indexPendingKeysOffThread`: opens the store file on a
 * connection of its own, runs the key pass (`indexPendingKeys`) and answers with how many
 * entities it indexed, or the error that stopped it. The caller's thread stays free meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createTransactionRunner, openSqliteDatabase } from './sqlite-database.ts';
import { type KeyPassAnswer, SqliteEntityStore } from './sqlite-entity-store.ts';

/** The thread's answer. */
const port = parentPort;
if (port === null) throw new Error('key-pass-worker.ts runs only as a worker thread');
// The connection and the entity store alone: the other stores' statements are not needed here.
const db = openSqliteDatabase((workerData as { file: string }).file);
let answer: KeyPassAnswer;
try {
  answer = { indexed: new SqliteEntityStore(db, createTransactionRunner(db)).indexPendingKeys() };
} catch (error) {
  answer = { error: (error as Error).message };
} finally {
  db.close();
}
port.postMessage(answer);

/**
 * Worker thread of `SqliteEntityStore.indexPendingKeysOffThread`: opens the store file on a
 * connection of its own, runs the key pass (`indexPendingKeys`) and answers with how many
 * entities it indexed, or the error that stopped it. The caller's thread stays free meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteStorage } from './index.ts';

/** The thread's answer. */
export type KeyPassAnswer = { readonly indexed: number } | { readonly error: string };

const port = parentPort;
if (port === null) throw new Error('key-pass-worker.ts runs only as a worker thread');
const storage = openSqliteStorage((workerData as { file: string }).file);
let answer: KeyPassAnswer;
try {
  answer = { indexed: storage.entities.indexPendingKeys() };
} catch (error) {
  answer = { error: (error as Error).message };
} finally {
  storage.close();
}
port.postMessage(answer);

/**
 * Worker thread of an import: runs the RecordPreparer on the chunks the main thread posts and
 * answers each with what it prepared, in order. The main thread meanwhile writes to the store.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type PrepareOptions, RecordPreparer } from './record-preparer.ts';

/** Messages from the main thread. */
export type ToWorker = { readonly kind: 'chunk'; readonly data: Uint8Array } | { readonly kind: 'end' };

const port = parentPort;
if (port === null) throw new Error('import-worker.ts runs only as a worker thread');
let preparer: RecordPreparer;
try {
  preparer = new RecordPreparer(workerData as PrepareOptions);
} catch (error) {
  port.postMessage({ kind: 'error', name: (error as Error).name, message: (error as Error).message });
  process.exit(0);
}
port.on('message', (message: ToWorker) => {
  try {
    if (message.kind === 'chunk') {
      port.postMessage({ kind: 'chunk', ...preparer.push(message.data) });
    } else {
      port.postMessage({ kind: 'end', ...preparer.end() });
      port.close();
    }
  } catch (error) {
    port.postMessage({ kind: 'error', name: (error as Error).name, message: (error as Error).message });
    port.close();
  }
});

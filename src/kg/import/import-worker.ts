/**
 * Worker thread of an import: prepares the jobs of lines the main thread posts and answers each
 * with its sequence number. The main thread meanwhile writes to the store.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { JobPreparer, type PrepareJob, type PrepareOptions } from './record-preparer.ts';

/** A job as posted by the main thread. */
export interface WorkerJob extends PrepareJob {
  readonly seq: number;
}

const port = parentPort;
if (port === null) throw new Error('import-worker.ts runs only as a worker thread');
const preparer = new JobPreparer(workerData as PrepareOptions);
port.on('message', (job: WorkerJob) => {
  try {
    port.postMessage({ seq: job.seq, ...preparer.prepare(job) });
  } catch (error) {
    port.postMessage({
      seq: job.seq,
      error: { name: (error as Error).name, message: (error as Error).message },
    });
  }
});

/**
 * Worker thread of an import: prepares the jobs of lines the main thread posts and answers each
 * with its sequence number. The main thread meanwhile writes to the store.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  JobPreparer,
  type PreparedBlock,
  type PrepareJob,
  type PrepareOptions,
  type Rejection,
} from './record-preparer.ts';

/** A job as posted by the main thread. */
export interface WorkerJob extends PrepareJob {
  readonly seq: number;
}

/** A worker's answer to a job: its records as a block, or the error that stopped it. */
export type WorkerAnswer =
  | {
      readonly seq: number;
      readonly block: PreparedBlock;
      readonly rejects: Rejection[];
      readonly error?: undefined;
    }
  | { readonly seq: number; readonly error: { readonly name: string; readonly message: string } };

const port = parentPort;
if (port === null) throw new Error('import-worker.ts runs only as a worker thread');
const preparer = new JobPreparer(workerData as PrepareOptions);
port.on('message', (job: WorkerJob) => {
  try {
    const { block, rejects } = preparer.prepare(job);
    const answer: WorkerAnswer = { seq: job.seq, block, rejects };
    // The block's bytes move to the main thread: transferred, not copied.
    port.postMessage(answer, [block.bytes.buffer as ArrayBuffer]);
  } catch (error) {
    const answer: WorkerAnswer = {
      seq: job.seq,
      error: { name: (error as Error).name, message: (error as Error).message },
    };
    port.postMessage(answer);
  }
});

/**
 * Worker thread of an import: prepares the jobs of lines the main thread posts and answers each
 * with its sequence number. The main thread meanwhile writes to the store.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  fromPostedJob,
  JobPreparer,
  type PostedJob,
  type PreparedColumns,
  type PrepareOptions,
  type Rejection,
  toColumns,
} from './record-preparer.ts';

/** A job as posted by the main thread. */
export interface WorkerJob extends PostedJob {
  readonly seq: number;
}

/** A worker's answer to a job: its records as columns, or the error that stopped it. */
export type WorkerAnswer =
  | {
      readonly seq: number;
      readonly columns: PreparedColumns;
      readonly rejects: Rejection[];
      readonly error?: undefined;
    }
  | { readonly seq: number; readonly error: { readonly name: string; readonly message: string } };

const port = parentPort;
if (port === null) throw new Error('import-worker.ts runs only as a worker thread');
const preparer = new JobPreparer(workerData as PrepareOptions);
port.on('message', (job: WorkerJob) => {
  try {
    const { prepared, rejects } = preparer.prepare(fromPostedJob(job));
    const answer: WorkerAnswer = { seq: job.seq, columns: toColumns(prepared), rejects };
    port.postMessage(answer);
  } catch (error) {
    const answer: WorkerAnswer = {
      seq: job.seq,
      error: { name: (error as Error).name, message: (error as Error).message },
    };
    port.postMessage(answer);
  }
});

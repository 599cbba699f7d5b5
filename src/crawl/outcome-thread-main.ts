/** Entry of the writer thread (`outcome-thread.ts`): one connection, one batch at a time. */
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../logging.ts';
import { openStorage } from '../storage/index.ts';
import type { OutcomeThreadData, OutcomeThreadRequest, OutcomeThreadResponse } from './outcome-thread.ts';
import { GraphIngest } from './graph-ingest.ts';
import { applyOutcomes } from './outcome-writer.ts';

const data = workerData as OutcomeThreadData;
const storage = openStorage(data.store, { cacheMiB: 16, synchronous: true });
// Pages of `kgIngest` jobs state their organizations and people in the same transaction.
const ingester = new GraphIngest(storage.entities);
const logger = createLogger({ level: data.logLevel, destination: 'stderr', name: 'quarry-crawl-writer' });

parentPort!.on('message', async (request: OutcomeThreadRequest) => {
  let response: OutcomeThreadResponse;
  try {
    response = { id: request.id, applied: await applyOutcomes(storage, request.batch, ingester, logger) };
  } catch (error) {
    response = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(response);
});

/**
 * Worker thread entry of `createEnhanceThreads`: answers single enhance and combine requests
 * with the `Enhancer` over its own read-only connection, one read snapshot per request. It never
 * writes and never charges: the main thread charges for the answer it sends.
 */
import { workerData } from 'node:worker_threads';
import { HeapTrimmer, serveTasks, WORKER_HEAP_TRIM } from '../threads/index.ts';
import { matchedCount } from './enhance-service.ts';
import { matchSummary } from './response.ts';
import type { AnswerTask, AnswerThreadData, EncodedAnswer } from './enhance-threads.ts';
import { openThreadEnhancer } from './thread-enhancer.ts';

const { storage, enhancer } = openThreadEnhancer(workerData as AnswerThreadData);
const heap = new HeapTrimmer(WORKER_HEAP_TRIM);
setInterval(() => heap.maybeTrim(), 1000).unref();

function answer({ kind, request, queryCtx }: AnswerTask): EncodedAnswer {
  const response =
    kind === 'combine' ? enhancer.combine(request, queryCtx) : enhancer.enhance(request, queryCtx);
  return { json: JSON.stringify(response), matched: matchedCount(response), summary: matchSummary(response) };
}

serveTasks((task: AnswerTask) => storage.readSnapshot(() => answer(task)));

/**
 * Worker thread entry of `createEnhanceThreads`: answers single enhance and combine requests
 * with the `Enhancer` over its own read-only connection, one read snapshot per request. It never
 * writes and never charges: the main thread charges for the answer it sends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { HeapTrimmer, WORKER_HEAP_TRIM } from '../heap-trim.ts';
import { createMatcher, VocabularyShare } from '../match/index.ts';
import { openSqliteStorage } from '../storage/index.ts';
import type { WorkerReply, WorkerRequest } from '../worker-pool.ts';
import { Enhancer } from './enhance-service.ts';
import type { AnswerTask, AnswerThreadData, EncodedAnswer } from './enhance-threads.ts';

const data = workerData as AnswerThreadData;
const storage = openSqliteStorage(data.dbFile, { readOnly: true, cacheMiB: data.cacheMiB });
const share = data.vocabularies ? new VocabularyShare(data.vocabularies) : undefined;
const enhancer = new Enhancer({
  entities: storage.entities,
  matcher: createMatcher(storage.entities, share ? { share } : {}),
});
const heap = new HeapTrimmer(WORKER_HEAP_TRIM);
setInterval(() => heap.maybeTrim(), 1000).unref();

function answer({ kind, request, queryCtx }: AnswerTask): EncodedAnswer {
  const response =
    kind === 'combine' ? enhancer.combine(request, queryCtx) : enhancer.enhance(request, queryCtx);
  let matched = 0;
  for (const hit of response.data) if (hit.entity !== null) matched++;
  return { json: JSON.stringify(response), matched };
}

parentPort!.on('message', (message: WorkerRequest<AnswerTask>) => {
  let reply: WorkerReply<EncodedAnswer>;
  try {
    reply = { id: message.id, ok: true, result: storage.readSnapshot(() => answer(message.task)) };
  } catch (error) {
    reply = { id: message.id, ok: false, error: (error as Error).stack ?? String(error) };
  }
  parentPort!.postMessage(reply);
});

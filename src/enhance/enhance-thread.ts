/**
 * Worker thread entry of `createEnhanceThreads`: answers single enhance and combine requests
 * with the `Enhancer` over its own read-only connection. It never writes and never charges: the
 * main thread charges for the answer it sends.
 *
 * Without `batch`, one read snapshot per request. With it (the default), the requests queued for
 * the thread when it is free are answered together in one read snapshot, their reads made at
 * once first (`BatchReads`, as a bulk batch's), then each answered, and the batch's answers sent
 * back together (one message: the main thread charges them in one commit): on PostgreSQL every
 * read is a blocking round trip, and a few per batch cost far less than ~2.6 per request; on
 * SQLite a request costs ~25% less CPU (bench/NOTES.md, issue 30).
 */
import { workerData } from 'node:worker_threads';
import {
  HeapTrimmer,
  lowerThreadPriority,
  serveTaskBatches,
  serveTasks,
  type TransferOf,
  WORKER_HEAP_TRIM,
} from '../threads/index.ts';
import { BatchReads } from './batch-reads.ts';
import { Enhancer, matchedCount } from './enhance-service.ts';
import { matchSummary } from './response.ts';
import type { AnswerTask, AnswerTaskText, AnswerThreadData, AnswerTuple } from './enhance-threads.ts';
import { openThreadEnhancer } from './thread-enhancer.ts';

const data = workerData as AnswerThreadData;
// Before the store opens: its bridge thread (PostgreSQL) takes this thread's priority.
lowerThreadPriority(data.niceness);
const { storage, enhancer: alone, matcher } = openThreadEnhancer(data);
const heap = new HeapTrimmer(WORKER_HEAP_TRIM);
setInterval(() => heap.maybeTrim(), 1000).unref();

const utf8 = new TextEncoder();

function answerWith(enhancer: Enhancer, { kind, request, queryCtx }: AnswerTask, batched = 1): AnswerTuple {
  const response =
    kind === 'combine' ? enhancer.combine(request, queryCtx) : enhancer.enhance(request, queryCtx);
  const { candidates, bestScore } = matchSummary(response);
  // Bytes of their own (`encode`'s exact-size buffer), handed over with the reply (`transferBody`).
  return [utf8.encode(JSON.stringify(response)), matchedCount(response), candidates, bestScore, batched];
}

/** The answer's body goes to the main thread without a copy; nothing here reads it again. */
const transferBody: TransferOf<AnswerTuple> = (answer) => [answer[0].buffer];

if (data.batch) {
  const reads = new BatchReads(matcher, storage.entities);
  const enhancer = new Enhancer(reads.deps);
  serveTaskBatches((texts: readonly AnswerTaskText[], answerEach) => {
    const tasks = texts.map((text) => JSON.parse(text) as AnswerTask);
    // A lone request reads as it always did: nothing to share.
    if (tasks.length === 1)
      return storage.readSnapshot(() => answerEach((_, i) => answerWith(alone, tasks[i])));
    storage.readSnapshot(() => {
      // Combine asks other searches (size 1, then the employer's): read for itself.
      reads.prepare(tasks.flatMap((task) => (task.kind === 'enhance' ? [task.request] : [])));
      try {
        answerEach((_, i) => answerWith(enhancer, tasks[i], tasks.length));
      } finally {
        reads.clear();
      }
    });
  }, transferBody);
} else {
  serveTasks(
    (text: AnswerTaskText) => storage.readSnapshot(() => answerWith(alone, JSON.parse(text) as AnswerTask)),
    undefined,
    transferBody,
  );
}
